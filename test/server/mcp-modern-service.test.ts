import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBuiltins } from '../../src/builtins/index.js';
import { defineTool } from '../../src/core/define-tool.js';
import { createServer } from '../../src/server/index.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../support/postgres-test-database.js';
import { sqliteHarness } from './server-harness.js';

/** The MCP Inspector's command line (`inspector --cli`), as a developer runs it against `toolshed serve`. */
const INSPECTOR = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js', import.meta.url),
);

/** A tool that shows the attachment config it was called with. */
const showConfig = defineTool({
  name: 'show_config',
  description: 'Return the per-agent config this call received.',
  input: z.object({ note: z.string().optional() }),
  annotations: { readOnly: true },
  handler: ({ note }, ctx) => ({ note: note ?? null, config: ctx.config }),
});

const harness = sqliteHarness();
let store: ToolshedStore;
let app: FastifyInstance;
let base: string;
let home: string;

beforeAll(async () => {
  store = await harness.open();
  await store.migrate();
  await store.tools.upsertBuiltins([...createBuiltins(), showConfig]);
  app = createServer({ store, tools: [showConfig] });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  home = mkdtempSync(join(tmpdir(), 'toolshed-inspector-'));
});

afterAll(async () => {
  await app.close();
  await store.close();
  await harness.teardown();
  rmSync(home, { recursive: true, force: true });
});

const clients: ModernClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
});

let counter = 0;

async function tenant(): Promise<{ token: string; headers: Record<string, string> }> {
  const workspace = await store.workspaces.create({ id: `ws_modern_${counter++}`, name: 'Modern MCP' });
  const { token } = await store.tokens.create(workspace.id, { name: 'inspector' });
  return { token, headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspace.id } };
}

async function rest(headers: Record<string, string>, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}

async function agentWithConfig(headers: Record<string, string>): Promise<string> {
  const created = await rest(headers, 'POST', '/api/agents', { name: 'inspected' });
  expect(created.status).toBe(201);
  const agent = created.body.id as string;
  const attached = await rest(headers, 'POST', `/api/agents/${agent}/tools`, {
    tool_id: 'show_config',
    config: { mailbox: 'support' },
  });
  expect(attached.status).toBe(201);
  return agent;
}

/** `inspector --cli <url> --format json …` with the token as a header; its JSON answer and exit code. */
function inspector(
  url: string,
  token: string,
  args: string[],
): Promise<{ code: number | null; output: Record<string, unknown>; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        INSPECTOR,
        '--cli',
        url,
        '--transport',
        'http',
        '--format',
        'json',
        '--header',
        `Authorization: Bearer ${token}`,
        ...args,
      ],
      { env: { PATH: process.env.PATH ?? '', HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const text = (stdout.trim() === '' ? stderr : stdout).trim();
      try {
        resolve({ code, output: JSON.parse(text) as Record<string, unknown>, stderr });
      } catch {
        reject(new Error(`inspector printed no JSON (exit ${String(code)}): ${stdout}${stderr}`));
      }
    });
  });
}

describe('MCP Inspector CLI against toolshed serve', () => {
  it("--protocol-era modern negotiates 2026-07-28, lists and calls an agent's tools, and the call is logged", async () => {
    const { token, headers } = await tenant();
    const agent = await agentWithConfig(headers);
    const url = `${base}/mcp/agents/${agent}`;
    const opened = await inspector(url, token, ['--protocol-era', 'modern', '--method', 'initialize']);
    expect(opened.output.result).toMatchObject({
      protocolVersion: '2026-07-28',
      serverInfo: { name: 'toolshed' },
      capabilities: { tools: { listChanged: true } },
    });
    const listed = await inspector(url, token, ['--protocol-era', 'modern', '--method', 'tools/list']);
    expect(listed.code).toBe(0);
    const tools = (listed.output.result as { tools: Array<{ name: string }> }).tools;
    expect(tools.map((tool) => tool.name)).toEqual(['show_config']);
    const called = await inspector(url, token, [
      '--protocol-era',
      'modern',
      '--method',
      'tools/call',
      '--tool-name',
      'show_config',
      '--tool-arg',
      'note=from the inspector',
    ]);
    expect(called.code).toBe(0);
    const content = (called.output.result as { content: Array<{ text: string }> }).content;
    expect(JSON.parse(content[0]?.text ?? '')).toEqual({ note: 'from the inspector', config: { mailbox: 'support' } });
    const calls = await rest(headers, 'GET', `/api/calls?agent_id=${agent}`);
    expect((calls.body.calls as Array<Record<string, unknown>>).map((call) => [call.tool_id, call.status])).toEqual([
      ['show_config', 'success'],
    ]);
  }, 120_000);

  it('--protocol-era auto picks 2026-07-28 on /mcp; legacy still gets 2025-11-25 from the same URL', async () => {
    const { token } = await tenant();
    const url = `${base}/mcp`;
    const auto = await inspector(url, token, ['--protocol-era', 'auto', '--method', 'initialize']);
    expect(auto.output.result).toMatchObject({ protocolVersion: '2026-07-28' });
    const legacy = await inspector(url, token, ['--protocol-era', 'legacy', '--method', 'initialize']);
    expect(legacy.output.result).toMatchObject({ protocolVersion: '2025-11-25' });
    const listed = await inspector(url, token, ['--protocol-era', 'auto', '--method', 'tools/list']);
    expect((listed.output.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toContain(
      'show_config',
    );
  }, 120_000);

  it('is refused with a wrong token (401, which the CLI reports as needing authorization)', async () => {
    const refused = await inspector(`${base}/mcp`, 'tsk_wrong', [
      '--protocol-era',
      'modern',
      '--stored-auth-only',
      '--method',
      'tools/list',
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatchObject({ error: { code: 'auth_required' } });
  }, 120_000);
});

describe('2026-07-28 on the service routes', () => {
  async function modernClient(path: string, token: string): Promise<ModernClient> {
    const client = new ModernClient(
      { name: 'toolshed-modern-service-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new ModernTransport(new URL(path, base), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    clients.push(client);
    return client;
  }

  it("marks a view's lists private and tells its listen stream of an attach", async () => {
    const { token, headers } = await tenant();
    const agent = await agentWithConfig(headers);
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    for (const path of ['/mcp', `/mcp/agents/${agent}`]) {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/list',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { result: unknown }).result).toMatchObject({
        resultType: 'complete',
        cacheScope: 'private',
      });
    }
    const client = await modernClient(`/mcp/agents/${agent}`, token);
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler('notifications/tools/list_changed', () => resolve());
    });
    const subscription = await client.listen({ toolsListChanged: true });
    expect((await rest(headers, 'POST', `/api/agents/${agent}/tools`, { tool_id: 'calculator' })).status).toBe(201);
    await changed;
    await subscription.close();
    const listed = await client.listTools(undefined, { cacheMode: 'bypass' });
    expect(listed.tools.map((tool) => tool.name)).toEqual(['calculator', 'show_config']);
  });

  it("refuses another workspace's agent with 404 before anything runs", async () => {
    const owner = await tenant();
    const stranger = await tenant();
    const agent = await agentWithConfig(owner.headers);
    const response = await fetch(`${base}/mcp/agents/${agent}`, {
      method: 'POST',
      headers: {
        ...stranger.headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'show_config',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'show_config',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(response.status).toBe(404);
    expect(JSON.stringify(await response.json())).toContain(`No agent '${agent}' in this workspace.`);
    const calls = await rest(owner.headers, 'GET', `/api/calls?agent_id=${agent}`);
    expect(calls.body.calls).toEqual([]);
  });
});

describe('2026-07-28 on two toolshed servers on one PostgreSQL', () => {
  let database: PostgresTestDatabase;
  const stores: ToolshedStore[] = [];
  const bases: string[] = [];
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    database = await createPostgresTestDatabase('toolshed_test', 'The two-instance 2026-07-28 test');
    for (let index = 0; index < 2; index++) {
      const shared = await createStore(database.url);
      await shared.migrate();
      await shared.tools.upsertBuiltins([...createBuiltins(), showConfig]);
      stores.push(shared);
      const server = createServer({ store: shared, tools: [showConfig] });
      await server.listen({ host: '127.0.0.1', port: 0 });
      apps.push(server);
      bases.push(`http://127.0.0.1:${(server.server.address() as AddressInfo).port}`);
    }
  }, 30_000);

  afterAll(async () => {
    for (const server of apps) await server.close();
    for (const shared of stores) await shared.close();
    await database?.drop();
  }, 30_000);

  it("tells a listen stream on B of an attach made through A, and B's next list shows it", async () => {
    const [a, b] = bases as [string, string];
    const workspace = await (stores[0] as ToolshedStore).workspaces.create({ id: 'ws_modern_pg', name: 'PG' });
    const { token } = await (stores[0] as ToolshedStore).tokens.create(workspace.id, { name: 'two' });
    const headers = {
      authorization: `Bearer ${token}`,
      'x-workspace-id': workspace.id,
      'content-type': 'application/json',
    };
    const created = await fetch(`${a}/api/agents`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'shared' }),
    });
    const agent = ((await created.json()) as { id: string }).id;
    const attach = (tool: string) =>
      fetch(`${a}/api/agents/${agent}/tools`, { method: 'POST', headers, body: JSON.stringify({ tool_id: tool }) });
    expect((await attach('show_config')).status).toBe(201);
    const client = new ModernClient(
      { name: 'toolshed-modern-two-servers', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new ModernTransport(new URL(`/mcp/agents/${agent}`, b), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['show_config']);
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler('notifications/tools/list_changed', () => resolve());
    });
    const subscription = await client.listen({ toolsListChanged: true });
    expect((await attach('calculator')).status).toBe(201);
    await changed;
    await subscription.close();
    const listed = await client.listTools(undefined, { cacheMode: 'bypass' });
    expect(listed.tools.map((tool) => tool.name)).toEqual(['calculator', 'show_config']);
  });
});
