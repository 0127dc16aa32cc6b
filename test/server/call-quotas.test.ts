import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/core/define-tool.js';
import { CallQuotas, createServer } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { sqliteHarness } from './server-harness.js';

const TOKEN_FULL = "Too many tool calls running at once for this API token (limit 2); 'hold' was not run.";
const TOKEN_HINT =
  'Wait for a running call to finish, then try again, or have the operator raise maxConcurrentCallsPerToken (toolshed serve --max-concurrent-calls-per-token).';
const WORKSPACE_FULL = "Too many tool calls running at once for this workspace (limit 3); 'hold' was not run.";

describe('CallQuotas', () => {
  const alice = { workspaceId: 'acme', tokenId: 'tok_a' };
  const bob = { workspaceId: 'acme', tokenId: 'tok_b' };
  const carol = { workspaceId: 'other', tokenId: 'tok_c' };

  it('lets a token run up to its limit and refuses the next call with a retryable RATE_LIMITED result', () => {
    const quotas = new CallQuotas({ maxConcurrentCallsPerToken: 2, maxConcurrentCallsPerWorkspace: 3 });
    const first = quotas.admit(alice, 'hold');
    const second = quotas.admit(alice, 'hold');
    expect([first.admitted, second.admitted]).toEqual([true, true]);
    const third = quotas.admit(alice, 'hold');
    expect(third).toEqual({
      admitted: false,
      result: expect.objectContaining({
        status: 'error',
        error: { code: 'RATE_LIMITED', message: TOKEN_FULL, hint: TOKEN_HINT, retryable: true },
      }),
    });
    expect(quotas.running({ tokenId: 'tok_a' })).toBe(2);
    // A refused call holds nothing.
    expect(quotas.running({ workspaceId: 'acme' })).toBe(2);
  });

  it('counts the workspace over all its tokens, and other workspaces apart', () => {
    const quotas = new CallQuotas({ maxConcurrentCallsPerToken: 2, maxConcurrentCallsPerWorkspace: 3 });
    quotas.admit(alice, 'hold');
    quotas.admit(alice, 'hold');
    expect(quotas.admit(bob, 'hold').admitted).toBe(true);
    const refused = quotas.admit(bob, 'hold');
    expect(refused.admitted === false && refused.result.error.message).toBe(WORKSPACE_FULL);
    expect(quotas.admit(carol, 'hold').admitted).toBe(true);
    expect(quotas.admit(carol, 'hold').admitted).toBe(true);
  });

  it('frees a slot on release, once however often release is called', () => {
    const quotas = new CallQuotas({ maxConcurrentCallsPerToken: 1 });
    const first = quotas.admit(alice, 'hold');
    if (!first.admitted) throw new Error('expected the first call in');
    first.release();
    first.release();
    expect(quotas.running({ tokenId: 'tok_a' })).toBe(0);
    expect(quotas.admit(alice, 'hold').admitted).toBe(true);
    expect(quotas.admit(alice, 'hold').admitted).toBe(false);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a limit of %s', (limit) => {
    expect(() => new CallQuotas({ maxConcurrentCallsPerWorkspace: limit })).toThrow(
      `maxConcurrentCallsPerWorkspace must be a whole number of at least 1, got ${String(limit)}.`,
    );
  });
});

describe('concurrent-call quotas in the service (REST, MCP and approvals together)', () => {
  const harness = sqliteHarness();
  let store: ToolshedStore;
  let app: FastifyInstance;
  let base: string;
  let counter = 0;
  // Calls of `hold` wait here until the test lets them go.
  const waiting: Array<() => void> = [];
  let started = 0;
  const clients: Client[] = [];

  const hold = defineTool({
    name: 'hold',
    description: 'Wait until the test releases the call.',
    input: z.object({}),
    handler: () =>
      new Promise<string>((resolve) => {
        started += 1;
        waiting.push(() => resolve('done'));
      }),
  });
  const approved = defineTool({
    name: 'approved_echo',
    description: 'Echo a note once a person approved it.',
    input: z.object({ note: z.string() }),
    requiresApproval: true,
    handler: ({ note }) => note,
  });

  beforeAll(async () => {
    store = await harness.open();
    await store.migrate();
    app = createServer({
      store,
      builtins: false,
      webCatalog: false,
      tools: [hold, approved],
      calls: { maxConcurrentCallsPerToken: 2, maxConcurrentCallsPerWorkspace: 3 },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }, 30_000);

  afterEach(async () => {
    for (const release of waiting.splice(0)) release();
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await harness.teardown();
  }, 30_000);

  async function workspace(): Promise<string> {
    counter += 1;
    return (await store.workspaces.create({ id: `ws_calls_${counter}`, name: 'Call quota test' })).id;
  }

  async function token(workspaceId: string): Promise<Record<string, string>> {
    const { token: bearer } = await store.tokens.create(workspaceId, { name: 'caller' });
    return { authorization: `Bearer ${bearer}`, 'x-workspace-id': workspaceId, 'content-type': 'application/json' };
  }

  function call(headers: Record<string, string>, tool: string, args: object = {}): Promise<Response> {
    return fetch(`${base}/api/tools/${tool}/call`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ arguments: args }),
    });
  }

  async function mcpClient(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'quota-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: headers.authorization as string } },
      }),
    );
    clients.push(client);
    return client;
  }

  async function untilStarted(count: number): Promise<void> {
    for (let attempt = 0; attempt < 500 && started < count; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(started).toBe(count);
  }

  it('refuses a token past its limit without running the call, logs the refusal, and lets others in', async () => {
    started = 0;
    const workspaceId = await workspace();
    const alice = await token(workspaceId);
    const bob = await token(workspaceId);
    const running = [call(alice, 'hold'), call(alice, 'hold')];
    await untilStarted(2);

    const refused = await call(alice, 'hold');
    expect(refused.status).toBe(200);
    const body = (await refused.json()) as { status: string; error: Record<string, unknown> };
    expect(body.status).toBe('error');
    expect(body.error).toEqual({ code: 'RATE_LIMITED', message: TOKEN_FULL, hint: TOKEN_HINT, retryable: true });
    expect(started).toBe(2);

    // Another token of the workspace takes the workspace's third slot; the fourth call is refused.
    const third = call(bob, 'hold');
    await untilStarted(3);
    const full = (await (await call(bob, 'hold')).json()) as { error: { message: string } };
    expect(full.error.message).toBe(WORKSPACE_FULL);

    // Another workspace is not held back by this one's calls.
    const other = await token(await workspace());
    const elsewhere = call(other, 'hold');
    await untilStarted(4);

    for (const release of waiting.splice(0)) release();
    const finished = await Promise.all([...running, third, elsewhere].map(async (response) => (await response).json()));
    expect(finished.map((result) => (result as { status: string }).status)).toEqual([
      'success',
      'success',
      'success',
      'success',
    ]);
    // The calls that ran, and each refused call once, as RATE_LIMITED (newest first).
    await store.toolCalls.flush();
    const log = await store.toolCalls.listRecent(workspaceId, {});
    expect(log.map((entry) => entry.errorCode ?? entry.status)).toEqual([
      'success',
      'success',
      'success',
      'RATE_LIMITED',
      'RATE_LIMITED',
    ]);

    // With the slots free again, the token calls as before.
    const again = call(alice, 'hold');
    await untilStarted(5);
    for (const release of waiting.splice(0)) release();
    expect(((await (await again).json()) as { status: string }).status).toBe('success');
  });

  it('counts MCP calls and REST calls of one token together', async () => {
    started = 0;
    const headers = await token(await workspace());
    const client = await mcpClient(headers);
    const overMcp = client.callTool({ name: 'hold', arguments: {} });
    const overRest = call(headers, 'hold');
    await untilStarted(2);

    const refused = await client.callTool({ name: 'hold', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain(TOKEN_FULL);
    const refusedRest = (await (await call(headers, 'hold')).json()) as { error: { message: string } };
    expect(refusedRest.error.message).toBe(TOKEN_FULL);
    expect(started).toBe(2);

    for (const release of waiting.splice(0)) release();
    expect((await overMcp).isError).toBeFalsy();
    expect(((await (await overRest).json()) as { status: string }).status).toBe('success');
    const after = client.callTool({ name: 'hold', arguments: {} });
    await untilStarted(3);
    for (const release of waiting.splice(0)) release();
    expect((await after).isError).toBeFalsy();
  });

  it('answers an approval past the quota with 429 and leaves it pending', async () => {
    started = 0;
    const headers = await token(await workspace());
    const pending = (await (await call(headers, 'approved_echo', { note: 'ship it' })).json()) as {
      status: string;
      approval: { id: string };
    };
    expect(pending.status).toBe('pending_approval');
    const running = [call(headers, 'hold'), call(headers, 'hold')];
    await untilStarted(2);

    const decide = () =>
      fetch(`${base}/api/approvals/${pending.approval.id}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ decision: 'approve' }),
      });
    const refused = await decide();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: {
        code: 'RATE_LIMITED',
        message: `Too many tool calls running at once for this API token (limit 2); 'approved_echo' was not run. The approval is still pending.`,
        details: { hint: TOKEN_HINT.replace('hold', 'approved_echo') },
      },
    });

    for (const release of waiting.splice(0)) release();
    await Promise.all(running);
    const used = (await (await decide()).json()) as { approval: { status: string }; result: { data: unknown } };
    expect(used.approval.status).toBe('used');
    expect(used.result.data).toBe('ship it');
  });
});
