import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBuiltins } from '../../src/builtins/index.js';
import { defineTool } from '../../src/core/define-tool.js';
import type { ToolSpec } from '../../src/core/tool-spec.js';
import { createServer } from '../../src/server/index.js';
import { routeAuthTable } from '../../src/server/route-auth.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { sqliteHarness } from './server-harness.js';

const echo = defineTool({
  name: 'echo_config',
  description: 'Return the text it was given.',
  input: z.object({ text: z.string() }),
  handler: ({ text }) => ({ text }),
});

const NO_TOKEN =
  '{"error":{"code":"UNAUTHORIZED","message":"Send an API token as \\"Authorization: Bearer <token>\\"."}}';
const noRoute = (method: string, path: string) =>
  JSON.stringify({ error: { code: 'NOT_FOUND', message: `No route ${method} ${path}.` } });

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One request written byte for byte on a TCP socket to 127.0.0.1, so the request target reaches the
 * server exactly as given (absolute-form, `//`, `#`, `;` and all), and the response as it came.
 */
function rawRequest(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const parsed: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        parsed[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      let rest = text.slice(split + 4);
      if (parsed['transfer-encoding'] === 'chunked') rest = unchunk(rest);
      resolve({ status: Number(statusLine.split(' ')[1]), headers: parsed, body: rest });
    });
    const lines = [`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close'];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    if (body !== undefined) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
    socket.end(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`);
  });
}

function unchunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

describe('authentication by the matched route', () => {
  const harness = sqliteHarness();
  let store: ToolshedStore;
  let app: FastifyInstance;
  let port: number;
  let folder: string;
  let agentId: string;
  let fake: Server;
  let fakeHost: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    store = await harness.open();
    await store.migrate();
    await store.tools.upsertBuiltins([...createBuiltins(), echo]);
    const workspace = await store.workspaces.create({ id: 'acme', name: 'Acme' });
    const { token } = await store.tokens.create(workspace.id, { name: 'test' });
    headers = { authorization: `Bearer ${token}`, 'x-workspace-id': workspace.id };
    agentId = (await store.agents.create(workspace.id, { name: 'researcher' })).id;
    folder = mkdtempSync(join(tmpdir(), 'toolshed-route-auth-'));
    mkdirSync(join(folder, 'web', 'assets'), { recursive: true });
    writeFileSync(join(folder, 'web', 'index.html'), '<!doctype html><title>catalog</title>');
    writeFileSync(join(folder, 'web', 'assets', 'app-1a2b.js'), 'console.log(1);');
    fake = createHttpServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end('{"data":"ok"}');
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    fakeHost = `127.0.0.1:${(fake.address() as AddressInfo).port}`;
    // Everything on: the REST API, secrets, MCP with a served configuration, the shared built-ins, the catalog.
    app = createServer({
      store,
      config: {
        workspaceId: workspace.id,
        origin: 'toolshed.yaml',
        tools: [{ spec: echo as ToolSpec, source: 'config' }],
        agents: [{ id: 'assistant', tools: ['echo'], config: {} }],
      },
      webCatalog: join(folder, 'web'),
      restTool: { guard: { allowHosts: [fakeHost] } },
      builtins: { sandbox: { size: 1 } },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await new Promise<void>((resolve) => (fake === undefined ? resolve() : fake.close(() => resolve())));
    await store?.close();
    await harness.teardown();
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  }, 30_000);

  /** A route pattern with plausible values for its parameters. */
  function pathOf(url: string): string {
    if (url === '/*') return '/tools/calculator';
    return url
      .replace(':agentId', agentId)
      .replace(':toolId', 'calculator')
      .replace(':id', url.startsWith('/api/approvals') ? 'apr_123' : 'calculator')
      .replace('*', 'COMPANY_API_TOKEN');
  }

  it('declares every route, and leaves public only /health, /metrics, the protected resource metadata, /register and the web catalog', () => {
    const table = routeAuthTable(app);
    const publicRoutes = table.filter((route) => route.auth === 'none').map((route) => `${route.method} ${route.url}`);
    expect(publicRoutes.sort()).toEqual([
      'GET /',
      'GET /*',
      'GET /.well-known/oauth-protected-resource',
      'GET /.well-known/oauth-protected-resource/mcp',
      'GET /.well-known/oauth-protected-resource/mcp/agents/:agentId',
      'GET /health',
      'GET /metrics',
      'HEAD /',
      'HEAD /*',
      'HEAD /.well-known/oauth-protected-resource',
      'HEAD /.well-known/oauth-protected-resource/mcp',
      'HEAD /.well-known/oauth-protected-resource/mcp/agents/:agentId',
      'HEAD /health',
      'HEAD /metrics',
      // An RFC 7591 registration error carrying toolshed's message, for clients that try OAuth anyway.
      'POST /register',
    ]);
    for (const route of table) {
      if (route.url.startsWith('/api'))
        expect([route.method, route.url, route.auth]).toEqual([route.method, route.url, 'workspace']);
      if (route.url.startsWith('/mcp'))
        expect([route.method, route.url, route.auth]).toEqual([route.method, route.url, 'token']);
    }
    // The table holds every route, as the router knows them.
    const urls = new Set(table.map((route) => route.url));
    for (const url of [
      '/api/tools',
      '/api/tools/:id/call',
      '/api/agents/:agentId/tools/:toolId',
      '/api/secrets/*',
      '/mcp/agents/:agentId',
    ]) {
      expect(urls).toContain(url);
    }
    for (const route of table) {
      expect(app.hasRoute({ method: route.method as 'GET', url: route.url })).toBe(true);
    }
  });

  it('answers every token route 401 without a token, in origin-form and absolute-form', async () => {
    const table = routeAuthTable(app).filter((route) => route.auth !== 'none');
    expect(table.length).toBeGreaterThan(30);
    for (const route of table) {
      const path = pathOf(route.url);
      const body = route.method === 'POST' || route.method === 'PUT' ? '{"arguments":{},"value":"x"}' : undefined;
      for (const target of [
        path,
        `http://127.0.0.1:${port}${path}`,
        `http://tools.example.com${path}`,
        `${path}?x=1`,
      ]) {
        const response = await rawRequest(port, route.method, target, {}, body);
        const what = `${route.method} ${target}`;
        expect([what, response.status]).toEqual([what, 401]);
        if (route.method !== 'HEAD') expect([what, response.body]).toEqual([what, NO_TOKEN]);
      }
    }
  });

  it('answers the public routes without a token, in both forms, and never with a 5xx', async () => {
    for (const route of routeAuthTable(app).filter((entry) => entry.auth === 'none')) {
      for (const target of [pathOf(route.url), `http://127.0.0.1:${port}${pathOf(route.url)}`]) {
        const response = await rawRequest(port, route.method, target, { accept: 'text/html' });
        // POST /register answers every client registration with an RFC 7591 error (400).
        const expected = route.url === '/register' ? 400 : 200;
        expect([route.method, target, response.status]).toEqual([route.method, target, expected]);
      }
    }
  });

  it('answers odd spellings of /api/tools with 401 or a 404 that says no more than the path', async () => {
    const cases: Array<[string, number, string]> = [
      ['/api/tools', 401, NO_TOKEN],
      ['/%61pi/tools', 401, NO_TOKEN],
      ['/api/%74ools', 401, NO_TOKEN],
      ['/api/tools?', 401, NO_TOKEN],
      ['/api/tools#', 401, NO_TOKEN],
      ['/api/tools?#x', 401, NO_TOKEN],
      ['/api/tools/', 401, NO_TOKEN],
      ['//api/tools', 404, noRoute('GET', '//api/tools')],
      ['/API/tools', 404, noRoute('GET', '/API/tools')],
      ['/Api/Tools', 404, noRoute('GET', '/Api/Tools')],
      ['/api%2Ftools', 404, noRoute('GET', '/api%2Ftools')],
      ['/api%2ftools', 404, noRoute('GET', '/api%2ftools')],
      ['/api/tools%3F', 404, noRoute('GET', '/api/tools%3F')],
      ['/api/tools%23', 404, noRoute('GET', '/api/tools%23')],
      ['/./api/tools', 404, noRoute('GET', '/./api/tools')],
      ['/api/./tools', 404, noRoute('GET', '/api/./tools')],
      ['/api/../api/tools', 404, noRoute('GET', '/api/../api/tools')],
      ['/api;/tools', 404, noRoute('GET', '/api;/tools')],
      ['/api/tools;', 404, noRoute('GET', '/api/tools;')],
      ['/api', 404, noRoute('GET', '/api')],
      ['/mcp/', 404, noRoute('GET', '/mcp/')],
      ['/MCP', 404, noRoute('GET', '/MCP')],
      [`http://127.0.0.1:${port}//api/tools`, 404, noRoute('GET', `http://127.0.0.1:${port}//api/tools`)],
      [`http://127.0.0.1:${port}/%61pi/tools`, 401, NO_TOKEN],
      [`HTTP://127.0.0.1:${port}/api/tools`, 401, NO_TOKEN],
    ];
    for (const [target, status, body] of cases) {
      // A browser's Accept too: the web catalog's page never answers a path that spells the API.
      for (const accept of [{}, { accept: 'text/html' }] as Array<Record<string, string>>) {
        const response = await rawRequest(port, 'GET', target, accept);
        expect([target, accept, response.status, response.body]).toEqual([target, accept, status, body]);
      }
    }
    // The same spellings with a token reach the route they spell, or nothing.
    expect((await rawRequest(port, 'GET', '/%61pi/tools', headers)).status).toBe(200);
    expect((await rawRequest(port, 'GET', '/API/tools', headers)).status).toBe(404);
  });

  it('keeps /metrics free of workspace tool ids: they are counted as tool="(workspace)"', async () => {
    const id = 'acme_private_crm_lookup';
    const created = await app.inject({
      method: 'POST',
      url: '/api/tools',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: {
        id,
        type: 'rest_api',
        description: 'Look a customer up in the CRM.',
        endpoint: `http://${fakeHost}/crm`,
        method: 'GET',
        parameters: { type: 'object', properties: {} },
      },
    });
    expect(created.statusCode).toBe(201);
    const call = (tool: string, args: Record<string, unknown>) =>
      app.inject({
        method: 'POST',
        url: `/api/tools/${tool}/call`,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: { arguments: args },
      });
    expect((await call(id, {})).json()).toMatchObject({ status: 'success' });
    expect((await call('calculator', { expression: '1 +' })).json()).toMatchObject({ status: 'error' });

    const metrics = await rawRequest(port, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).not.toContain(id);
    expect(metrics.body).not.toContain('crm');
    expect(metrics.body).toContain('toolshed_tool_calls_total{tool="(workspace)",status="success"} 1');
    expect(metrics.body).toContain('toolshed_tool_calls_total{tool="calculator",status="error"} 1');
    expect(metrics.body).toContain('toolshed_tool_call_errors_total{tool="calculator",code="INVALID_ARGUMENTS"} 1');
    expect(metrics.body).toContain('toolshed_tool_call_duration_seconds_count{tool="(workspace)"} 1');
  });
});
