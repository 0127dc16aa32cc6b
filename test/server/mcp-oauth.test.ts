import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OAuthConfig } from '../../src/config/index.js';
import { defineTool } from '../../src/core/define-tool.js';
import { createServer, type ServedConfig } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { CLIENTS, type FakeAuthorizationServer, startAuthorizationServer } from './fake-authorization-server.js';
import { INITIALIZE as DESKTOP_INITIALIZE, exchange, startMcpRemote } from './mcp-remote-bridge.js';
import { sqliteHarness } from './server-harness.js';

const acmeTool = defineTool({
  name: 'acme_ledger',
  description: 'Read the ledger of acme.',
  inputSchema: { type: 'object', properties: {} },
  handler: () => 'acme ledger: 3 entries',
});

const acmeNotes = defineTool({
  name: 'acme_notes',
  description: 'Read the notes of acme.',
  inputSchema: { type: 'object', properties: {} },
  handler: () => 'acme notes',
});

const servedConfig: ServedConfig = {
  workspaceId: 'acme',
  origin: 'toolshed.yaml',
  tools: [
    { spec: acmeTool, source: 'config' },
    { spec: acmeNotes, source: 'config' },
  ],
  builtins: [],
  agents: [{ id: 'writer', tools: ['acme_ledger'], config: {} }],
};

const harness = sqliteHarness();
let store: ToolshedStore;
let app: FastifyInstance;
let base: string;
let auth: FakeAuthorizationServer;
let oauth: OAuthConfig;

beforeAll(async () => {
  auth = await startAuthorizationServer();
  store = await harness.open();
  await store.migrate();
  await store.workspaces.create({ id: 'acme', name: 'Acme' });
  await store.workspaces.create({ id: 'globex', name: 'Globex' });
  oauth = {
    issuer: auth.issuer,
    workspaceClaim: 'org',
    agentClaim: 'toolshed_agent',
    workspaces: { 'org-acme': 'acme', 'org-globex': 'globex', 'org-gone': 'deleted_workspace' },
  };
  app = createServer({ store, config: servedConfig, oauth, builtins: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app.close();
  await store.close();
  await harness.teardown();
  await auth.close();
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
});

async function connectWithOAuth(path: string, clientId: string): Promise<Client> {
  const provider = new ClientCredentialsProvider({
    clientId,
    clientSecret: CLIENTS[clientId]?.secret ?? '',
    expectedIssuer: auth.issuer,
  });
  const client = new Client({ name: 'toolshed-oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(path, base), { authProvider: provider }));
  clients.push(client);
  return client;
}

async function connectWithToken(path: string, token: string): Promise<Client> {
  const client = new Client({ name: 'toolshed-oauth-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path, base), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

async function post(path: string, token: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: INITIALIZE,
  });
  return { status: response.status, header: response.headers.get('www-authenticate'), body: await response.text() };
}

function claims(overrides: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: auth.issuer,
    sub: 'acme-bot',
    aud: `${base}/mcp`,
    org: 'org-acme',
    iat: now,
    exp: now + 300,
    ...overrides,
  };
}

describe('OAuth access tokens from an external authorization server', () => {
  it('names the authorization server in the protected resource metadata', async () => {
    for (const path of ['', '/mcp', '/mcp/agents/writer']) {
      const response = await fetch(`${base}/.well-known/oauth-protected-resource${path}`);
      const metadata = (await response.json()) as { resource: string; authorization_servers: string[] };
      expect(metadata.authorization_servers).toEqual([auth.issuer]);
      expect(metadata.resource).toBe(`${base}${path === '' ? '/mcp' : path}`);
    }
  });

  it("runs the SDK client's OAuth flow (client credentials, resource indicator) and lists and calls the workspace's tools", async () => {
    const before = auth.resources.length;
    const client = await connectWithOAuth('/mcp', 'acme-bot');
    // The client asked for a token for this MCP resource (RFC 8707), as the metadata named it.
    expect(auth.resources.slice(before)).toEqual([`${base}/mcp`]);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(['acme_ledger', 'acme_notes']);
    const result = await client.callTool({ name: 'acme_ledger', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'acme ledger: 3 entries' }]);
    // The call log says who called: the token's subject.
    await expect
      .poll(async () => (await store.toolCalls.listRecent('acme')).map((call) => call.tokenId), { timeout: 5_000 })
      .toContainEqual(expect.stringMatching(/^oauth\.acme-bot\.[0-9a-f]{16}$/));
  });

  it("maps another client's claim to its own workspace, which never sees acme's tools", async () => {
    const client = await connectWithOAuth('/mcp', 'globex-bot');
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).not.toContain('acme_ledger');
    expect(names).not.toContain('acme_notes');
    const result = await client.callTool({ name: 'acme_ledger', arguments: {} });
    expect(result.isError).toBe(true);
  });

  it('binds a token with an agent claim to that agent: /mcp is its view, another agent is refused', async () => {
    const client = await connectWithOAuth('/mcp', 'writer-bot');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['acme_ledger']);
    const token = await auth.sign(claims({ sub: 'writer-bot', toolshed_agent: 'writer', aud: `${base}/mcp` }));
    const other = await post('/mcp/agents/editor', token);
    expect(other.status).toBe(403);
    expect(JSON.parse(other.body)).toEqual({
      error: {
        code: 'FORBIDDEN',
        message: "The access token is for agent 'writer' only; use /mcp/agents/writer or /mcp.",
      },
    });
    const own = await connectWithToken('/mcp/agents/writer', token);
    expect((await own.listTools()).tools.map((tool) => tool.name)).toEqual(['acme_ledger']);
  });

  it("never lets a subject's agent-bound token use a session its unbound token opened", async () => {
    const whole = await auth.sign(claims({ sub: 'shared-subject' }));
    const opened = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${whole}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: INITIALIZE,
    });
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id') as string;
    await opened.text();
    const bound = await auth.sign(claims({ sub: 'shared-subject', toolshed_agent: 'writer' }));
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${bound}`,
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('acme_notes');
  });

  it("accepts a token for an agent's own resource URL there, and refuses it on /mcp", async () => {
    const token = await auth.sign(claims({ aud: `${base}/mcp/agents/writer` }));
    const client = await connectWithToken('/mcp/agents/writer', token);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['acme_ledger']);
    const refused = await post('/mcp', token);
    expect(refused.status).toBe(401);
    expect(refused.header).toContain('error="invalid_token"');
  });

  it('refuses a token mapped to a workspace the store does not have, without a 5xx', async () => {
    const response = await post('/mcp', await auth.sign(claims({ org: 'org-gone' })));
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body)).toEqual({
      error: {
        code: 'UNAUTHORIZED',
        message:
          "The access token maps to workspace 'deleted_workspace', which this server does not have; the operator's server.oauth.workspaces names it.",
      },
    });
    expect(response.header).toContain('error="invalid_token"');
  });

  it('refuses an X-Workspace-Id naming another workspace than the claims map to', async () => {
    const response = await post('/mcp', await auth.sign(claims()), { 'x-workspace-id': 'globex' });
    expect(response.status).toBe(403);
  });

  describe('refuses a bad token with 401 and the reason in WWW-Authenticate', () => {
    const cases: Array<{ name: string; token: () => Promise<string>; description: () => string }> = [
      {
        name: 'a wrong audience',
        token: () => auth.sign(claims({ aud: 'https://other.example.com/mcp' })),
        description: () => `The access token's audience is not this resource; request it with resource=${base}/mcp.`,
      },
      {
        name: 'an expired token',
        token: () => auth.sign(claims({ exp: 1_700_000_000, iat: 1_699_990_000 })),
        description: () => 'The access token expired at 2023-11-14T22:13:20.000Z.',
      },
      {
        name: 'a token not valid yet',
        token: () => auth.sign(claims({ nbf: 4_102_444_800 })),
        description: () => 'The access token is not valid before 2100-01-01T00:00:00.000Z.',
      },
      {
        name: 'a token signed by another key with the same kid',
        token: async () => auth.sign(claims(), { key: (await generateKeyPair('ES256')).privateKey }),
        description: () => `The access token is not signed by a key of ${auth.issuer}.`,
      },
      {
        name: 'a token signed by a key the JWKS does not have',
        token: async () => auth.sign(claims(), { kid: 'key-9', key: (await generateKeyPair('ES256')).privateKey }),
        description: () => `The access token is not signed by a key of ${auth.issuer}.`,
      },
      {
        name: 'a token of another issuer',
        token: () => auth.sign(claims({ iss: 'https://evil.example.com' })),
        description: () => `The access token was issued by "https://evil.example.com", not by ${auth.issuer}.`,
      },
      {
        name: "a token with alg 'none'",
        token: async () => {
          const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
          return `${header}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}.`;
        },
        description: () =>
          "The access token's algorithm is not accepted; use one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519.",
      },
      {
        name: 'an HMAC token keyed with the public JWK',
        token: async () => {
          const secret = new TextEncoder().encode(JSON.stringify(await (await fetch(`${auth.issuer}/jwks`)).json()));
          return new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', kid: 'key-1' }).sign(secret);
        },
        description: () =>
          "The access token's algorithm is not accepted; use one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519.",
      },
      {
        name: 'a token without exp',
        token: () => auth.sign(claims({ exp: undefined })),
        description: () => "The access token has no 'exp' claim.",
      },
      {
        name: 'a token whose workspace claim maps to no workspace',
        token: () => auth.sign(claims({ org: 'org-initech' })),
        description: () => "The access token's 'org' claim (\"org-initech\") maps to no workspace of this server.",
      },
      {
        name: 'a token without the workspace claim',
        token: () => auth.sign(claims({ org: undefined })),
        description: () => "The access token has no 'org' claim (a string), which picks its workspace.",
      },
      {
        name: 'a token whose workspace claim is an object',
        token: () => auth.sign(claims({ org: { id: 'org-acme' } })),
        description: () => "The access token has no 'org' claim (a string), which picks its workspace.",
      },
      {
        name: 'a JWT-shaped string that is not JSON',
        token: async () => 'bm90.anNvbg.c2ln',
        description: () => 'The access token is malformed.',
      },
    ];
    for (const { name, token, description } of cases) {
      it(name, async () => {
        const response = await post('/mcp', await token());
        expect(response.status).toBe(401);
        expect(response.header).toBe(
          `Bearer error="invalid_token", error_description="${description().replaceAll('"', '?')}", resource_metadata="${base}/.well-known/oauth-protected-resource"`,
        );
        expect(JSON.parse(response.body)).toEqual({ error: { code: 'UNAUTHORIZED', message: description() } });
        expect(response.body).not.toContain('acme_ledger');
      });
    }
  });

  it("keeps toolshed's own API tokens working beside OAuth, and OAuth tokens off the REST API", async () => {
    const { token } = await store.tokens.create('acme', { name: 'static' });
    const client = await connectWithToken('/mcp', token);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('acme_ledger');
    const wrong = await post('/mcp', 'tsk_not_a_token');
    expect(wrong.status).toBe(401);
    expect(wrong.header).toBe(
      `Bearer error="invalid_token", error_description="The API token is malformed, unknown or revoked.", resource_metadata="${base}/.well-known/oauth-protected-resource"`,
    );
    const rest = await fetch(`${base}/api/tools`, {
      headers: { authorization: `Bearer ${await auth.sign(claims())}`, 'x-workspace-id': 'acme' },
    });
    expect(rest.status).toBe(401);
  });
});

describe('Claude Desktop through mcp-remote, with OAuth', () => {
  let home: string;
  let child: ChildProcessWithoutNullStreams | undefined;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'toolshed-mcp-remote-oauth-'));
  });
  afterAll(() => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  });

  it('runs the authorization-code flow (the user approves in the browser), then lists and calls tools', async () => {
    const started = startMcpRemote(`${base}/mcp`, ['--static-oauth-client-info', '{"client_id":"desktop"}'], home, {
      // No browser here: the test plays the user, opening the URL mcp-remote prints.
      BROWSER: 'false',
      DISPLAY: '',
    });
    child = started.child;
    const initialized = exchange(child, [DESKTOP_INITIALIZE], 1);
    await expect
      .poll(() => /Please authorize this client by visiting:\s+(\S+)/.exec(started.stderr())?.[1], { timeout: 30_000 })
      .toBeDefined();
    const authorizeUrl = /Please authorize this client by visiting:\s+(\S+)/.exec(started.stderr())?.[1] as string;
    expect(new URL(authorizeUrl).searchParams.get('resource')).toBe(`${base}/mcp`);
    // The authorization server approves and redirects the browser to mcp-remote's callback on loopback.
    const approved = await fetch(authorizeUrl, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const callback = await fetch(approved.headers.get('location') as string);
    expect(callback.status).toBe(200);
    await initialized;
    const answers = await exchange(
      child,
      [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'acme_ledger', arguments: {} } },
      ],
      3,
    );
    const list = answers.find((answer) => answer.id === 2) as { result: { tools: Array<{ name: string }> } };
    expect(list.result.tools.map((tool) => tool.name)).toEqual(['acme_ledger', 'acme_notes']);
    const call = answers.find((answer) => answer.id === 3) as { result: { content: unknown[] } };
    expect(call.result.content).toEqual([{ type: 'text', text: 'acme ledger: 3 entries' }]);
  }, 90_000);
});

describe('an authorization server that cannot be reached', () => {
  it('answers 503 naming the JWKS, not a refused token', async () => {
    const harness2 = sqliteHarness();
    const store2 = await harness2.open();
    await store2.migrate();
    const closed = createHttpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = createServer({
      store: store2,
      builtins: false,
      oauth: { ...oauth, jwksUri: `http://127.0.0.1:${port}/jwks` },
    });
    await down.listen({ host: '127.0.0.1', port: 0 });
    try {
      const url = `http://127.0.0.1:${(down.server.address() as AddressInfo).port}`;
      const response = await fetch(`${url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await auth.sign(claims({ aud: `${url}/mcp` }))}` },
        body: INITIALIZE,
      });
      expect(response.status).toBe(503);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('UNAVAILABLE');
      expect(body.error.message).toMatch(/^Access tokens cannot be checked now: the authorization server's JWKS/);
    } finally {
      await down.close();
      await store2.close();
      await harness2.teardown();
    }
  });
});
