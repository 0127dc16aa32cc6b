import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBuiltins } from '../../src/builtins/index.js';
import { defineTool } from '../../src/core/define-tool.js';
import { createServer } from '../../src/server/index.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';
import { assertBuilt, type RunningCli, startCli } from '../cli/run-cli.js';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../support/postgres-test-database.js';
import { type RoundRobinProxy, startRoundRobinProxy } from './round-robin-proxy.js';

// Three `toolshed serve` instances on one PostgreSQL database behind a round-robin proxy that knows
// nothing of MCP sessions: every request of one MCP session goes to the next instance in turn.

/** Reports progress 1..n. */
const countUp = defineTool({
  name: 'count_up',
  description: 'Count from 1 to n, reporting each step as progress.',
  input: z.object({ n: z.number().int().min(1).max(10) }),
  handler: async ({ n }, ctx) => {
    for (let step = 1; step <= n; step++) {
      ctx.progress(step, n);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return { counted: n };
  },
});

/** Runs until the call is cancelled (or 10 s pass), telling the test when it started and when it was cancelled. */
const waits = { started: deferred(), cancelled: deferred() };
const waitForCancel = defineTool({
  name: 'wait_for_cancel',
  description: 'Wait until the caller cancels the call.',
  input: z.object({}),
  timeoutMs: 10_000,
  handler: async (_args, ctx) => {
    const signal = ctx.signal;
    waits.started.resolve();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 10_000);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        waits.cancelled.resolve();
        resolve();
      });
    });
    return { cancelled: signal.aborted };
  },
});

/** Asks the person behind the client for a name, through elicitation. */
const askName = defineTool({
  name: 'ask_name',
  description: 'Ask the user for their name.',
  input: z.object({}),
  timeoutMs: 10_000,
  handler: async (_args, ctx) => {
    const answer = await ctx.elicit('What is your name?', {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
    });
    return { action: answer.action, name: answer.content?.name };
  },
});

/** Runs as an MCP task until the test opens its gate, or until it is cancelled. */
const taskGate = { open: deferred(), cancelled: deferred() };
const gatedReport = defineTool({
  name: 'gated_report',
  description: 'Build a report once the test lets it finish.',
  input: z.object({ quarter: z.string() }),
  execution: { taskSupport: 'optional' },
  timeoutMs: 20_000,
  handler: async ({ quarter }, ctx) => {
    const cancelled = new Promise<string>((resolve) =>
      ctx.signal.addEventListener('abort', () => {
        taskGate.cancelled.resolve();
        resolve('cancelled');
      }),
    );
    const outcome = await Promise.race([taskGate.open.promise.then(() => 'done'), cancelled]);
    return `Report for ${quarter}: ${outcome}.`;
  },
});

/** Reports progress 1, waits for the test to let it go, then reports 2 and 3 and answers. */
const resumeGate = deferred();
const stepsAfterDrop = defineTool({
  name: 'steps_after_drop',
  description: 'Report progress, wait, then finish.',
  input: z.object({}),
  timeoutMs: 10_000,
  handler: async (_args, ctx) => {
    ctx.progress(1, 3);
    await resumeGate.promise;
    ctx.progress(2, 3);
    ctx.progress(3, 3);
    return { steps: 3 };
  },
});

const needsApproval = defineTool({
  name: 'needs_approval',
  description: 'Echo a note once a person approved the call.',
  input: z.object({ note: z.string() }),
  requiresApproval: true,
  handler: ({ note }) => ({ note }),
});

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

interface Tenant {
  id: string;
  token: string;
  headers: Record<string, string>;
}

/** This file's connections, told apart from every other test's in pg_stat_activity. */
const APPLICATION_NAME = `toolshed_scale_${randomBytes(4).toString('hex')}`;

let database: PostgresTestDatabase;
const stores: ToolshedStore[] = [];
const apps: FastifyInstance[] = [];
const bases: string[] = [];
let proxy: RoundRobinProxy;
const clients: Client[] = [];

beforeAll(async () => {
  database = await createPostgresTestDatabase('toolshed_test', 'The scale-out test');
  for (let index = 0; index < 3; index++) {
    const store = await createStore(database.url, { applicationName: APPLICATION_NAME });
    if (index === 0) {
      await store.migrate();
      await store.tools.upsertBuiltins(createBuiltins());
    }
    stores.push(store);
    // A short task lease: a cancellation heard by another instance reaches the run within a renewal.
    const app = createServer({
      store,
      tools: [countUp, waitForCancel, needsApproval, askName, gatedReport, stepsAfterDrop],
      mcp: { taskLeaseMs: 600 },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    apps.push(app);
    bases.push(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
  }
  proxy = await startRoundRobinProxy(bases);
}, 30_000);

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
});

afterAll(async () => {
  await proxy?.close();
  for (const app of apps) await app.close();
  for (const store of stores) await store.close();
  await database?.drop();
}, 30_000);

let counter = 0;
async function tenant(): Promise<Tenant> {
  const store = stores[0] as ToolshedStore;
  const workspace = await store.workspaces.create({ id: `ws_scale_${counter++}`, name: 'Scale-out' });
  const { token } = await store.tokens.create(workspace.id, { name: 'scale' });
  return { id: workspace.id, token, headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspace.id } };
}

async function rest(base: string, owner: Tenant, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? owner.headers : { ...owner.headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('json');
  return {
    status: response.status,
    upstream: response.headers.get('x-upstream'),
    body: (json && text !== '' ? JSON.parse(text) : { text }) as Record<string, unknown>,
  };
}

async function connect(path: string, owner: Tenant, capabilities: Record<string, object> = {}): Promise<Client> {
  const client = new Client({ name: 'scale-out-test', version: '1.0.0' }, { capabilities });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path, proxy.base), {
      requestInit: { headers: { authorization: `Bearer ${owner.token}` } },
    }),
  );
  clients.push(client);
  return client;
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms),
    ),
  ]);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const names = (listing: { tools: Array<{ name: string }> }) => listing.tools.map((tool) => tool.name).sort();

describe('three instances on one PostgreSQL behind a round-robin proxy', () => {
  it('keeps one MCP session whose requests alternate instances: list, call with progress, list_changed, cancel', async () => {
    const owner = await tenant();
    const created = await rest(proxy.base, owner, 'POST', '/api/agents', { name: 'roaming' });
    expect(created.status).toBe(201);
    const agent = created.body.id as string;
    for (const tool of ['calculator', 'count_up', 'wait_for_cancel']) {
      expect((await rest(proxy.base, owner, 'POST', `/api/agents/${agent}/tools`, { tool_id: tool })).status).toBe(201);
    }
    const from = proxy.hits.length;
    const client = await connect(`/mcp/agents/${agent}`, owner);
    // The client opens its standalone stream (GET) after initializing; notifications come on it.
    await until(
      () => proxy.hits.slice(from).some((hit) => hit.method === 'GET' && hit.status === 200),
      'the GET stream',
    );
    const stream = proxy.hits.slice(from).find((hit) => hit.method === 'GET') as { upstream: number };

    expect(names(await client.listTools())).toEqual(['calculator', 'count_up', 'wait_for_cancel']);
    const added = await client.callTool({ name: 'calculator', arguments: { expression: '2 + 3' } });
    expect(added.isError).toBeFalsy();
    expect(JSON.stringify(added.content)).toContain('5');

    const progress: number[] = [];
    const counted = await client.callTool({ name: 'count_up', arguments: { n: 3 } }, undefined, {
      onprogress: (event) => progress.push(event.progress),
    });
    expect(
      counted.structuredContent ?? JSON.parse((counted.content as Array<{ text: string }>)[0]?.text ?? '{}'),
    ).toEqual({
      counted: 3,
    });
    expect(progress).toEqual([1, 2, 3]);

    // An attach made through an instance that does not hold the client's stream.
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
    });
    const other = bases[(stream.upstream + 1) % 3] as string;
    expect((await rest(other, owner, 'POST', `/api/agents/${agent}/tools`, { tool_id: 'read_file' })).status).toBe(201);
    await within(changed, 5000, 'notifications/tools/list_changed');
    expect(names(await client.listTools())).toEqual(['calculator', 'count_up', 'read_file', 'wait_for_cancel']);

    // A cancellation sent to another instance than the one running the call.
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait_for_cancel', arguments: {} }, undefined, { signal: controller.signal });
    await within(waits.started.promise, 5000, 'the call starting');
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await within(waits.cancelled.promise, 5000, 'the cancellation reaching the running call');

    const session = proxy.hits.slice(from);
    const callHit = session.findLast((hit) => hit.rpc.includes('tools/call')) as { upstream: number };
    const cancelHit = session.find((hit) => hit.rpc.includes('notifications/cancelled')) as { upstream: number };
    expect(cancelHit.upstream).not.toBe(callHit.upstream);
    // Every instance served requests of the session, and none said "Session not found".
    const sessionHits = session.filter((hit) => hit.session !== undefined);
    expect(new Set(sessionHits.map((hit) => hit.upstream))).toEqual(new Set([0, 1, 2]));
    // The cancelled call's client may go away before its answer's headers (held for its first event) came.
    expect([200, undefined]).toContain((callHit as { status?: number }).status);
    expect(sessionHits.filter((hit) => hit !== callHit && hit.status !== 200 && hit.status !== 202)).toEqual([]);
    const kept = await (stores[1] as ToolshedStore).db.selectFrom('mcp_sessions').selectAll().execute();
    expect(kept.filter((row) => row.agent_id === agent)).toHaveLength(1);
  });

  it("brings the client's answer to an elicitation to the instance running the call", async () => {
    const owner = await tenant();
    const created = await rest(proxy.base, owner, 'POST', '/api/agents', { name: 'asker' });
    const agent = created.body.id as string;
    await rest(proxy.base, owner, 'POST', `/api/agents/${agent}/tools`, { tool_id: 'ask_name' });
    const from = proxy.hits.length;
    // Declared at initialize (instance A); the call may land on B, which must know the client can answer.
    const client = await connect(`/mcp/agents/${agent}`, owner, { elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada' } }));
    // Two calls: each is followed by its answer on the next instance, so at least one call runs on an
    // instance that did not open the session.
    for (let round = 0; round < 2; round++) {
      const result = await client.callTool({ name: 'ask_name', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain('Ada');
    }
    const session = proxy.hits.slice(from);
    const initialize = session.find((hit) => hit.rpc.includes('initialize')) as { upstream: number };
    const calls = session.filter((hit) => hit.rpc.includes('tools/call'));
    const answers = session.filter((hit) => hit.rpc.includes('response'));
    expect(calls).toHaveLength(2);
    expect(answers).toHaveLength(2);
    expect(calls.some((call) => call.upstream !== initialize.upstream)).toBe(true);
    for (const [index, call] of calls.entries()) expect(answers[index]?.upstream).not.toBe(call.upstream);
  });

  it('ends a session everywhere with one DELETE, and refuses its id on every instance afterwards', async () => {
    const owner = await tenant();
    const client = await connect('/mcp', owner);
    await client.listTools();
    const transport = client.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId as string;
    expect(sessionId).toBeTruthy();
    await transport.terminateSession();
    const list = (base: string) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${owner.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    // The record is gone when the DELETE is answered; an instance that held the session hears of its
    // end by NOTIFY, a moment later.
    expect(await (stores[0] as ToolshedStore).mcpSessions.get(sessionId)).toBeUndefined();
    for (const base of bases) {
      let response = await list(base);
      for (let tries = 0; response.status !== 404 && tries < 50; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        response = await list(base);
      }
      expect(response.status).toBe(404);
      expect(await response.text()).toContain('Session not found');
    }
  });

  it("does not answer a session's id for another workspace's token on any instance", async () => {
    const owner = await tenant();
    const stranger = await tenant();
    const client = await connect('/mcp', owner);
    await client.listTools();
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId as string;
    for (const base of bases) {
      const response = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${stranger.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(404);
    }
    // Malformed and hostile ids are unknown sessions, never a server error.
    for (const id of ['x'.repeat(500), "' or 1=1 --", '../../etc']) {
      const response = await fetch(`${proxy.base}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${owner.token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': id,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(404);
    }
  });

  it('resumes a call whose stream dropped on another instance than the one running it, with every event once and in order', async () => {
    const owner = await tenant();
    const created = await rest(proxy.base, owner, 'POST', '/api/agents', { name: 'resumer' });
    const agent = created.body.id as string;
    await rest(proxy.base, owner, 'POST', `/api/agents/${agent}/tools`, { tool_id: 'steps_after_drop' });
    // The call goes through the proxy; its stream is cut after the first progress; the client's
    // reconnection (GET with Last-Event-ID) goes to the instance after the one running the call.
    let callUpstream: number | undefined;
    let cut = () => {};
    const resumes: Array<{ upstream: number; lastEventId: string; status: number }> = [];
    const cutting: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      const lastEventId = headers.get('last-event-id');
      if ((init?.method ?? 'GET') === 'GET' && lastEventId !== null && callUpstream !== undefined) {
        const upstream = (callUpstream + 1) % 3;
        const response = await fetch(`${bases[upstream]}${new URL(String(input)).pathname}`, init);
        resumes.push({ upstream, lastEventId, status: response.status });
        return response;
      }
      const isCall = init?.method === 'POST' && String(init.body).includes('"tools/call"');
      if (!isCall) return fetch(input, init);
      const abort = new AbortController();
      const response = await fetch(input, { ...init, signal: abort.signal });
      callUpstream = Number(response.headers.get('x-upstream'));
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let fail: (error: Error) => void = () => {};
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          fail = (error) => controller.error(error);
        },
        async pull(controller) {
          const read = await reader.read().catch(() => undefined);
          if (read === undefined) return;
          if (read.done) controller.close();
          else controller.enqueue(read.value);
        },
      });
      cut = () => {
        abort.abort();
        fail(new Error('connection reset'));
      };
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const client = new Client({ name: 'scale-out-resume', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`/mcp/agents/${agent}`, proxy.base), {
        requestInit: { headers: { authorization: `Bearer ${owner.token}` } },
        fetch: cutting,
        reconnectionOptions: {
          initialReconnectionDelay: 100,
          maxReconnectionDelay: 500,
          reconnectionDelayGrowFactor: 1.5,
          maxRetries: 3,
        },
      }),
    );
    clients.push(client);
    const progress: number[] = [];
    const first = deferred();
    const call = client.callTool({ name: 'steps_after_drop', arguments: {} }, undefined, {
      onprogress: (event) => {
        progress.push(event.progress);
        first.resolve();
      },
      timeout: 15_000,
    });
    await within(first.promise, 5000, 'the first progress');
    cut();
    // The running instance learns of the drop and keeps the stream's events in the database.
    const session = (client.transport as StreamableHTTPClientTransport).sessionId as string;
    const events = (stores[0] as ToolshedStore).db
      .selectFrom('mcp_stream_events')
      .select('seq')
      .where('session_id', '=', session);
    const deadline = Date.now() + 5000;
    while ((await events.execute()).length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    resumeGate.resolve();
    const result = await within(call, 10_000, 'the result after the resume');
    expect(
      result.structuredContent ?? JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}'),
    ).toEqual({ steps: 3 });
    expect(progress).toEqual([1, 2, 3]);
    expect(resumes.length).toBeGreaterThanOrEqual(1);
    expect(resumes.every((resume) => resume.status === 200 && resume.upstream !== callUpstream)).toBe(true);

    // Another session's event id is refused on every instance; another workspace's token finds no session.
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId as string;
    const other = await connect('/mcp', owner);
    await other.listTools();
    const otherSession = (other.transport as StreamableHTTPClientTransport).sessionId as string;
    const stranger = await tenant();
    const resume = (base: string, token: string, session: string, lastEventId: string) =>
      fetch(`${base}/mcp${session === otherSession ? '' : `/agents/${agent}`}`, {
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'text/event-stream',
          'mcp-session-id': session,
          'last-event-id': lastEventId,
        },
      });
    const eventId = (resumes[0] as { lastEventId: string }).lastEventId;
    for (const base of bases) {
      const refused = await resume(base, owner.token, otherSession, eventId);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('is not one this session keeps');
      const strangers = await resume(base, stranger.token, sessionId, eventId);
      expect(strangers.status).toBe(404);
      await strangers.text();
      for (const hostile of ['x'.repeat(129), "' or 1=1 --", '1.2.3']) {
        const answer = await resume(base, owner.token, sessionId, hostile);
        expect(answer.status).toBe(400);
        await answer.text();
      }
    }
  });

  it('resolves approvals on any instance: a REST call and an MCP call made through one, approved through another', async () => {
    const owner = await tenant();
    const created = await rest(proxy.base, owner, 'POST', '/api/agents', { name: 'approver' });
    const agent = created.body.id as string;
    await rest(proxy.base, owner, 'POST', `/api/agents/${agent}/tools`, { tool_id: 'needs_approval' });

    const pending = await rest(proxy.base, owner, 'POST', '/api/tools/needs_approval/call', {
      arguments: { note: 'rest' },
      agent_id: agent,
    });
    expect(pending.body).toMatchObject({ status: 'pending_approval' });
    const approval = (pending.body.approval as { id: string }).id;
    const approved = await rest(proxy.base, owner, 'POST', `/api/approvals/${approval}`, { decision: 'approve' });
    expect(approved.upstream).not.toBe(pending.upstream);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ result: { status: 'success', data: { note: 'rest' } } });
    // Deciding again, through yet another instance, is refused: the approval was used.
    const again = await rest(proxy.base, owner, 'POST', `/api/approvals/${approval}`, { decision: 'approve' });
    expect(again.status).toBe(409);

    const client = await connect(`/mcp/agents/${agent}`, owner);
    const asked = await client.callTool({ name: 'needs_approval', arguments: { note: 'mcp' } });
    const mcpApproval = (asked._meta as { approval_id: string }).approval_id;
    expect(mcpApproval).toMatch(/\S/);
    const decided = await rest(proxy.base, owner, 'POST', `/api/approvals/${mcpApproval}`, { decision: 'approve' });
    expect(decided.body).toMatchObject({ result: { status: 'success', data: { note: 'mcp' } } });
    const calls = await rest(proxy.base, owner, 'GET', `/api/calls?agent_id=${agent}&tool_id=needs_approval`);
    expect((calls.body.calls as Array<{ status: string }>).map((call) => call.status).sort()).toEqual([
      'pending_approval',
      'pending_approval',
      'success',
      'success',
    ]);
  });

  it('runs an MCP task on one instance and answers for it on every instance: get, list, REST, result and cancel', async () => {
    const owner = await tenant();
    const client = await connect('/mcp', owner);
    const Created = z.object({ task: z.object({ taskId: z.string() }) });
    const call = (quarter: string) =>
      client.request(
        { method: 'tools/call', params: { name: 'gated_report', arguments: { quarter }, task: { ttl: 60_000 } } },
        Created,
      );
    const first = (await call('Q1')).task.taskId;
    // Each request of the session goes to the next instance: these polls cross all three.
    for (let poll = 0; poll < 3; poll++) {
      expect((await client.experimental.tasks.getTask(first)).status).toBe('working');
    }
    for (const base of bases) {
      const seen = await rest(base, owner, 'GET', `/api/tasks/${first}`);
      expect(seen.body).toMatchObject({ id: first, status: 'working', result: null });
    }
    taskGate.open.resolve();
    const result = await client.experimental.tasks.getTaskResult(first, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'Report for Q1: done.' }]);
    for (const base of bases) {
      expect((await rest(base, owner, 'GET', `/api/tasks/${first}`)).body).toMatchObject({ status: 'completed' });
    }

    taskGate.open = deferred();
    const second = (await call('Q2')).task.taskId;
    const cancelled = await client.experimental.tasks.cancelTask(second);
    expect(cancelled.status).toBe('cancelled');
    // The instance running it hears of the cancellation at its next lease renewal.
    await within(taskGate.cancelled.promise, 5000, 'the cancellation of the run');
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((task) => [task.taskId, task.status])).toEqual([
      [second, 'cancelled'],
      [first, 'completed'],
    ]);
    const other = await tenant();
    expect((await rest(proxy.base, other, 'GET', `/api/tasks/${first}`)).status).toBe(404);
  });
});

/** What one request of the mixed load got. */
interface Outcome {
  kind: 'write' | 'read' | 'call';
  status: number;
  upstream: number;
  at: number;
}

/**
 * A mixed load through the proxy, bounded by count and time: `workers` loops of agent creations
 * (writes), tool listings (reads) and calculator calls, until `total` requests were sent or `ms`
 * passed. `onAck` hears each acknowledged write. Returns every outcome and the agent ids acknowledged.
 */
async function mixedLoad(
  base: string,
  owner: Tenant,
  options: { workers: number; total: number; ms: number; onAck?: (count: number) => void },
): Promise<{ outcomes: Outcome[]; acknowledged: string[] }> {
  const outcomes: Outcome[] = [];
  const acknowledged: string[] = [];
  const deadline = Date.now() + options.ms;
  let sent = 0;
  const worker = async (index: number) => {
    for (let step = 0; sent < options.total && Date.now() < deadline; step++) {
      sent += 1;
      const kind = (['write', 'read', 'call'] as const)[(index + step) % 3] as Outcome['kind'];
      const request =
        kind === 'write'
          ? { method: 'POST', path: '/api/agents', body: { name: `load ${index}.${step}` } }
          : kind === 'read'
            ? { method: 'GET', path: '/api/tools', body: undefined }
            : {
                method: 'POST',
                path: '/api/tools/calculator/call',
                body: { arguments: { expression: `${step} + 1` } },
              };
      try {
        const answer = await rest(base, owner, request.method, request.path, request.body);
        outcomes.push({ kind, status: answer.status, upstream: Number(answer.upstream), at: Date.now() });
        if (kind === 'write' && answer.status === 201) {
          acknowledged.push(answer.body.id as string);
          options.onAck?.(acknowledged.length);
        }
      } catch {
        // The proxy itself never fails; a refused connection is a 502 outcome above.
        outcomes.push({ kind, status: 0, upstream: -1, at: Date.now() });
      }
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_value, index) => worker(index)));
  return { outcomes, acknowledged };
}

describe('failures on a fleet on one PostgreSQL', () => {
  it('keeps serving, losing no acknowledged write, while PostgreSQL ends every connection of the fleet mid-load', async () => {
    const owner = await tenant();
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      let terminated = 0;
      let killing: Promise<void> | undefined;
      const load = await mixedLoad(proxy.base, owner, {
        workers: 6,
        total: 240,
        ms: 6000,
        onAck: (count) => {
          if (count !== 15) return;
          // Every pooled and LISTEN connection of the three instances, as a restart would end them.
          killing = admin
            .query(
              'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
              [APPLICATION_NAME],
            )
            .then((result) => {
              terminated = (result.rows[0] as { n: number }).n;
            });
        },
      });
      await killing;
      expect(terminated).toBeGreaterThanOrEqual(3);
      // Reads and transactions cut short run again on a new connection. Only a write whose connection
      // went while it committed cannot know whether it took effect: it answers 503, never 500, and at
      // most one per connection ended.
      const failed = load.outcomes.filter((outcome) => outcome.status >= 500 || outcome.status === 0);
      expect(failed.filter((outcome) => outcome.status !== 503)).toEqual([]);
      expect(failed.length).toBeLessThanOrEqual(terminated);
      expect(load.acknowledged.length).toBeGreaterThan(15);
      // Recovered: the next load is served in full.
      const after = await mixedLoad(proxy.base, owner, { workers: 6, total: 60, ms: 5000 });
      expect(after.outcomes.filter((outcome) => outcome.status >= 300)).toEqual([]);
      const stored = await (stores[0] as ToolshedStore).agents.list(owner.id);
      const ids = new Set(stored.map((agent) => agent.id));
      expect([...load.acknowledged, ...after.acknowledged].filter((id) => !ids.has(id))).toEqual([]);
    } finally {
      await admin.end();
    }
    // Each instance's LISTEN connection came back: a change through one reaches the others.
    const heard = stores.slice(1).map(
      (store) =>
        new Promise<void>((resolve) => {
          const stop = store.onChange((change) => {
            if (change.workspaceId === owner.id && change.kind === 'agent') {
              stop();
              resolve();
            }
          });
        }),
    );
    const late = await rest(bases[0] as string, owner, 'POST', '/api/agents', { name: 'after the drop' });
    expect(late.status).toBe(201);
    await within(Promise.all(heard), 5000, 'the change reaching the other instances after reconnecting');
  });

  it('keeps serving from the others, losing no acknowledged write, when one instance is killed mid-load', async () => {
    assertBuilt();
    const fleet = await createPostgresTestDatabase('toolshed_test', 'The instance-kill test');
    const own: ToolshedStore[] = [];
    const ownApps: FastifyInstance[] = [];
    let victim: RunningCli | undefined;
    let front: RoundRobinProxy | undefined;
    try {
      const first = await createStore(fleet.url, { applicationName: APPLICATION_NAME });
      await first.migrate();
      await first.tools.upsertBuiltins(createBuiltins());
      own.push(first, await createStore(fleet.url, { applicationName: APPLICATION_NAME }));
      const upstreams: string[] = [];
      for (const store of own) {
        const app = createServer({ store });
        await app.listen({ host: '127.0.0.1', port: 0 });
        ownApps.push(app);
        upstreams.push(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
      }
      // The third instance is a real `toolshed serve` process, killed with SIGKILL.
      victim = startCli(['serve', '--port', '0'], { env: { TOOLSHED_DATABASE_URL: fleet.url } });
      upstreams.push((await victim.waitForStderr(/REST API at (http:\/\/127\.0\.0\.1:\d+)\/api\n/))[1] as string);
      front = await startRoundRobinProxy(upstreams);
      const workspace = await first.workspaces.create({ id: 'ws_kill', name: 'Kill' });
      const { token } = await first.tokens.create(workspace.id, { name: 'kill' });
      const owner = {
        id: workspace.id,
        token,
        headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspace.id },
      };
      let killedAt = Number.POSITIVE_INFINITY;
      const running = victim;
      const load = await mixedLoad(front.base, owner, {
        workers: 6,
        total: 240,
        ms: 6000,
        onAck: (count) => {
          if (count !== 15) return;
          killedAt = Date.now();
          running.child.kill('SIGKILL');
        },
      });
      expect(Number.isFinite(killedAt)).toBe(true);
      const fromOthers = load.outcomes.filter((outcome) => outcome.upstream === 0 || outcome.upstream === 1);
      expect(fromOthers.filter((outcome) => outcome.status >= 500 || outcome.status === 0)).toEqual([]);
      expect(fromOthers.filter((outcome) => outcome.at > killedAt && outcome.status < 300).length).toBeGreaterThan(10);
      // The killed one answered before it died, and nothing after (the proxy's 502).
      const fromVictim = load.outcomes.filter((outcome) => outcome.upstream === 2);
      expect(fromVictim.some((outcome) => outcome.status < 300)).toBe(true);
      expect(fromVictim.some((outcome) => outcome.status === 502)).toBe(true);
      const stored = new Set((await first.agents.list(owner.id)).map((agent) => agent.id));
      expect(load.acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      victim?.child.kill('SIGKILL');
      await victim?.exited;
      await front?.close();
      for (const app of ownApps) await app.close();
      for (const store of own) await store.close();
      await fleet.drop();
    }
  }, 30_000);
});
