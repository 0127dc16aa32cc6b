import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBuiltins } from '../../src/builtins/index.js';
import { defineTool } from '../../src/core/define-tool.js';
import { createServer } from '../../src/server/index.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../support/postgres-test-database.js';
import { postgresHarness, type ServerStoreHarness, sqliteHarness } from './server-harness.js';

/** A `--config` tool that shows the attachment config it was called with. */
const showConfig = defineTool({
  name: 'show_config',
  description: 'Return the per-agent config this call received.',
  input: z.object({}),
  annotations: { readOnly: true },
  handler: (_args, ctx) => ({ config: ctx.config }),
});

/** The same, behind an approval: the approved call must run with the attachment config too. */
const approvedConfig = defineTool({
  name: 'approved_config',
  description: 'Return the per-agent config this call received, once a person approved it.',
  input: z.object({ note: z.string() }),
  requiresApproval: true,
  handler: ({ note }, ctx) => ({ note, config: ctx.config }),
});

interface Tenant {
  id: string;
  token: string;
  headers: Record<string, string>;
}

interface Running {
  app: FastifyInstance;
  base: string;
}

async function listen(store: ToolshedStore): Promise<Running> {
  const app = createServer({ store, tools: [showConfig, approvedConfig] });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

let counter = 0;
const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${(counter++).toString(36)}`;

async function tenant(store: ToolshedStore): Promise<Tenant> {
  const workspace = await store.workspaces.create({ id: unique('ws'), name: 'MCP test' });
  const { token } = await store.tokens.create(workspace.id, { name: 'mcp' });
  return { id: workspace.id, token, headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspace.id } };
}

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
});

async function connect(base: string, path: string, token: string): Promise<Client> {
  const client = new Client({ name: 'toolshed-mcp-service-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path, base), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

/** Resolves on the client's next `notifications/tools/list_changed`. */
function nextListChanged(client: Client): Promise<void> {
  return new Promise((resolve) => {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
  });
}

async function rest(base: string, tenant: Tenant, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? tenant.headers : { ...tenant.headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}

async function createAgent(base: string, owner: Tenant, name: string): Promise<string> {
  const created = await rest(base, owner, 'POST', '/api/agents', { name });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const names = (listing: { tools: Array<{ name: string }> }) => listing.tools.map((tool) => tool.name);
const text = (result: Record<string, unknown>) => (result.content as Array<{ text: string }>)[0]?.text ?? '';

function defineMcpServiceCases(harness: ServerStoreHarness): void {
  let store: ToolshedStore;
  let server: Running;

  beforeAll(async () => {
    store = await harness.open();
    await store.migrate();
    // show_config is stored like a built-in so agents can attach it; its handler comes with the server.
    await store.tools.upsertBuiltins([...createBuiltins(), showConfig, approvedConfig]);
    server = await listen(store);
  }, 30_000);

  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
    await server?.app.close();
    await store?.close();
    await harness.teardown();
  }, 30_000);

  it('serves the workspace default view at /mcp: the built-ins and the --config tools', async () => {
    const owner = await tenant(store);
    const client = await connect(server.base, '/mcp', owner.token);
    expect(names(await client.listTools())).toEqual([
      'approved_config',
      'calculator',
      'duckduckgo_search',
      'fetch_url',
      'list_files',
      'read_file',
      'search_code',
      'serper_search',
      'show_config',
      'write_file',
    ]);
    const sum = await client.callTool({ name: 'calculator', arguments: { expression: '6 * 7' } });
    expect(sum.isError).not.toBe(true);
    expect(JSON.parse(text(sum))).toEqual({ expression: '6 * 7', result: 42 });
  });

  it('lists the same MCP entries at /mcp as the export route, hints and all', async () => {
    const owner = await tenant(store);
    const agent = await createAgent(server.base, owner, 'hinted');
    // read_file is read-only, write_file destructive, duckduckgo_search open-world.
    for (const tool_id of ['read_file', 'write_file', 'duckduckgo_search']) {
      expect((await rest(server.base, owner, 'POST', `/api/agents/${agent}/tools`, { tool_id })).status).toBe(201);
    }
    const client = await connect(server.base, `/mcp/agents/${agent}`, owner.token);
    const listed = (await client.listTools()).tools;
    const exported = await rest(server.base, owner, 'GET', `/api/agents/${agent}/export?format=mcp`);
    expect(exported.body.warnings).toEqual([]);
    expect(listed).toEqual(exported.body.tools);
    expect(Object.fromEntries(listed.map((tool) => [tool.name, tool.annotations]))).toEqual({
      duckduckgo_search: {
        title: 'DuckDuckGo Search',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: true,
      },
      read_file: {
        title: 'Read File',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      write_file: {
        title: 'Write File',
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    });
  });

  it("serves an agent's attachments with their config, sends list_changed on attach and detach", async () => {
    const owner = await tenant(store);
    const agent = await createAgent(server.base, owner, 'researcher');
    const attached = await rest(server.base, owner, 'POST', `/api/agents/${agent}/tools`, {
      tool_id: 'show_config',
      config: { default_limit: 20 },
    });
    expect(attached.status).toBe(201);
    const client = await connect(server.base, `/mcp/agents/${agent}`, owner.token);
    expect(names(await client.listTools())).toEqual(['show_config']);
    const shown = await client.callTool({ name: 'show_config', arguments: {} });
    expect(JSON.parse(text(shown))).toEqual({ config: { default_limit: 20 } });

    const added = nextListChanged(client);
    expect(
      (await rest(server.base, owner, 'POST', `/api/agents/${agent}/tools`, { tool_id: 'calculator' })).status,
    ).toBe(201);
    await added;
    expect(names(await client.listTools())).toEqual(['calculator', 'show_config']);

    const removed = nextListChanged(client);
    expect((await rest(server.base, owner, 'DELETE', `/api/agents/${agent}/tools/calculator`)).status).toBe(204);
    await removed;
    expect(names(await client.listTools())).toEqual(['show_config']);
    const outside = await client.callTool({ name: 'calculator', arguments: { expression: '1 + 1' } });
    expect(outside.isError).toBe(true);
    expect(text(outside)).toMatch(/^Error \[TOOL_NOT_FOUND\]/);

    // Detaching the last tool leaves the agent with none (removing access never widens it), and the
    // session is told.
    const emptied = nextListChanged(client);
    expect((await rest(server.base, owner, 'DELETE', `/api/agents/${agent}/tools/show_config`)).status).toBe(204);
    await emptied;
    expect(names(await client.listTools())).toEqual([]);
    const gone = await client.callTool({ name: 'show_config', arguments: {} });
    expect(gone.isError).toBe(true);
    expect(text(gone)).toMatch(/^Error \[TOOL_NOT_FOUND\]/);
    const listed = await rest(server.base, owner, 'GET', `/api/agents/${agent}/tools`);
    expect(listed.body).toEqual({ tools: [], fallback: false });
  });

  it("runs an approved call in the calling agent's view, with its attachment config", async () => {
    const owner = await tenant(store);
    const agent = await createAgent(server.base, owner, 'approver');
    await rest(server.base, owner, 'POST', `/api/agents/${agent}/tools`, {
      tool_id: 'approved_config',
      config: { mailbox: 'ops' },
    });
    const pending = await rest(server.base, owner, 'POST', '/api/tools/approved_config/call', {
      arguments: { note: 'send it' },
      agent_id: agent,
    });
    expect(pending.body).toMatchObject({ status: 'pending_approval' });
    const approval = (pending.body.approval as { id: string }).id;
    const approved = await rest(server.base, owner, 'POST', `/api/approvals/${approval}`, { decision: 'approve' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      approval: { id: approval, status: 'used' },
      result: { status: 'success', data: { note: 'send it', config: { mailbox: 'ops' } } },
    });
    const calls = await rest(server.base, owner, 'GET', `/api/calls?agent_id=${agent}&tool_id=approved_config`);
    expect((calls.body.calls as Array<{ status: string }>).map((call) => call.status).sort()).toEqual([
      'pending_approval',
      'success',
    ]);
  });

  it('logs every MCP call in the call log with the agent', async () => {
    const owner = await tenant(store);
    const agent = await createAgent(server.base, owner, 'logger');
    await rest(server.base, owner, 'POST', `/api/agents/${agent}/tools`, { tool_id: 'calculator' });
    const client = await connect(server.base, `/mcp/agents/${agent}`, owner.token);
    await client.callTool({ name: 'calculator', arguments: { expression: '2 + 2' } });
    await client.callTool({ name: 'calculator', arguments: { expression: '2 +' } });
    const calls = await rest(server.base, owner, 'GET', `/api/calls?agent_id=${agent}`);
    expect(calls.status).toBe(200);
    const logged = (calls.body.calls as Array<Record<string, unknown>>).map((call) => [
      call.tool_id,
      call.agent_id,
      call.status,
    ]);
    expect(logged).toHaveLength(2);
    expect(logged).toEqual(
      expect.arrayContaining([
        ['calculator', agent, 'success'],
        ['calculator', agent, 'error'],
      ]),
    );
  });

  it('refuses requests without a valid token of the workspace: 401, 403, and 404 for other agents', async () => {
    const owner = await tenant(store);
    const other = await tenant(store);
    const agent = await createAgent(server.base, owner, 'private');
    const post = (path: string, headers: Record<string, string>) =>
      fetch(`${server.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
    const cases: Array<[string, Record<string, string>, number, string]> = [
      ['/mcp', {}, 401, 'Send an API token as "Authorization: Bearer <token>".'],
      ['/mcp', { authorization: 'Basic abc' }, 401, 'Send an API token as "Authorization: Bearer <token>".'],
      ['/mcp', { authorization: 'Bearer tsk_nope' }, 401, 'The API token is malformed, unknown or revoked.'],
      [
        '/mcp',
        { authorization: `Bearer ${owner.token}`, 'x-workspace-id': other.id },
        403,
        'The API token does not belong to the workspace in X-Workspace-Id.',
      ],
      [
        `/mcp/agents/${agent}`,
        { authorization: `Bearer ${other.token}` },
        404,
        `No agent '${agent}' in this workspace.`,
      ],
      [
        '/mcp/agents/..%2F..%2Fetc',
        { authorization: `Bearer ${owner.token}` },
        404,
        "No agent '../../etc' in this workspace.",
      ],
    ];
    for (const [path, headers, status, message] of cases) {
      const response = await post(path, headers);
      expect([path, response.status]).toEqual([path, status]);
      expect(((await response.json()) as { error: { message: string } }).error.message).toBe(message);
    }
  });

  it('answers a session only for the token that opened it, and stops at once when it is revoked', async () => {
    const owner = await tenant(store);
    const second = await store.tokens.create(owner.id, { name: 'second' });
    const client = await connect(server.base, '/mcp', second.token);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId ?? '';
    expect(sessionId).not.toBe('');
    const hijack = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${owner.token}`,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(404);
    expect(await store.tokens.revoke(owner.id, second.id)).toBe(true);
    await expect(client.listTools()).rejects.toThrow(
      '{"error":{"code":"UNAUTHORIZED","message":"The API token is malformed, unknown or revoked."}}',
    );
  });

  it('empties the list of an agent deleted while its session is open, then answers 404', async () => {
    const owner = await tenant(store);
    const agent = await createAgent(server.base, owner, 'short-lived');
    await rest(server.base, owner, 'POST', `/api/agents/${agent}/tools`, { tool_id: 'calculator' });
    const client = await connect(server.base, `/mcp/agents/${agent}`, owner.token);
    const emptied = nextListChanged(client);
    expect((await rest(server.base, owner, 'DELETE', `/api/agents/${agent}`)).status).toBe(204);
    await emptied;
    await expect(client.listTools()).rejects.toThrow(`No agent '${agent}' in this workspace.`);
  });
}

for (const harness of [sqliteHarness(), postgresHarness()]) {
  describe(`MCP from the store on ${harness.dialect}`, () => {
    defineMcpServiceCases(harness);
  });
}

describe('two toolshed servers on one PostgreSQL', () => {
  let database: PostgresTestDatabase;
  const stores: ToolshedStore[] = [];
  const servers: Running[] = [];

  beforeAll(async () => {
    database = await createPostgresTestDatabase('toolshed_test', 'The two-instance test');
    for (let index = 0; index < 2; index++) {
      const store = await createStore(database.url);
      await store.migrate();
      await store.tools.upsertBuiltins(createBuiltins());
      stores.push(store);
      servers.push(await listen(store));
    }
  }, 30_000);

  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
    for (const server of servers) await server.app.close();
    for (const store of stores) await store.close();
    await database?.drop();
  }, 30_000);

  it("shows an attach through A in B's listing and sends list_changed to B's MCP sessions within a second", async () => {
    const [a, b] = servers as [Running, Running];
    const owner = await tenant(stores[0] as ToolshedStore);
    const agent = await createAgent(a.base, owner, 'shared');
    await rest(a.base, owner, 'POST', `/api/agents/${agent}/tools`, { tool_id: 'calculator' });
    const client = await connect(b.base, `/mcp/agents/${agent}`, owner.token);
    expect(names(await client.listTools())).toEqual(['calculator']);

    const changed = nextListChanged(client);
    const started = performance.now();
    expect((await rest(a.base, owner, 'POST', `/api/agents/${agent}/tools`, { tool_id: 'read_file' })).status).toBe(
      201,
    );
    const within = await Promise.race([
      changed.then(() => performance.now() - started),
      new Promise<number>((resolve) => setTimeout(() => resolve(Number.POSITIVE_INFINITY), 1000)),
    ]);
    expect(within).toBeLessThan(1000);
    expect(names(await client.listTools())).toEqual(['calculator', 'read_file']);
    const listed = await rest(b.base, owner, 'GET', `/api/agents/${agent}/tools`);
    expect((listed.body.tools as Array<{ id: string }>).map((tool) => tool.id)).toEqual(['calculator', 'read_file']);
  });

  it('refuses every call on B that starts after B heard of a revocation through A, while B is calling with the token', async () => {
    const b = servers[1] as Running;
    const owner = await tenant(stores[0] as ToolshedStore);
    const second = await (stores[0] as ToolshedStore).tokens.create(owner.id, { name: 'busy' });
    const asSecond: Tenant = {
      ...owner,
      token: second.token,
      headers: { authorization: `Bearer ${second.token}`, 'x-workspace-id': owner.id },
    };
    const call = () =>
      rest(b.base, asSecond, 'POST', '/api/tools/calculator/call', { arguments: { expression: '6 * 7' } });
    expect((await call()).status).toBe(200);
    // Calls keep B's copy of the token in use (shared loads and reloads running) while it is revoked.
    let heardIt = false;
    let stopping = false;
    const before: number[] = [];
    const after: number[] = [];
    const callers = Array.from({ length: 4 }, async () => {
      while (!stopping) {
        const startedAfter = heardIt;
        const { status } = await call();
        (startedAfter ? after : before).push(status);
        if (after.length >= 20) stopping = true;
      }
    });
    const heard = new Promise<void>((resolve) => {
      const stop = (stores[1] as ToolshedStore).onChange((change) => {
        if (change.workspaceId !== owner.id || change.kind !== 'token') return;
        heardIt = true;
        stop();
        resolve();
      });
    });
    while (before.length < 20) await new Promise((resolve) => setImmediate(resolve));
    expect(await (stores[0] as ToolshedStore).tokens.revoke(owner.id, second.id)).toBe(true);
    await heard;
    await Promise.all(callers);
    expect(before.every((status) => status === 200 || status === 401)).toBe(true);
    expect(after.length).toBeGreaterThanOrEqual(20);
    expect(new Set(after)).toEqual(new Set([401]));
    // The owner's token, never revoked, still calls on B.
    expect(
      (await rest(b.base, owner, 'POST', '/api/tools/calculator/call', { arguments: { expression: '1 + 1' } })).status,
    ).toBe(200);
  });

  it("refuses on B a token revoked through A, and shows A's detach in B's listing, as soon as B hears of them", async () => {
    const [a, b] = servers as [Running, Running];
    const owner = await tenant(stores[0] as ToolshedStore);
    const second = await (stores[0] as ToolshedStore).tokens.create(owner.id, { name: 'second' });
    const asSecond: Tenant = {
      ...owner,
      token: second.token,
      headers: { authorization: `Bearer ${second.token}`, 'x-workspace-id': owner.id },
    };
    const agent = await createAgent(a.base, owner, 'cached');
    await rest(a.base, owner, 'POST', `/api/agents/${agent}/tools`, { tool_id: 'calculator' });
    await rest(a.base, owner, 'POST', `/api/agents/${agent}/tools`, { tool_id: 'read_file' });
    // B reads (and caches) the second token and the agent's list.
    expect((await rest(b.base, asSecond, 'GET', `/api/agents/${agent}/tools`)).status).toBe(200);
    const heard = new Promise<void>((resolve) => {
      let kinds = 0;
      const stop = (stores[1] as ToolshedStore).onChange((change) => {
        if (change.workspaceId !== owner.id || (change.kind !== 'token' && change.kind !== 'attachment')) return;
        kinds += 1;
        if (kinds === 2) {
          stop();
          resolve();
        }
      });
    });
    expect(await (stores[0] as ToolshedStore).tokens.revoke(owner.id, second.id)).toBe(true);
    expect((await rest(a.base, owner, 'DELETE', `/api/agents/${agent}/tools/read_file`)).status).toBe(204);
    await heard;
    expect((await rest(b.base, asSecond, 'GET', `/api/agents/${agent}/tools`)).status).toBe(401);
    const listed = await rest(b.base, owner, 'GET', `/api/agents/${agent}/tools`);
    expect((listed.body.tools as Array<{ id: string }>).map((tool) => tool.id)).toEqual(['calculator']);
  });
});
