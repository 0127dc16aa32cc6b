import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/core/define-tool.js';
import { createMcpHttpHandler, type McpHttpHandler } from '../../src/mcp/index.js';
import { ToolRegistry } from '../../src/registry/tool-registry.js';
import { type InMemoryTracing, parentSpanId, startInMemoryTracing } from '../support/in-memory-tracing.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const HEADER_SPAN = '11f067aa0ba902b8';

let tracing: InMemoryTracing;
let handler: McpHttpHandler;
beforeAll(() => {
  tracing = startInMemoryTracing();
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'echo',
      description: 'Echo a message.',
      input: z.object({ message: z.string() }),
      handler: ({ message }) => message,
    }),
  );
  handler = createMcpHttpHandler(registry);
});
beforeEach(() => tracing.reset());
afterAll(async () => {
  await handler.close();
  await tracing.stop();
});

/** A 2026-07-28 `tools/call echo`, with `meta` added to its `_meta` and `headers` to its HTTP headers. */
async function call(meta: Record<string, unknown>, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await handler.fetch(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        host: '127.0.0.1',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'echo',
          arguments: { message: 'hi' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'traced', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
            ...meta,
          },
        },
      }),
    }),
  );
  return ((await response.json()) as { result: unknown }).result;
}

describe('a 2026-07-28 tools/call', () => {
  it("continues the trace of _meta.traceparent (before the HTTP request's own header)", async () => {
    const result = await call(
      { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
      { traceparent: `00-${TRACE_ID}-${HEADER_SPAN}-01` },
    );
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
    const [span] = tracing.named('execute_tool echo');
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(parentSpanId(span!)).toBe(CALLER_SPAN);
  });

  it('continues the trace of the traceparent header when _meta has none', async () => {
    await call({}, { traceparent: `00-${TRACE_ID}-${HEADER_SPAN}-01` });
    const [span] = tracing.named('execute_tool echo');
    expect(parentSpanId(span!)).toBe(HEADER_SPAN);
  });
});
