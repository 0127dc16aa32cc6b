import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/core/define-tool.js';
import { createServer, DEFAULT_SLOT_LEASE_MS, reloadServedConfig } from '../../src/server/index.js';
import { callLimitKey, type ToolshedStore } from '../../src/store/index.js';
import {
  createTestWorkspace,
  injectJson,
  type JsonReply,
  postgresHarness,
  type ServerStoreHarness,
  sqliteHarness,
} from './server-harness.js';

type Reply = JsonReply;

for (const harness of [sqliteHarness(), postgresHarness()] as ServerStoreHarness[]) {
  describe(`call limits through the REST API on ${harness.dialect}`, () => {
    let store: ToolshedStore;
    let second: ToolshedStore;
    let app: FastifyInstance;
    let other: FastifyInstance;
    // One clock for both servers: a test moves it forward instead of waiting.
    let clock = 1_000_000_000;
    let counter = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    const gates: Array<() => void> = [];
    let holding = false;

    const quick = defineTool({
      name: 'quick',
      description: 'Answer at once.',
      input: z.object({ n: z.number().optional() }),
      handler: ({ n }) => ({ n: n ?? 0 }),
    });
    const busy = defineTool({
      name: 'busy',
      description: 'Count the calls running at once, and wait a few turns (or for the test) before answering.',
      input: z.object({}),
      handler: async () => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        try {
          if (holding) await new Promise<void>((resolve) => gates.push(resolve));
          else for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
          return 'done';
        } finally {
          inFlight -= 1;
        }
      },
    });

    const serverOn = (on: ToolshedStore) =>
      createServer({
        store: on,
        builtins: false,
        webCatalog: false,
        mcp: false,
        tools: [quick, busy],
        calls: { maxConcurrentCallsPerToken: 1000, maxConcurrentCallsPerWorkspace: 1000 },
        limits: { now: () => clock },
      });

    beforeAll(async () => {
      store = await harness.open();
      await store.migrate();
      second = await harness.reopen();
      app = serverOn(store);
      other = serverOn(second);
      await app.ready();
      await other.ready();
    }, 60_000);

    afterAll(async () => {
      await other?.close();
      await app?.close();
      await second?.close();
      await store?.close();
      await harness.teardown();
    }, 60_000);

    const workspace = () => {
      counter += 1;
      return createTestWorkspace(store, `ws_limits_${counter}`, 'Limits');
    };

    const send = (
      method: 'GET' | 'PUT' | 'DELETE' | 'POST',
      url: string,
      headers: Record<string, string>,
      body?: unknown,
      on: FastifyInstance = app,
    ): Promise<Reply> => injectJson(on, method, url, headers, body);

    const call = (headers: Record<string, string>, tool: string, extra: object = {}, on?: FastifyInstance) =>
      send('POST', `/api/tools/${tool}/call`, headers, { arguments: {}, ...extra }, on);

    it('sets, lists and removes limits as rows, and keeps them per workspace', async () => {
      const acme = await workspace();
      const foreign = await workspace();
      const set = await send('PUT', '/api/limits/tool/quick', acme.headers, { calls_per_minute: 120, burst: 4 });
      expect(set).toMatchObject({
        status: 200,
        body: {
          limit: {
            scope: 'tool',
            target: 'quick',
            calls_per_minute: 120,
            burst: 4,
            max_concurrent: null,
            source: 'api',
          },
        },
      });
      await send('PUT', '/api/limits/workspace', acme.headers, { max_concurrent: 10 });
      expect((await send('GET', '/api/limits', acme.headers)).body).toEqual({
        limits: [
          { scope: 'tool', target: 'quick', calls_per_minute: 120, burst: 4, max_concurrent: null, source: 'api' },
          { scope: 'workspace', target: null, calls_per_minute: null, burst: null, max_concurrent: 10, source: 'api' },
        ],
      });
      expect((await send('GET', '/api/limits', foreign.headers)).body).toEqual({ limits: [] });
      expect((await send('DELETE', '/api/limits/workspace', foreign.headers)).status).toBe(404);
      expect((await send('DELETE', '/api/limits/workspace', acme.headers)).status).toBe(204);
      expect(await send('DELETE', '/api/limits/tool/quick', foreign.headers)).toMatchObject({
        status: 404,
        body: { error: { code: 'NOT_FOUND', message: "This workspace has no stored limit for tool 'quick'." } },
      });
    });

    it.each([
      [
        '/api/limits/tool/quick',
        { calls_per_minute: '60' },
        'calls_per_minute',
        `'calls_per_minute' must be a number from 0.001 (one call in 1000 minutes) to 1000000, got "60".`,
      ],
      [
        '/api/limits/tool/quick',
        { calls_per_minute: -1 },
        'calls_per_minute',
        `'calls_per_minute' must be a number from 0.001 (one call in 1000 minutes) to 1000000, got -1.`,
      ],
      [
        '/api/limits/tool/quick',
        { calls_per_minute: 1e-300 },
        'calls_per_minute',
        `'calls_per_minute' must be a number from 0.001 (one call in 1000 minutes) to 1000000, got 1e-300.`,
      ],
      [
        '/api/limits/tool/quick',
        { calls_per_minute: 1e12 },
        'calls_per_minute',
        `'calls_per_minute' must be a number from 0.001 (one call in 1000 minutes) to 1000000, got 1000000000000.`,
      ],
      [
        '/api/limits/tool/quick',
        { max_concurrent: 2.5 },
        'max_concurrent',
        `'max_concurrent' must be a whole number from 1 to 1000000, got 2.5.`,
      ],
      [
        '/api/limits/tool/quick',
        { max_concurrent: 0 },
        'max_concurrent',
        `'max_concurrent' must be a whole number from 1 to 1000000, got 0.`,
      ],
      [
        '/api/limits/tool/quick',
        { burst: 3 },
        'burst',
        `'burst' is the size of a rate limit: give 'calls_per_minute' with it.`,
      ],
      ['/api/limits/tool/quick', {}, 'body', `A limit needs 'calls_per_minute', 'max_concurrent' or both.`],
      ['/api/limits/tool/quick', [1], 'body', 'The request body must be a JSON object, got an array.'],
      [
        '/api/limits/tool/quick',
        { max_concurrent: 1, rate: 5 },
        'rate',
        `Unknown field 'rate'; allowed fields: calls_per_minute, burst, max_concurrent.`,
      ],
      [
        '/api/limits/planet/quick',
        { max_concurrent: 1 },
        'scope',
        'The scope must be one of workspace, token, agent, tool, got "planet".',
      ],
      [
        '/api/limits/tool',
        { max_concurrent: 1 },
        'target',
        'A tool limit names its tool: use /api/limits/tool/<tool id>.',
      ],
      [
        '/api/limits/workspace/acme',
        { max_concurrent: 1 },
        'target',
        'A workspace limit has no target: use /api/limits/workspace.',
      ],
      [
        '/api/limits/agent/%20%20',
        { max_concurrent: 1 },
        'target',
        'The target must be a non-empty name of at most 200 characters, got "  ".',
      ],
    ])('refuses PUT %s with %j and writes nothing', async (url, body, field, message) => {
      const acme = await workspace();
      const refused = await send('PUT', url, acme.headers, body);
      expect(refused).toMatchObject({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message, details: { field } } },
      });
      expect((await send('GET', '/api/limits', acme.headers)).body).toEqual({ limits: [] });
    });

    it("refuses another workspace's token and a malformed DELETE, and changes nothing", async () => {
      const acme = await workspace();
      const foreign = await workspace();
      await send('PUT', '/api/limits/workspace', acme.headers, { max_concurrent: 3 });
      const crossed = { ...foreign.headers, 'x-workspace-id': acme.id };
      expect((await send('PUT', '/api/limits/workspace', crossed, { max_concurrent: 1 })).status).toBe(403);
      expect((await send('DELETE', '/api/limits/workspace', crossed)).status).toBe(403);
      expect((await send('GET', '/api/limits', crossed)).status).toBe(403);
      expect(await send('DELETE', '/api/limits/planet', acme.headers)).toMatchObject({
        status: 400,
        body: {
          error: {
            code: 'VALIDATION_ERROR',
            message: 'The scope must be one of workspace, token, agent, tool, got "planet".',
          },
        },
      });
      expect(await send('DELETE', '/api/limits/agent', acme.headers)).toMatchObject({
        status: 400,
        body: { error: { message: 'An agent limit names its agent: use /api/limits/agent/<agent id>.' } },
      });
      expect((await send('GET', '/api/limits', acme.headers)).body).toEqual({
        limits: [
          { scope: 'workspace', target: null, calls_per_minute: null, burst: null, max_concurrent: 3, source: 'api' },
        ],
      });
    });

    it('refuses a limit on a tool, agent or token the workspace does not have, naming it, and writes nothing', async () => {
      const acme = await workspace();
      const cases: Array<[string, string]> = [
        ['/api/limits/tool/quik', 'Tool "quik" does not exist in this workspace. Did you mean \'quick\'?'],
        ['/api/limits/tool/calculator%00', 'Tool "calculator\\u0000" does not exist in this workspace.'],
        ['/api/limits/agent/..%2F..', 'Agent "../.." does not exist in this workspace.'],
        [
          "/api/limits/token/'%20OR%201=1",
          `Token "' OR 1=1" does not exist in this workspace (name a token by its id, tok_…).`,
        ],
      ];
      for (const [url, message] of cases) {
        const refused = await send('PUT', url, acme.headers, { max_concurrent: 1 });
        expect([refused.status, (refused.body as { error: { code: string; message: string } }).error], url).toEqual([
          404,
          expect.objectContaining({ code: 'NOT_FOUND', message }),
        ]);
      }
      expect((await send('GET', '/api/limits', acme.headers)).body).toEqual({ limits: [] });
      expect((await send('PUT', `/api/limits/token/${acme.tokenId}`, acme.headers, { max_concurrent: 2 })).status).toBe(
        200,
      );
    });

    it('refuses a target longer than any id before the route runs, and writes nothing', async () => {
      const acme = await workspace();
      const refused = await send('PUT', `/api/limits/agent/${'a'.repeat(200)}`, acme.headers, { max_concurrent: 1 });
      expect(refused.status).toBe(414);
      expect((await send('GET', '/api/limits', acme.headers)).body).toEqual({ limits: [] });
    });

    it.each(['tool', 'agent', 'token', 'workspace'] as const)(
      'answers a burst past a %s rate limit 429 with a usable Retry-After, and lets the retry in',
      async (scope) => {
        const acme = await workspace();
        const agent = `research_${counter}`;
        await store.agents.create(acme.id, { id: agent });
        await store.attachments.attach(acme.id, agent, 'quick');
        const target = { tool: '/quick', agent: `/${agent}`, token: `/${acme.tokenId}`, workspace: '' }[scope];
        // 600 a minute: a token every 100 ms, in bursts of 3.
        await send('PUT', `/api/limits/${scope}${target}`, acme.headers, { calls_per_minute: 600, burst: 3 });
        const burst = [];
        for (let index = 0; index < 5; index += 1) burst.push(await call(acme.headers, 'quick', { agent_id: agent }));
        expect(burst.map((reply) => reply.status)).toEqual([200, 200, 200, 429, 429]);
        const refused = burst[3] as Reply;
        const holder = {
          tool: "tool 'quick'",
          agent: `agent '${agent}'`,
          token: `API token '${acme.tokenId}'`,
          workspace: 'this workspace',
        }[scope];
        expect(refused.headers['retry-after']).toBe('1');
        expect(refused.body).toMatchObject({
          status: 'error',
          error: {
            code: 'RATE_LIMITED',
            message: `Rate limit of ${holder} reached (600 calls a minute, bursts of 3); 'quick' was not run.`,
            hint: 'Try again in 100 ms.',
            retryable: true,
            details: {
              retryAfterMs: 100,
              limit: { scope, target: scope === 'workspace' ? null : target.slice(1), callsPerMinute: 600, burst: 3 },
            },
          },
        });
        clock += 100;
        expect((await call(acme.headers, 'quick', { agent_id: agent })).status).toBe(200);
        expect((await call(acme.headers, 'quick', { agent_id: agent })).status).toBe(429);
        // Refused calls are logged too: three and two, then one and one.
        const logged = (await send('GET', '/api/calls', acme.headers)).body.calls as Array<Record<string, unknown>>;
        // Newest first.
        expect(logged.map((row) => row.error_code ?? row.status)).toEqual([
          'RATE_LIMITED',
          'success',
          'RATE_LIMITED',
          'RATE_LIMITED',
          'success',
          'success',
          'success',
        ]);
      },
    );

    it('holds a concurrency cap under 200 simultaneous calls', async () => {
      const acme = await workspace();
      await send('PUT', '/api/limits/tool/busy', acme.headers, { max_concurrent: 5 });
      inFlight = 0;
      maxInFlight = 0;
      const replies = await Promise.all(Array.from({ length: 200 }, () => call(acme.headers, 'busy')));
      const ok = replies.filter((reply) => reply.status === 200);
      const refused = replies.filter((reply) => reply.status === 429);
      expect(ok.length + refused.length).toBe(200);
      expect(maxInFlight).toBeLessThanOrEqual(5);
      expect(ok.length).toBeGreaterThanOrEqual(5);
      expect(refused[0]?.body).toMatchObject({
        error: {
          code: 'RATE_LIMITED',
          message: "Too many calls running at once for tool 'busy' (limit 5); 'busy' was not run.",
          details: { retryAfterMs: 1000, limit: { scope: 'tool', target: 'busy', maxConcurrent: 5 } },
        },
      });
      // Every slot was given back.
      expect((await call(acme.headers, 'busy')).status).toBe(200);
    });

    it('holds a concurrency cap under 200 simultaneous calls (across two servers on PostgreSQL)', async () => {
      // Two servers on one SQLite file are two processes; two stores of it in one process wait on each
      // other's write lock synchronously, so on SQLite one server takes them all.
      const servers = harness.dialect === 'postgres' ? [app, other] : [app];
      const acme = await workspace();
      await send('PUT', '/api/limits/tool/busy', acme.headers, { max_concurrent: 4 });
      inFlight = 0;
      maxInFlight = 0;
      const replies = await Promise.all(
        Array.from({ length: 200 }, (_, index) => call(acme.headers, 'busy', {}, servers[index % servers.length])),
      );
      expect(replies.filter((reply) => reply.status === 200).length).toBeGreaterThanOrEqual(4);
      expect(replies.every((reply) => reply.status === 200 || reply.status === 429)).toBe(true);
      // The handler counts the calls of both servers: never more than the cap at once.
      expect(maxInFlight).toBeLessThanOrEqual(4);
      expect(maxInFlight).toBeGreaterThanOrEqual(1);
      expect((await call(acme.headers, 'busy', {}, other)).status).toBe(200);
    });

    it('frees the slot of a server that died once its lease expires', async () => {
      const acme = await workspace();
      await send('PUT', '/api/limits/tool/quick', acme.headers, { max_concurrent: 1 });
      // A server that took the only slot and stopped (no release, no renewal).
      await store.callLimits.acquireSlot(
        callLimitKey(acme.id, 'tool', 'quick'),
        1,
        { id: `lse_dead_${counter}`, holder: 'srv_dead', expiresAt: clock + DEFAULT_SLOT_LEASE_MS },
        clock,
      );
      expect((await call(acme.headers, 'quick')).status).toBe(429);
      clock += DEFAULT_SLOT_LEASE_MS;
      expect((await call(acme.headers, 'quick')).status).toBe(200);
    });

    it('counts a cap and a bucket across two servers on one database', async () => {
      const acme = await workspace();
      await send('PUT', '/api/limits/tool/busy', acme.headers, { max_concurrent: 2 });
      await send('PUT', '/api/limits/tool/quick', acme.headers, { calls_per_minute: 60, burst: 2 });
      holding = true;
      try {
        const running = [call(acme.headers, 'busy'), call(acme.headers, 'busy', {}, other)];
        for (let attempt = 0; attempt < 500 && gates.length < 2; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect(gates).toHaveLength(2);
        const refused = await call(acme.headers, 'busy', {}, other);
        expect(refused.status).toBe(429);
        expect((await call(acme.headers, 'busy')).status).toBe(429);
        for (const release of gates.splice(0)) release();
        expect((await Promise.all(running)).map((reply) => reply.status)).toEqual([200, 200]);
      } finally {
        holding = false;
        for (const release of gates.splice(0)) release();
      }
      expect((await call(acme.headers, 'busy', {}, other)).status).toBe(200);

      expect((await call(acme.headers, 'quick')).status).toBe(200);
      expect((await call(acme.headers, 'quick', {}, other)).status).toBe(200);
      const refused = await call(acme.headers, 'quick');
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      clock += 1000;
      expect((await call(acme.headers, 'quick', {}, other)).status).toBe(200);
    });
  });
}

describe('call limits over MCP, on approvals and from the configuration', () => {
  const harness = sqliteHarness();
  let store: ToolshedStore;
  let app: FastifyInstance;
  let base: string;
  let clock = 5_000_000;
  let headers: Record<string, string>;
  let bearer: string;

  const quick = defineTool({
    name: 'quick',
    description: 'Answer at once.',
    input: z.object({}),
    handler: () => 'ok',
  });
  const approved = defineTool({
    name: 'approved_echo',
    description: 'Echo a note once a person approved it.',
    input: z.object({ note: z.string() }),
    requiresApproval: true,
    handler: ({ note }) => note,
  });
  const served = (limits: Array<{ scope: 'tool'; target: string; callsPerMinute: number; burst: number }>) => ({
    workspaceId: 'served',
    origin: 'toolshed.yaml',
    tools: [],
    agents: [],
    limits,
  });

  beforeAll(async () => {
    store = await harness.open();
    await store.migrate();
    await store.workspaces.create({ id: 'served', name: 'Served' });
    const created = await store.tokens.create('served', { name: 'caller' });
    bearer = created.token;
    headers = { authorization: `Bearer ${bearer}`, 'x-workspace-id': 'served', 'content-type': 'application/json' };
    app = createServer({
      store,
      builtins: false,
      webCatalog: false,
      tools: [quick, approved],
      config: served([{ scope: 'tool', target: 'quick', callsPerMinute: 60, burst: 1 }]),
      limits: { now: () => clock },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await harness.teardown();
  });

  const rest = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>,
    };
  };

  it("enforces the configuration's limits, shows them, lets a row replace one, and follows a reload", async () => {
    expect((await rest('GET', '/api/limits')).body).toEqual({
      limits: [
        { scope: 'tool', target: 'quick', calls_per_minute: 60, burst: 1, max_concurrent: null, source: 'config' },
      ],
    });
    expect((await rest('POST', '/api/tools/quick/call', { arguments: {} })).status).toBe(200);
    const refused = await rest('POST', '/api/tools/quick/call', { arguments: {} });
    expect([refused.status, refused.retryAfter]).toEqual([429, '1']);
    clock += 1000;

    await rest('PUT', '/api/limits/tool/quick', { calls_per_minute: 120, burst: 3 });
    expect((await rest('GET', '/api/limits')).body).toEqual({
      limits: [
        { scope: 'tool', target: 'quick', calls_per_minute: 120, burst: 3, max_concurrent: null, source: 'api' },
      ],
    });
    await rest('DELETE', '/api/limits/tool/quick');
    await reloadServedConfig(app, served([{ scope: 'tool', target: 'quick', callsPerMinute: 30, burst: 2 }]));
    expect((await rest('GET', '/api/limits')).body).toEqual({
      limits: [
        { scope: 'tool', target: 'quick', calls_per_minute: 30, burst: 2, max_concurrent: null, source: 'config' },
      ],
    });
    await reloadServedConfig(app, served([]));
    expect((await rest('GET', '/api/limits')).body).toEqual({ limits: [] });
  });

  it('answers a call over MCP past a limit with a RATE_LIMITED tool error', async () => {
    await rest('PUT', '/api/limits/tool/quick', { calls_per_minute: 60, burst: 1 });
    const client = new Client({ name: 'limits-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${bearer}` } },
      }),
    );
    try {
      clock += 60_000;
      expect((await client.callTool({ name: 'quick', arguments: {} })).isError).toBeFalsy();
      const refused = await client.callTool({ name: 'quick', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain(
        "Rate limit of tool 'quick' reached (60 calls a minute, bursts of 1); 'quick' was not run.",
      );
    } finally {
      await client.close();
      await rest('DELETE', '/api/limits/tool/quick');
    }
  });

  it('answers an approval past a limit with 429 and Retry-After, and leaves it pending', async () => {
    // Asking counts as a call too: two asks and one approval take the three tokens.
    await rest('PUT', '/api/limits/tool/approved_echo', { calls_per_minute: 6, burst: 3 });
    clock += 60_000;
    const first = (await rest('POST', '/api/tools/approved_echo/call', { arguments: { note: 'one' } })).body as {
      approval: { id: string };
    };
    const second = (await rest('POST', '/api/tools/approved_echo/call', { arguments: { note: 'two' } })).body as {
      approval: { id: string };
    };
    expect((await rest('POST', `/api/approvals/${first.approval.id}`, { decision: 'approve' })).status).toBe(200);
    const refused = await rest('POST', `/api/approvals/${second.approval.id}`, { decision: 'approve' });
    expect(refused).toEqual({
      status: 429,
      retryAfter: '10',
      body: {
        error: {
          code: 'RATE_LIMITED',
          message:
            "Rate limit of tool 'approved_echo' reached (6 calls a minute, bursts of 3); 'approved_echo' was not run. The approval is still pending.",
          details: {
            hint: 'Try again in 10000 ms.',
            retryAfterMs: 10_000,
            limit: { scope: 'tool', target: 'approved_echo', callsPerMinute: 6, burst: 3 },
          },
        },
      },
    });
    clock += 10_000;
    const used = await rest('POST', `/api/approvals/${second.approval.id}`, { decision: 'approve' });
    expect(used.body).toMatchObject({ approval: { status: 'used' }, result: { status: 'success', data: 'two' } });
  });
});
