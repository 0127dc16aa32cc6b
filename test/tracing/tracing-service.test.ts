import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/core/define-tool.js';
import { createServer } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { sqliteHarness } from '../server/server-harness.js';
import { type InMemoryTracing, parentSpanId, startInMemoryTracing } from '../support/in-memory-tracing.js';

const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const CALLER_SPAN = 'eee19b7ec3c1b174';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

describe('tool call spans in the service', () => {
  const harness = sqliteHarness();
  let tracing: InMemoryTracing;
  let store: ToolshedStore;
  let app: FastifyInstance;
  let base: string;
  let headers: Record<string, string>;
  let workspaceId: string;
  let ran = 0;
  const clients: Client[] = [];

  const echo = defineTool({
    name: 'echo',
    description: 'Echo a note.',
    input: z.object({ note: z.string() }),
    handler: ({ note }) => note,
  });
  const approved = defineTool({
    name: 'approved_echo',
    description: 'Echo a note once a person approved it.',
    input: z.object({ note: z.string() }),
    requiresApproval: true,
    handler: ({ note }) => {
      ran += 1;
      return note;
    },
  });

  beforeAll(async () => {
    tracing = startInMemoryTracing();
    store = await harness.open();
    await store.migrate();
    app = createServer({ store, builtins: false, webCatalog: false, tools: [echo, approved] });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    workspaceId = (await store.workspaces.create({ id: 'ws_traced', name: 'Traced' })).id;
    const { token } = await store.tokens.create(workspaceId, { name: 'caller' });
    headers = { authorization: `Bearer ${token}`, 'x-workspace-id': workspaceId, 'content-type': 'application/json' };
  }, 30_000);
  beforeEach(() => tracing.reset());
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await harness.teardown();
    await tracing?.stop();
  }, 30_000);

  function call(tool: string, args: object, extra: Record<string, string> = {}): Promise<Response> {
    return fetch(`${base}/api/tools/${tool}/call`, {
      method: 'POST',
      headers: { ...headers, ...extra },
      body: JSON.stringify({ arguments: args }),
    });
  }

  async function mcpClient(extra: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'tracing-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { ...headers, ...extra } } }),
    );
    clients.push(client);
    return client;
  }

  it('continues the caller trace of a REST call with a traceparent header', async () => {
    const response = await call('echo', { note: 'hi' }, { traceparent: TRACEPARENT });
    expect(response.status).toBe(200);
    const [span, ...others] = tracing.named('execute_tool echo');
    expect(others).toEqual([]);
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(parentSpanId(span!)).toBe(CALLER_SPAN);
    expect(span?.attributes).toMatchObject({ 'gen_ai.tool.name': 'echo', 'toolshed.status': 'success' });
  });

  it('starts a new trace for a REST call with a malformed traceparent, and answers it', async () => {
    const response = await call('echo', { note: 'hi' }, { traceparent: `00-${TRACE_ID}-nothex!!!!!!!!!!-01` });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown }).data).toBe('hi');
    const [span] = tracing.named('execute_tool echo');
    expect(parentSpanId(span!)).toBeUndefined();
    expect(span?.spanContext().traceId).not.toBe(TRACE_ID);
  });

  it('continues the trace of an MCP call from params._meta.traceparent, over the HTTP header', async () => {
    const otherTrace = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    const client = await mcpClient({ traceparent: otherTrace });
    const result = await client.callTool({
      name: 'echo',
      arguments: { note: 'hi' },
      _meta: { traceparent: TRACEPARENT },
    });
    expect(result.isError).not.toBe(true);
    const [span] = tracing.named('execute_tool echo');
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(parentSpanId(span!)).toBe(CALLER_SPAN);
    expect(span?.attributes['gen_ai.tool.call.id']).toEqual(expect.stringMatching(/:\d+$/));
  });

  it('takes the HTTP traceparent header of an MCP call without _meta', async () => {
    const client = await mcpClient({ traceparent: TRACEPARENT });
    await client.callTool({ name: 'echo', arguments: { note: 'hi' } });
    const [span] = tracing.named('execute_tool echo');
    expect(parentSpanId(span!)).toBe(CALLER_SPAN);
  });

  it('ignores an MCP _meta.traceparent that is not a string', async () => {
    const client = await mcpClient();
    const result = await client.callTool({ name: 'echo', arguments: { note: 'hi' }, _meta: { traceparent: 7 } });
    expect(result.isError).not.toBe(true);
    const [span] = tracing.named('execute_tool echo');
    expect(parentSpanId(span!)).toBeUndefined();
  });

  const metricLine = async (status: string, tool = 'approved_echo') => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const line = text
      .split('\n')
      .find((row) => row.startsWith(`toolshed_tool_calls_total{tool="${tool}",status="${status}"}`));
    return Number(line?.split(' ').at(-1) ?? 0);
  };
  const decideApproval = (id: string, decision: 'approve' | 'deny') =>
    fetch(`${base}/api/approvals/${id}`, {
      method: 'POST',
      headers: { ...headers, traceparent: TRACEPARENT },
      body: JSON.stringify({ decision }),
    });
  const ask = async (note: string) => {
    const pending = (await (await call('approved_echo', { note })).json()) as { approval: { id: string } };
    return pending.approval.id;
  };
  const loggedCalls = async (tool: string) => {
    await store.toolCalls.flush();
    return (await store.toolCalls.listRecent(workspaceId, {})).filter((row) => row.toolId === tool);
  };

  it('shows an approved call once in the spans, the metrics and the call log', async () => {
    const before = { pending: await metricLine('pending_approval'), success: await metricLine('success') };

    const pending = (await (await call('approved_echo', { note: 'ship it' })).json()) as {
      status: string;
      approval: { id: string };
    };
    expect(pending.status).toBe('pending_approval');
    const decide = () =>
      fetch(`${base}/api/approvals/${pending.approval.id}`, {
        method: 'POST',
        headers: { ...headers, traceparent: TRACEPARENT },
        body: JSON.stringify({ decision: 'approve' }),
      });
    const decided = await decide();
    expect(decided.status).toBe(200);
    expect((await decided.json()) as object).toMatchObject({
      approval: { status: 'used' },
      result: { status: 'success', data: 'ship it' },
    });
    // Deciding it again runs nothing and records nothing.
    expect((await decide()).status).toBe(409);
    expect(ran).toBe(1);

    const spans = tracing.named('execute_tool approved_echo');
    expect(spans.map((span) => span.attributes['toolshed.status'])).toEqual(['pending_approval', 'success']);
    expect(spans[1]?.attributes['toolshed.approval.id']).toBe(pending.approval.id);
    expect(parentSpanId(spans[1]!)).toBe(CALLER_SPAN);
    expect(await metricLine('pending_approval')).toBe(before.pending + 1);
    expect(await metricLine('success')).toBe(before.success + 1);
    await store.toolCalls.flush();
    // Newest first: the approved run, then the call that asked for the approval; nothing else.
    const log = await store.toolCalls.listRecent(workspaceId, {});
    expect(log.filter((row) => row.toolId === 'approved_echo').map((row) => row.status)).toEqual([
      'success',
      'pending_approval',
    ]);
  });

  it('shows a call refused by a rate limit once in the spans, the metrics and the call log, over REST and MCP', async () => {
    const limited = await fetch(`${base}/api/limits/tool/echo`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ calls_per_minute: 1, burst: 1 }),
    });
    expect(limited.status).toBe(200);
    const before = await metricLine('error', 'echo');
    const logged = (await loggedCalls('echo')).length;
    try {
      // The bucket's one token: the first runs, the second is refused.
      expect((await call('echo', { note: 'one' })).status).toBe(200);
      const refused = await call('echo', { note: 'two' }, { traceparent: TRACEPARENT });
      expect(refused.status).toBe(429);
      const client = await mcpClient();
      const overMcp = await client.callTool({ name: 'echo', arguments: { note: 'three' } });
      expect(overMcp.isError).toBe(true);

      const refusals = tracing
        .named('execute_tool echo')
        .filter((span) => span.attributes['toolshed.error.code'] === 'RATE_LIMITED');
      expect(refusals).toHaveLength(2);
      for (const span of refusals) {
        expect(span.attributes).toMatchObject({
          'gen_ai.tool.name': 'echo',
          'toolshed.status': 'error',
          'error.type': 'RATE_LIMITED',
        });
      }
      // The REST refusal continues the caller's trace, like a call that ran.
      expect(refusals.some((span) => parentSpanId(span) === CALLER_SPAN)).toBe(true);
      expect(await metricLine('error', 'echo')).toBe(before + 2);
      const all = await loggedCalls('echo');
      const rows = all.slice(0, all.length - logged);
      expect(rows.map((row) => [row.status, row.errorCode])).toEqual([
        ['error', 'RATE_LIMITED'],
        ['error', 'RATE_LIMITED'],
        ['success', null],
      ]);
    } finally {
      await fetch(`${base}/api/limits/tool/echo`, { method: 'DELETE', headers });
    }
  });

  it('shows a denied approval once in the spans, the metrics and the call log, and runs nothing', async () => {
    const ranBefore = ran;
    const before = await metricLine('cancelled');
    const id = await ask('drop it');
    tracing.reset();
    const denied = await decideApproval(id, 'deny');
    expect(denied.status).toBe(200);
    expect(await denied.json()).toEqual({ approval: { id, status: 'denied' } });
    expect(ran).toBe(ranBefore);

    const [span, ...others] = tracing.named('execute_tool approved_echo');
    expect(others).toEqual([]);
    expect(span?.attributes).toMatchObject({ 'toolshed.status': 'cancelled', 'error.type': 'CANCELLED' });
    expect(parentSpanId(span!)).toBe(CALLER_SPAN);
    expect(await metricLine('cancelled')).toBe(before + 1);
    const [row] = await loggedCalls('approved_echo');
    expect(row).toMatchObject({ status: 'cancelled', errorCode: 'CANCELLED', approvalId: id });
  });

  it('shows an approval refused by a limit once as RATE_LIMITED, and the approved run once later', async () => {
    const id = await ask('later');
    await fetch(`${base}/api/limits/tool/approved_echo`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ max_concurrent: 1 }),
    });
    // A server that took the only slot (no release): the approval is refused and stays pending.
    const key = `${workspaceId}\ntool\napproved_echo`;
    await store.callLimits.acquireSlot(
      key,
      1,
      { id: 'lse_held', holder: 'srv_other', expiresAt: Date.now() + 60_000 },
      Date.now(),
    );
    const before = await metricLine('error');
    try {
      tracing.reset();
      const refused = await decideApproval(id, 'approve');
      expect(refused.status).toBe(429);
      const [span] = tracing.named('execute_tool approved_echo');
      expect(span?.attributes).toMatchObject({ 'toolshed.status': 'error', 'error.type': 'RATE_LIMITED' });
      expect(await metricLine('error')).toBe(before + 1);
      const [row] = await loggedCalls('approved_echo');
      expect(row).toMatchObject({ status: 'error', errorCode: 'RATE_LIMITED', approvalId: id });
    } finally {
      await store.callLimits.releaseSlot('lse_held');
    }
    tracing.reset();
    const used = await decideApproval(id, 'approve');
    expect(used.status).toBe(200);
    expect(tracing.named('execute_tool approved_echo').map((span) => span.attributes['toolshed.status'])).toEqual([
      'success',
    ]);
    const rows = await loggedCalls('approved_echo');
    expect(rows.slice(0, 2).map((row) => [row.status, row.errorCode, row.approvalId])).toEqual([
      ['success', null, id],
      ['error', 'RATE_LIMITED', id],
    ]);
    await fetch(`${base}/api/limits/tool/approved_echo`, { method: 'DELETE', headers });
  });
});
