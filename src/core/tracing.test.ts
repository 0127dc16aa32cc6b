import { SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type InMemoryTracing, parentSpanId, startInMemoryTracing } from '../../test/support/in-memory-tracing.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { defineTool } from './define-tool.js';
import type { CallInfo } from './dispatch.js';
import { ToolResult } from './tool-result.js';
import { activeTracer, extractTraceContext, injectTraceContext, inTraceContext, withSpan } from './tracing.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(
    defineTool({
      name: 'add',
      description: 'Add two numbers.',
      input: z.object({ a: z.number(), b: z.number() }),
      handler: ({ a, b }) => a + b,
    }),
  );
  tools.register(
    defineTool({
      name: 'nested',
      description: 'Do some work in a child span.',
      input: z.object({}),
      handler: () => withSpan('inner work', { 'work.kind': 'test' }, async () => 'done'),
    }),
  );
  tools.register(
    defineTool({
      name: 'delete_file',
      description: 'Delete a file.',
      input: z.object({ path: z.string() }),
      requiresApproval: true,
      handler: ({ path }) => `deleted ${path}`,
    }),
  );
  return tools;
}

describe('tracing without a registered SDK', () => {
  it('has no tracer, makes no span, and a call runs as before', async () => {
    expect(activeTracer()).toBeUndefined();
    const result = await registry().call('nested', {});
    expect(result.status).toBe('success');
    const headers: Record<string, string> = {};
    injectTraceContext(headers);
    expect(headers).toEqual({});
    expect(inTraceContext({ traceparent: TRACEPARENT }, () => trace.getActiveSpan())).toBeUndefined();
  });
});

describe('tracing with an SDK registered', () => {
  let tracing: InMemoryTracing;

  beforeAll(() => {
    tracing = startInMemoryTracing();
  });
  beforeEach(() => tracing.reset());
  afterAll(async () => {
    await tracing.stop();
    expect(activeTracer()).toBeUndefined();
  });

  it('makes an execute_tool span with the GenAI attributes and the status for a success', async () => {
    const result = await registry().call('add', { a: 1, b: 2 }, { toolCallId: 'call_1' });
    expect(result.status).toBe('success');
    const [span, ...others] = tracing.named('execute_tool add');
    expect(others).toEqual([]);
    expect(span?.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.description': 'Add two numbers.',
      'toolshed.status': 'success',
    });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    expect(parentSpanId(span!)).toBeUndefined();
  });

  it('records error.type, the error code and an ERROR status for a refused call', async () => {
    const result = await registry().call('add', '{"a": "one"}');
    expect(result.status === 'error' && result.error.code).toBe('INVALID_ARGUMENTS');
    const [span] = tracing.named('execute_tool add');
    expect(span?.attributes).toMatchObject({
      'toolshed.status': 'error',
      'toolshed.error.code': 'INVALID_ARGUMENTS',
      'error.type': 'INVALID_ARGUMENTS',
    });
    expect(span?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: result.status === 'error' ? result.error.message : '',
    });
  });

  it('makes a span for an unknown tool too, without a description', async () => {
    await registry().call('ad', { a: 1 });
    const [span] = tracing.named('execute_tool ad');
    expect(span?.attributes['toolshed.error.code']).toBe('TOOL_NOT_FOUND');
    expect(span?.attributes).not.toHaveProperty('gen_ai.tool.description');
  });

  it('makes the tool span the parent of the spans the tool starts', async () => {
    await registry().call('nested', {});
    const [tool] = tracing.named('execute_tool nested');
    const [inner] = tracing.named('inner work');
    expect(inner?.spanContext().traceId).toBe(tool?.spanContext().traceId);
    expect(parentSpanId(inner!)).toBe(tool?.spanContext().spanId);
    expect(inner?.attributes).toEqual({ 'work.kind': 'test' });
  });

  it('continues the trace of an incoming traceparent', async () => {
    await inTraceContext({ traceparent: TRACEPARENT }, () => registry().call('add', { a: 1, b: 2 }));
    const [span] = tracing.named('execute_tool add');
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(parentSpanId(span!)).toBe(PARENT_ID);
  });

  it.each([
    ['a malformed traceparent', { traceparent: '00-not-a-trace-01' }],
    ['an all-zero trace id', { traceparent: `00-${'0'.repeat(32)}-${PARENT_ID}-01` }],
    ['a traceparent that is not a string', { traceparent: 42 }],
    ['a traceparent as an object', { traceparent: { toString: () => TRACEPARENT } }],
    ['no carrier', undefined],
  ])('starts a new trace for %s, and the call still runs', async (_case, carrier) => {
    const result = await inTraceContext(carrier as Record<string, unknown> | undefined, () =>
      registry().call('add', { a: 1, b: 2 }),
    );
    expect(result.status).toBe('success');
    const [span] = tracing.named('execute_tool add');
    expect(parentSpanId(span!)).toBeUndefined();
    expect(span?.spanContext().traceId).not.toBe(TRACE_ID);
  });

  it('takes the first value of a repeated traceparent header', () => {
    const extracted = extractTraceContext({ traceparent: [TRACEPARENT, `00-${'1'.repeat(32)}-${PARENT_ID}-01`] });
    expect(trace.getSpanContext(extracted)?.traceId).toBe(TRACE_ID);
  });

  it('injects the active span as traceparent', async () => {
    const headers: Record<string, string> = {};
    await withSpan('outer', {}, async (span) => {
      injectTraceContext(headers);
      expect(headers.traceparent).toBe(`00-${span?.spanContext().traceId}-${span?.spanContext().spanId}-01`);
    });
  });

  it('ends a span whose work rejects with the error recorded, and passes the rejection on', async () => {
    await expect(
      withSpan('failing', {}, async () => {
        throw new RangeError('out of range');
      }),
    ).rejects.toThrow('out of range');
    const [span] = tracing.named('failing');
    expect(span?.attributes['error.type']).toBe('RangeError');
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'out of range' });
  });

  it('sends an approved call through the hooks and a span once, with its approval id', async () => {
    const tools = registry();
    const seen: string[] = [];
    let activeInHook: string | undefined;
    tools.use({
      name: 'recorder',
      before: (call: CallInfo) => {
        seen.push(`before ${call.tool} ${call.approvalId ?? '-'}`);
        activeInHook = trace.getActiveSpan()?.spanContext().spanId;
      },
      after: (call: CallInfo, result) => {
        seen.push(`after ${call.tool} ${call.approvalId ?? '-'} ${result.status}`);
      },
    });
    const pending = await tools.call('delete_file', { path: '/tmp/x' }, { toolCallId: 'call_9' });
    if (pending.status !== 'pending_approval') throw new Error('expected a pending approval');
    const approvalId = pending.approval.id;
    const result = await tools.resolveApproval(approvalId, 'approve');
    expect(result.status === 'success' && result.data).toBe('deleted /tmp/x');
    // The approval decided twice still runs once.
    await expect(tools.resolveApproval(approvalId, 'approve')).rejects.toThrow(
      `Approval '${approvalId}' is unknown or was already decided.`,
    );
    expect(seen).toEqual([
      'before delete_file -',
      'after delete_file - pending_approval',
      `before delete_file ${approvalId}`,
      `after delete_file ${approvalId} success`,
    ]);
    const spans = tracing.named('execute_tool delete_file');
    expect(spans.map((span) => span.attributes['toolshed.status'])).toEqual(['pending_approval', 'success']);
    expect(spans[1]?.attributes).toMatchObject({ 'toolshed.approval.id': approvalId, 'gen_ai.tool.call.id': 'call_9' });
    // The hooks run inside the call's span.
    expect(activeInHook).toBe(spans[1]?.spanContext().spanId);
  });

  it('sends a denied approval through the hooks and a span once, with its approval id, running nothing', async () => {
    const tools = registry();
    const seen: string[] = [];
    tools.use({
      name: 'recorder',
      before: (call: CallInfo) => {
        seen.push(`before ${call.tool} ${call.approvalId ?? '-'}`);
      },
      after: (call: CallInfo, result) => {
        seen.push(
          `after ${call.tool} ${call.approvalId ?? '-'} ${'error' in result ? result.error.code : result.status}`,
        );
      },
    });
    const pending = await tools.call('delete_file', { path: '/tmp/y' }, { toolCallId: 'call_10' });
    if (pending.status !== 'pending_approval') throw new Error('expected a pending approval');
    const approvalId = pending.approval.id;
    tracing.reset();
    const result = await tools.resolveApproval(approvalId, 'deny');
    expect(result).toMatchObject({
      status: 'cancelled',
      error: { code: 'CANCELLED', message: "The call to 'delete_file' was denied by the approver; do not retry it." },
      metadata: { tool: 'delete_file', approvalId, toolCallId: 'call_10' },
    });
    expect(seen.slice(2)).toEqual([`before delete_file ${approvalId}`, `after delete_file ${approvalId} CANCELLED`]);
    const [span, ...others] = tracing.named('execute_tool delete_file');
    expect(others).toEqual([]);
    expect(span?.attributes).toMatchObject({
      'toolshed.approval.id': approvalId,
      'gen_ai.tool.call.id': 'call_10',
      'toolshed.status': 'cancelled',
      'error.type': 'CANCELLED',
    });
  });

  it('runs a call refused by its admit option through the hooks and a span once, without running it', async () => {
    const tools = registry();
    const seen: string[] = [];
    let ran = 0;
    tools.register(
      defineTool({
        name: 'counted',
        description: 'Count its runs.',
        input: z.object({}),
        handler: () => {
          ran += 1;
          return ran;
        },
      }),
    );
    tools.use({
      name: 'recorder',
      before: (call: CallInfo) => {
        seen.push(`before ${call.tool}`);
      },
      after: (call: CallInfo, result) => {
        seen.push(`after ${call.tool} ${'error' in result ? result.error.code : result.status}`);
      },
    });
    const refusal = ToolResult.error('RATE_LIMITED', 'Too many calls running at once.');
    const refused = await tools.call('counted', {}, { toolCallId: 'call_11', admit: async () => refusal });
    expect(refused).toMatchObject({
      status: 'error',
      error: { code: 'RATE_LIMITED', message: 'Too many calls running at once.', retryable: true },
      metadata: { tool: 'counted', toolCallId: 'call_11' },
    });
    const admitted = await tools.call('counted', {}, { admit: () => undefined });
    expect(admitted.status === 'success' && admitted.data).toBe(1);
    const broken = await tools.call(
      'counted',
      {},
      {
        admit: () => {
          throw new Error('store down');
        },
      },
    );
    expect(broken).toMatchObject({
      status: 'error',
      error: { code: 'EXECUTION_FAILED', message: "Tool 'counted' could not be dispatched: store down" },
    });
    expect(ran).toBe(1);
    expect(seen).toEqual([
      'before counted',
      'after counted RATE_LIMITED',
      'before counted',
      'after counted success',
      'before counted',
      'after counted EXECUTION_FAILED',
    ]);
    const spans = tracing.named('execute_tool counted');
    expect(spans.map((span) => span.attributes['error.type'] ?? span.attributes['toolshed.status'])).toEqual([
      'RATE_LIMITED',
      'success',
      'EXECUTION_FAILED',
    ]);
  });
});
