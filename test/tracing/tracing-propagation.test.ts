import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRestTool } from '../../src/builtins/web/rest-tool.js';
import { defineTool } from '../../src/core/define-tool.js';
import { inTraceContext } from '../../src/core/tracing.js';
import { importMcpServer, type McpServerConnection } from '../../src/mcp/import-mcp-server.js';
import { createMcpServer } from '../../src/mcp/mcp-server.js';
import { ToolRegistry } from '../../src/registry/tool-registry.js';
import { createExecuteJavascriptTool } from '../../src/sandbox/javascript/execute-javascript-tool.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { type InMemoryTracing, parentSpanId, startInMemoryTracing } from '../support/in-memory-tracing.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

let tracing: InMemoryTracing;
beforeAll(() => {
  tracing = startInMemoryTracing();
});
beforeEach(() => tracing.reset());
afterAll(async () => {
  await tracing.stop();
});

describe('a REST tool', () => {
  let api: Server;
  let port: number;
  const received: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    api = createServer((request, response) => {
      received.push(request.headers);
      const status = request.url?.startsWith('/missing') ? 404 : 200;
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(status === 200 ? { ok: true } : { error: 'no such thing' }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    port = (api.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => api.close(() => resolve()));
  });
  beforeEach(() => {
    received.length = 0;
  });

  function registry(path: string): ToolRegistry {
    const tools = new ToolRegistry();
    tools.register(
      createRestTool({
        id: 'lookup',
        type: 'rest_api',
        description: 'Look something up.',
        endpoint: `http://127.0.0.1:${port}${path}`,
        method: 'GET',
        allow_private_network: true,
        parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      }),
    );
    return tools;
  }

  it('sends the trace on in traceparent, from an HTTP client span child of the tool span', async () => {
    const result = await inTraceContext({ traceparent: TRACEPARENT }, () =>
      registry('/search').call('lookup', { q: 'secret-ish' }),
    );
    expect(result.status).toBe('success');
    const [tool] = tracing.named('execute_tool lookup');
    const [http] = tracing.named('GET');
    expect(parentSpanId(tool!)).toBe(CALLER_SPAN);
    expect(parentSpanId(http!)).toBe(tool?.spanContext().spanId);
    expect(http?.kind).toBe(SpanKind.CLIENT);
    expect(http?.attributes).toEqual({
      'http.request.method': 'GET',
      'url.full': `http://127.0.0.1:${port}/search`,
      'server.address': '127.0.0.1',
      'server.port': port,
      'http.response.status_code': 200,
    });
    expect(received).toHaveLength(1);
    expect(received[0]?.traceparent).toBe(`00-${TRACE_ID}-${http?.spanContext().spanId}-01`);
  });

  it('marks the HTTP span failed on an error status', async () => {
    const result = await registry('/missing').call('lookup', { q: 'x' });
    expect(result.status === 'error' && result.error.code).toBe('EXECUTION_FAILED');
    const [http] = tracing.named('GET');
    expect(http?.attributes).toMatchObject({ 'http.response.status_code': 404, 'error.type': '404' });
    expect(http?.status.code).toBe(SpanStatusCode.ERROR);
    const [tool] = tracing.named('execute_tool lookup');
    expect(tool?.attributes).toMatchObject({ 'toolshed.status': 'error', 'error.type': 'EXECUTION_FAILED' });
  });
});

describe('an upstream MCP server', () => {
  let connection: McpServerConnection | undefined;
  afterAll(async () => {
    await connection?.close();
  });

  it('gets the trace in _meta.traceparent, and its own tool span continues it', async () => {
    // The upstream is a toolshed MCP server too, so its spans land in the same exporter.
    const upstreamTools = new ToolRegistry();
    upstreamTools.register(
      defineTool({
        name: 'echo',
        description: 'Echo a message.',
        input: z.object({ message: z.string() }),
        handler: ({ message }) => message,
      }),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(upstreamTools, { name: 'upstream' }).connect(serverSide);
    const local = new ToolRegistry();
    connection = await importMcpServer(local, { name: 'up' }, { transport: clientSide });

    const result = await inTraceContext({ traceparent: TRACEPARENT }, () => local.call('up__echo', { message: 'hi' }));
    expect(result.status === 'success' && result.data).toBe('hi');
    const [outer] = tracing.named('execute_tool up__echo');
    const [client] = tracing.named('tools/call echo');
    const [inner] = tracing.named('execute_tool echo');
    expect(parentSpanId(outer!)).toBe(CALLER_SPAN);
    expect(parentSpanId(client!)).toBe(outer?.spanContext().spanId);
    expect(parentSpanId(inner!)).toBe(client?.spanContext().spanId);
    expect(inner?.spanContext().traceId).toBe(TRACE_ID);
    expect(client?.kind).toBe(SpanKind.CLIENT);
    expect(client?.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'toolshed.mcp.server': 'up',
    });
  });
});

describe('a sandbox tool', () => {
  it('runs its code in a sandbox.run span child of the tool span', async () => {
    const sandbox: Sandbox = {
      language: 'javascript',
      run: async () => ({ ok: true, stdout: 'hi\n', stderr: '', truncated: false, durationMs: 3, result: 42 }),
      close: async () => undefined,
    };
    const tools = new ToolRegistry();
    tools.register(createExecuteJavascriptTool({ sandbox }));
    const result = await tools.call('execute_javascript', { code: 'console.log("hi"); 6 * 7' });
    expect(result.status).toBe('success');
    const [tool] = tracing.named('execute_tool execute_javascript');
    const [run] = tracing.named('sandbox.run javascript');
    expect(parentSpanId(run!)).toBe(tool?.spanContext().spanId);
    expect(run?.attributes).toEqual({
      'toolshed.sandbox.language': 'javascript',
      'toolshed.sandbox.code_chars': 24,
      'toolshed.sandbox.outcome': 'ok',
      'toolshed.sandbox.duration_ms': 3,
    });
  });

  it('names the failure reason of a run that failed', async () => {
    const sandbox: Sandbox = {
      language: 'javascript',
      run: async () => ({
        ok: false,
        reason: 'timeout',
        message: 'The code ran longer than 5 s.',
        stdout: '',
        stderr: '',
        truncated: false,
        durationMs: 5000,
      }),
      close: async () => undefined,
    };
    const tools = new ToolRegistry();
    tools.register(createExecuteJavascriptTool({ sandbox }));
    await tools.call('execute_javascript', { code: 'while (true) {}' });
    const [run] = tracing.named('sandbox.run javascript');
    expect(run?.attributes['toolshed.sandbox.outcome']).toBe('timeout');
  });
});
