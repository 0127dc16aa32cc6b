import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer } from '../../src/server/index.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../support/postgres-test-database.js';

const SECRET_KEY = Buffer.alloc(32, 5).toString('base64');
const NAME_RULE =
  'use 1-128 letters, digits and underscores, not starting with a digit (like an environment variable name).';

/** A loopback API that answers with whatever credential it was sent, in the ways a careless API does. */
class EchoApi {
  readonly requests: Array<{ url: string; headers: IncomingMessage['headers'] }> = [];
  #server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.#server = createHttpServer((request, response) => {
      this.requests.push({ url: request.url ?? '', headers: request.headers });
      const echo = [request.headers.authorization, request.headers['x-api-key'], request.url]
        .filter((part) => part !== undefined)
        .join(' | ');
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      request.resume();
      request.on('end', () => {
        if (path === '/text') {
          response.writeHead(200, { 'content-type': 'text/plain' });
          response.end(`You sent: ${echo}.`);
        } else if (path === '/fail') {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: `bad credentials ${echo}` }));
        } else {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              echo,
              nested: { list: [echo, { deeper: [`before ${echo} after`] }] },
              [echo]: 'the credential as a key',
            }),
          );
        }
      });
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  get host(): string {
    return new URL(this.url).host;
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.#server === undefined ? resolve() : this.#server.close(() => resolve()),
    );
  }
}

interface Tenant {
  id: string;
  token: string;
  headers: Record<string, string>;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${(counter++).toString(36)}`;

async function tenant(store: ToolshedStore): Promise<Tenant> {
  const workspace = await store.workspaces.create({ id: unique('ws'), name: 'Secrets test' });
  const { token } = await store.tokens.create(workspace.id, { name: 'test' });
  return { id: workspace.id, token, headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspace.id } };
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

function send(app: FastifyInstance, method: Method, url: string, headers: Record<string, string>, body?: unknown) {
  return app.inject({
    method,
    url,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

function restTool(id: string, endpoint: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    type: 'rest_api',
    description: 'Echo what the API was sent.',
    endpoint,
    method: 'POST',
    parameters: { type: 'object', properties: { query: { type: 'string' } } },
    auth: { type: 'bearer', secret: 'COMPANY_TOKEN' },
    ...extra,
  };
}

interface Database {
  dialect: 'sqlite' | 'postgres';
  /** A store on the test's database; `secretKey: ''` means none (a key file on SQLite). */
  open(secretKey: string): Promise<ToolshedStore>;
  /** Where a SQLite database keeps its own key. */
  keyFile?: string;
  close(): Promise<void>;
}

function sqliteDatabase(): Database {
  const folder = mkdtempSync(join(tmpdir(), 'toolshed-secrets-'));
  return {
    dialect: 'sqlite',
    open: (secretKey) => createStore(join(folder, 'toolshed.db'), { secretKey }),
    keyFile: join(folder, 'toolshed.db-secret.key'),
    async close() {
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

function postgresDatabase(): Database {
  let database: PostgresTestDatabase | undefined;
  return {
    dialect: 'postgres',
    async open(secretKey) {
      database ??= await createPostgresTestDatabase('toolshed_test', 'The secret route tests');
      return createStore(database.url, { secretKey, notifications: false });
    },
    async close() {
      await database?.drop();
    },
  };
}

for (const database of [sqliteDatabase(), postgresDatabase()]) {
  describe(`workspace secrets through the REST API on ${database.dialect}`, () => {
    const api = new EchoApi();
    const stores: ToolshedStore[] = [];
    const apps: FastifyInstance[] = [];
    let store: ToolshedStore;
    let app: FastifyInstance;

    async function serve(secretKey: string): Promise<{ store: ToolshedStore; app: FastifyInstance }> {
      const opened = await database.open(secretKey);
      stores.push(opened);
      await opened.migrate();
      const server = createServer({
        store: opened,
        builtins: false,
        mcp: false,
        webCatalog: false,
        restTool: { guard: { allowHosts: [api.host] } },
      });
      apps.push(server);
      return { store: opened, app: server };
    }

    beforeAll(async () => {
      await api.start();
      ({ store, app } = await serve(database.dialect === 'postgres' ? SECRET_KEY : ''));
    }, 30_000);

    afterAll(async () => {
      for (const each of apps) await each.close();
      for (const each of stores) await each.close();
      await api.stop();
      await database.close();
    }, 30_000);

    it('refuses a REST tool that reads the server environment or private networks, storing nothing', async () => {
      vi.stubEnv('TOOLSHED_TEST_DB_PASSWORD', 'db-password-that-must-stay-home');
      try {
        const owner = await tenant(store);
        const hits = api.requests.length;
        const cases: Array<[Record<string, unknown>, string, string]> = [
          [
            { auth: { type: 'bearer', token_env: 'TOOLSHED_TEST_DB_PASSWORD' } },
            'auth',
            `Environment variables are for operator config files, so 'auth.token_env' ("TOOLSHED_TEST_DB_PASSWORD") is refused; store a workspace secret with PUT /api/secrets/TOOLSHED_TEST_DB_PASSWORD and reference it as "secret": "TOOLSHED_TEST_DB_PASSWORD".`,
          ],
          [
            { auth: { type: 'header', name: 'X-Api-Key', value_env: 'TOOLSHED_TEST_DB_PASSWORD' } },
            'auth',
            `Environment variables are for operator config files, so 'auth.value_env' ("TOOLSHED_TEST_DB_PASSWORD") is refused; store a workspace secret with PUT /api/secrets/TOOLSHED_TEST_DB_PASSWORD and reference it as "secret": "TOOLSHED_TEST_DB_PASSWORD".`,
          ],
          [
            { auth: { type: 'query', name: 'key', value_env: 'SERPER_API_KEY' } },
            'auth',
            `Environment variables are for operator config files, so 'auth.value_env' ("SERPER_API_KEY") is refused; store a workspace secret with PUT /api/secrets/SERPER_API_KEY and reference it as "secret": "SERPER_API_KEY".`,
          ],
          [
            { auth: { type: 'bearer', secret: 'COMPANY_TOKEN', token_env: 'TOOLSHED_TEST_DB_PASSWORD' } },
            'auth',
            `Environment variables are for operator config files, so 'auth.token_env' ("TOOLSHED_TEST_DB_PASSWORD") is refused; store a workspace secret with PUT /api/secrets/TOOLSHED_TEST_DB_PASSWORD and reference it as "secret": "TOOLSHED_TEST_DB_PASSWORD".`,
          ],
          [
            { allow_private_network: true },
            'allow_private_network',
            "'allow_private_network' (true) is for operator config files only; a tool created through the API reaches public addresses only, so leave the field out.",
          ],
          [
            { auth: { type: 'bearer' } },
            'auth',
            "'auth.secret' is required: the name of the workspace secret that holds the value (store one with PUT /api/secrets/NAME).",
          ],
          [
            { auth: { type: 'bearer', secret: 'my-token' } },
            'auth',
            'Invalid REST tool: \'auth.secret\' must be a string matching /^[A-Za-z_][A-Za-z0-9_]{0,127}$/, got string "my-token".',
          ],
        ];
        for (const [extra, field, message] of cases) {
          const response = await send(app, 'POST', '/api/tools', owner.headers, restTool('leaky_tool', api.url, extra));
          expect(response.statusCode, message).toBe(400);
          expect(response.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message, details: { field } } });
        }
        const listed = (await send(app, 'GET', '/api/tools', owner.headers)).json() as {
          tools: Array<{ id: string; scope: string }>;
        };
        expect(listed.tools.filter((tool) => tool.scope === 'workspace')).toEqual([]);
        expect((await send(app, 'GET', '/api/tools/leaky_tool', owner.headers)).statusCode).toBe(404);
        expect(api.requests.length).toBe(hits);
      } finally {
        vi.unstubAllEnvs();
      }
    });

    it('sets, lists, overwrites and deletes secrets, never answering with a value', async () => {
      const owner = await tenant(store);
      const created = await send(app, 'PUT', '/api/secrets/COMPANY_TOKEN', owner.headers, { value: 'tok_first_value' });
      expect(created.statusCode).toBe(201);
      const longest = `L${'_'.repeat(127)}`;
      expect((await send(app, 'PUT', `/api/secrets/${longest}`, owner.headers, { value: 'v' })).statusCode).toBe(201);
      expect((await send(app, 'DELETE', `/api/secrets/${longest}`, owner.headers)).statusCode).toBe(204);
      const first = created.json() as { name: string; created_at: string; updated_at: string };
      expect(first).toEqual({
        name: 'COMPANY_TOKEN',
        created_at: expect.stringMatching(/Z$/),
        updated_at: first.created_at,
      });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const replaced = await send(app, 'PUT', '/api/secrets/COMPANY_TOKEN', owner.headers, {
        value: 'tok_second_value',
      });
      expect(replaced.statusCode).toBe(200);
      const second = replaced.json() as typeof first;
      expect(second).toEqual({ name: 'COMPANY_TOKEN', created_at: first.created_at, updated_at: expect.any(String) });
      expect(second.updated_at > first.updated_at).toBe(true);
      await send(app, 'PUT', '/api/secrets/A_SECOND', owner.headers, { value: 'tok_other_value' });
      const listed = await send(app, 'GET', '/api/secrets', owner.headers);
      expect(listed.statusCode).toBe(200);
      expect(listed.json()).toEqual({
        secrets: [
          { name: 'A_SECOND', created_at: expect.any(String), updated_at: expect.any(String) },
          { name: 'COMPANY_TOKEN', created_at: first.created_at, updated_at: expect.any(String) },
        ],
      });
      for (const response of [created, replaced, listed]) expect(response.body).not.toMatch(/tok_\w+_value/);
      expect(await store.secrets.reveal(owner.id, 'COMPANY_TOKEN')).toBe('tok_second_value');

      const deleted = await send(app, 'DELETE', '/api/secrets/COMPANY_TOKEN', owner.headers);
      expect(deleted.statusCode).toBe(204);
      expect(deleted.body).toBe('');
      const again = await send(app, 'DELETE', '/api/secrets/COMPANY_TOKEN', owner.headers);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual({
        error: { code: 'NOT_FOUND', message: "Secret 'COMPANY_TOKEN' does not exist in this workspace." },
      });
      expect((await send(app, 'GET', '/api/secrets', owner.headers)).json()).toEqual({
        secrets: [{ name: 'A_SECOND', created_at: expect.any(String), updated_at: expect.any(String) }],
      });
    });

    it('refuses bad names and bodies with VALIDATION_ERROR naming the field, writing nothing', async () => {
      const owner = await tenant(store);
      const cases: Array<[Method, string, unknown, string, string]> = [
        ['PUT', '/api/secrets/my-token', { value: 'v' }, 'name', `Secret name "my-token" is invalid: ${NAME_RULE}`],
        ['PUT', '/api/secrets/1PASSWORD', { value: 'v' }, 'name', `Secret name "1PASSWORD" is invalid: ${NAME_RULE}`],
        [
          'PUT',
          `/api/secrets/${'A'.repeat(129)}`,
          { value: 'v' },
          'name',
          `Secret name "${'A'.repeat(57)}..." is invalid: ${NAME_RULE}`,
        ],
        ['DELETE', '/api/secrets/bad.name', undefined, 'name', `Secret name "bad.name" is invalid: ${NAME_RULE}`],
        ['DELETE', '/api/secrets/A/B', undefined, 'name', `Secret name "A/B" is invalid: ${NAME_RULE}`],
        ['PUT', '/api/secrets/', { value: 'v' }, 'name', `Secret name "" is invalid: ${NAME_RULE}`],
        [
          'PUT',
          '/api/secrets/TOKEN',
          'the-value-itself',
          'body',
          'The request body must be a JSON object like {"value": "..."}, got a string.',
        ],
        [
          'PUT',
          '/api/secrets/TOKEN',
          ['v'],
          'body',
          'The request body must be a JSON object like {"value": "..."}, got an array.',
        ],
        [
          'PUT',
          '/api/secrets/TOKEN',
          null,
          'body',
          'The request body must be a JSON object like {"value": "..."}, got null.',
        ],
        ['PUT', '/api/secrets/TOKEN', {}, 'value', "'value' is required: the secret's value, as a string."],
        ['PUT', '/api/secrets/TOKEN', { value: 42 }, 'value', "A secret's value must be a string, got a number."],
        ['PUT', '/api/secrets/TOKEN', { value: ['v'] }, 'value', "A secret's value must be a string, got an array."],
        ['PUT', '/api/secrets/TOKEN', { value: '' }, 'value', "A secret's value must not be empty."],
        [
          'PUT',
          '/api/secrets/TOKEN',
          { value: 'x'.repeat(8193) },
          'value',
          "A secret's value is 8193 bytes; the limit is 8192 bytes.",
        ],
        [
          'PUT',
          '/api/secrets/TOKEN',
          { value: 'v', note: 'x' },
          'note',
          "Unknown field 'note'; the body has one field, 'value'.",
        ],
      ];
      for (const [method, url, body, field, message] of cases) {
        const response = await send(app, method, url, owner.headers, body);
        expect(response.statusCode, message).toBe(400);
        expect(response.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message, details: { field } } });
      }
      const unparsable = await app.inject({
        method: 'PUT',
        url: '/api/secrets/TOKEN',
        headers: { ...owner.headers, 'content-type': 'application/json' },
        payload: '{"value": ',
      });
      expect(unparsable.statusCode).toBe(400);
      expect(unparsable.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR', details: { field: 'body' } } });
      expect((await send(app, 'GET', '/api/secrets', owner.headers)).json()).toEqual({ secrets: [] });
    });

    it("keeps each workspace's secrets to itself: listing, deleting and using them", async () => {
      const owner = await tenant(store);
      const intruder = await tenant(store);
      await send(app, 'PUT', '/api/secrets/COMPANY_TOKEN', owner.headers, { value: 'owner_token_4711' });
      for (const headers of [owner.headers, intruder.headers]) {
        const response = await send(app, 'POST', '/api/tools', headers, restTool('company_echo', `${api.url}/json`));
        expect(response.statusCode).toBe(201);
      }

      expect((await send(app, 'GET', '/api/secrets', intruder.headers)).json()).toEqual({ secrets: [] });
      const theirs = await send(app, 'DELETE', '/api/secrets/COMPANY_TOKEN', intruder.headers);
      const never = await send(app, 'DELETE', '/api/secrets/NEVER_EXISTED', intruder.headers);
      expect(theirs.statusCode).toBe(404);
      expect(theirs.body.replace('COMPANY_TOKEN', 'NEVER_EXISTED')).toBe(never.body);

      const called = await send(app, 'POST', '/api/tools/company_echo/call', intruder.headers, { arguments: {} });
      expect(called.json()).toMatchObject({
        status: 'error',
        error: {
          code: 'MISSING_CREDENTIALS',
          message: `Tool 'company_echo' needs the workspace secret 'COMPANY_TOKEN', which is not set in workspace '${intruder.id}'.`,
          hint: `Store it with PUT /api/secrets/COMPANY_TOKEN and the body {"value": "..."} (or 'toolshed secret set COMPANY_TOKEN --workspace ${intruder.id} --value-stdin'), then call again.`,
        },
      });
      expect(called.body).not.toContain('owner_token_4711');
      const detail = await send(app, 'GET', '/api/tools/company_echo', intruder.headers);
      expect(detail.json()).toMatchObject({ requires: { env: [], secrets: [{ name: 'COMPANY_TOKEN', set: false }] } });

      const hits = api.requests.length;
      const own = await send(app, 'POST', '/api/tools/company_echo/call', owner.headers, { arguments: {} });
      expect(own.json()).toMatchObject({ status: 'success', data: { echo: '[redacted] | /json' } });
      expect(api.requests.slice(hits).map((request) => request.headers.authorization)).toEqual([
        'Bearer owner_token_4711',
      ]);
      expect((await send(app, 'GET', '/api/tools/company_echo', owner.headers)).json()).toMatchObject({
        requires: { env: [], secrets: [{ name: 'COMPANY_TOKEN', set: true }] },
      });
      expect((await send(app, 'DELETE', '/api/secrets/COMPANY_TOKEN', owner.headers)).statusCode).toBe(204);
      const gone = await send(app, 'POST', '/api/tools/company_echo/call', owner.headers, { arguments: {} });
      expect(gone.json()).toMatchObject({ status: 'error', error: { code: 'MISSING_CREDENTIALS' } });
    });

    it('answers the secret routes with 401 or 403 for missing, bad and foreign tokens', async () => {
      const owner = await tenant(store);
      const intruder = await tenant(store);
      await send(app, 'PUT', '/api/secrets/OWNER_ONLY', owner.headers, { value: 'owner_only_value' });
      const routes: Array<[Method, string, unknown?]> = [
        ['GET', '/api/secrets'],
        ['PUT', '/api/secrets/OWNER_ONLY', { value: 'overwritten' }],
        ['DELETE', '/api/secrets/OWNER_ONLY'],
      ];
      const credentials: Array<[Record<string, string>, number]> = [
        [{ 'x-workspace-id': owner.id }, 401],
        [{ authorization: 'Bearer tsk_nope', 'x-workspace-id': owner.id }, 401],
        [{ authorization: `Bearer ${intruder.token}`, 'x-workspace-id': owner.id }, 403],
      ];
      for (const [method, url, body] of routes) {
        for (const [headers, status] of credentials) {
          const response = await send(app, method, url, headers, body);
          expect(response.statusCode, `${method} ${url}`).toBe(status);
          expect(response.body).not.toContain('OWNER_ONLY');
        }
      }
      expect(await store.secrets.reveal(owner.id, 'OWNER_ONLY')).toBe('owner_only_value');
    });

    it(
      database.dialect === 'postgres'
        ? 'answers 503 naming TOOLSHED_SECRET_KEY when the server has no key'
        : 'keeps a key file beside the database when the server has no key',
      async () => {
        const keyless = database.dialect === 'postgres' ? await serve('') : { store, app };
        const owner = await tenant(keyless.store);
        const response = await send(keyless.app, 'PUT', '/api/secrets/TOKEN', owner.headers, { value: 'v' });
        if (database.dialect === 'postgres') {
          expect(response.statusCode).toBe(503);
          expect(response.json()).toEqual({
            error: {
              code: 'UNAVAILABLE',
              message:
                "Workspace secrets on PostgreSQL need the TOOLSHED_SECRET_KEY environment variable (32 bytes as base64 or hex), the same on every server process; make one with 'openssl rand -base64 32' and restart.",
              request_id: response.headers['x-request-id'],
            },
          });
          expect(await keyless.store.secrets.list(owner.id)).toEqual([]);
        } else {
          expect(response.statusCode).toBe(201);
          expect(statSync(database.keyFile ?? '').mode & 0o777).toBe(0o600);
          expect(await store.secrets.reveal(owner.id, 'TOKEN')).toBe('v');
        }
      },
    );
  });
}

describe('a secret that an API echoes back', () => {
  const SECRET = 'sk-live/Echo+Secret=42';
  const FORMS = [SECRET, encodeURIComponent(SECRET), 'sk-live%2FEcho%2BSecret%3D42', 'Echo+Secret', 'Echo%2BSecret'];
  const api = new EchoApi();
  let folder: string;
  let store: ToolshedStore;
  let app: FastifyInstance;
  let base: string;
  let owner: Tenant;
  let logged = '';
  const write = process.stdout.write;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'toolshed-secret-echo-'));
    await api.start();
    // Everything the server logs (request lines, errors) goes through stdout, captured here.
    process.stdout.write = ((chunk: string | Uint8Array) => {
      logged += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    }) as typeof process.stdout.write;
    // As toolshed serve opens it: the call log goes through the journal beside the database.
    store = await createStore(join(folder, 'toolshed.db'), { secretKey: '', callJournal: true });
    await store.migrate();
    app = createServer({ store, builtins: false, logger: true, restTool: { guard: { allowHosts: [api.host] } } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    owner = await tenant(store);
  }, 30_000);

  afterAll(async () => {
    process.stdout.write = write;
    await app?.close();
    await store?.close();
    await api.stop();
    rmSync(folder, { recursive: true, force: true });
  }, 30_000);

  function expectNoSecret(text: string, where: string): void {
    for (const form of FORMS) expect(text, `${where} holds ${form}`).not.toContain(form);
  }

  it('appears in no REST or MCP result, call log row, database file or log line', async () => {
    expect((await send(app, 'PUT', '/api/secrets/ECHO_TOKEN', owner.headers, { value: SECRET })).statusCode).toBe(201);
    const tools: Array<[string, string, Record<string, unknown>]> = [
      ['json_echo', '/json', { type: 'bearer', secret: 'ECHO_TOKEN' }],
      ['text_echo', '/text', { type: 'bearer', secret: 'ECHO_TOKEN' }],
      ['fail_echo', '/fail', { type: 'bearer', secret: 'ECHO_TOKEN' }],
      ['header_echo', '/json', { type: 'header', name: 'X-Api-Key', secret: 'ECHO_TOKEN' }],
      ['query_echo', '/json', { type: 'query', name: 'key', secret: 'ECHO_TOKEN' }],
    ];
    for (const [id, path, auth] of tools) {
      const created = await send(app, 'POST', '/api/tools', owner.headers, restTool(id, `${api.url}${path}`, { auth }));
      expect(created.statusCode, id).toBe(201);
    }

    const rest: Record<string, string> = {};
    for (const [id] of tools) {
      const response = await send(app, 'POST', `/api/tools/${id}/call`, owner.headers, { arguments: { query: 'x' } });
      rest[id] = response.body;
    }
    const client = new Client({ name: 'toolshed-secret-echo-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', base), {
        requestInit: { headers: { authorization: `Bearer ${owner.token}` } },
      }),
    );
    const mcp: Record<string, string> = {};
    try {
      for (const [id] of tools)
        mcp[id] = JSON.stringify(await client.callTool({ name: id, arguments: { query: 'x' } }));
    } finally {
      await client.close();
    }

    // The API did get the secret, every way it is sent.
    const sent = api.requests.map((request) => JSON.stringify(request));
    expect(sent.filter((request) => request.includes(`Bearer ${SECRET}`))).toHaveLength(6);
    expect(sent.filter((request) => request.includes(`"x-api-key":"${SECRET}"`))).toHaveLength(2);
    expect(sent.filter((request) => request.includes('key=sk-live%2FEcho%2BSecret%3D42'))).toHaveLength(2);

    // What came back has every echo in its place, redacted.
    expect(JSON.parse(rest.json_echo ?? '')).toMatchObject({
      status: 'success',
      data: {
        echo: '[redacted] | /json',
        nested: { list: ['[redacted] | /json', { deeper: ['before [redacted] | /json after'] }] },
        '[redacted] | /json': 'the credential as a key',
      },
    });
    expect(JSON.parse(rest.text_echo ?? '')).toMatchObject({ data: 'You sent: [redacted] | /text.' });
    expect(JSON.parse(rest.fail_echo ?? '')).toMatchObject({
      status: 'error',
      error: {
        code: 'EXECUTION_FAILED',
        message: 'The API answered 500 Internal Server Error: {"error":"bad credentials [redacted] | /fail"}',
      },
    });
    expect(JSON.parse(rest.header_echo ?? '')).toMatchObject({ data: { echo: '[redacted] | /json' } });
    expect(JSON.parse(rest.query_echo ?? '')).toMatchObject({ data: { echo: '/json?key=[redacted]' } });
    expect(mcp.fail_echo).toContain('bad credentials [redacted] | /fail');
    for (const [id] of tools) {
      expectNoSecret(rest[id] ?? '', `the REST result of ${id}`);
      expectNoSecret(mcp[id] ?? '', `the MCP result of ${id}`);
    }

    const calls = await send(app, 'GET', '/api/calls?limit=20', owner.headers);
    expect((calls.json() as { calls: unknown[] }).calls).toHaveLength(10);
    expectNoSecret(calls.body, 'GET /api/calls');
    const rows = await store.db.selectFrom('tool_calls').selectAll().where('workspace_id', '=', owner.id).execute();
    expect(rows).toHaveLength(10);
    expectNoSecret(JSON.stringify(rows), 'the tool_calls rows');
    const secretRows = await store.db.selectFrom('secrets').selectAll().execute();
    expectNoSecret(JSON.stringify(secretRows), 'the secrets rows');
    for (const file of readdirSync(folder)) {
      expectNoSecret(readFileSync(join(folder, file)).toString('latin1'), `the file ${file}`);
    }
    expect(readdirSync(folder)).toEqual(expect.arrayContaining(['toolshed.db', 'toolshed.db-secret.key']));

    expect(logged).toContain('"msg":"request completed"');
    expectNoSecret(logged, 'the server log');
  }, 30_000);
});

describe('an unusable secret key file', () => {
  it('tells the tenant what is wrong without the server’s folders, and the operator everything', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolshed-secret-key-'));
    const file = join(folder, 'service.db');
    const keyFile = `${file}-secret.key`;
    const store = await createStore(file);
    // Something that is not a key file where the key file goes, after the server started.
    mkdirSync(keyFile, { mode: 0o700 });
    const reported: unknown[] = [];
    const app = createServer({ store, builtins: false, webCatalog: false, onError: (error) => reported.push(error) });
    try {
      await store.migrate();
      await store.workspaces.create({ id: 'acme', name: 'Acme' });
      const { token } = await store.tokens.create('acme', { name: 't' });
      const response = await app.inject({
        method: 'PUT',
        url: '/api/secrets/TOKEN',
        headers: { authorization: `Bearer ${token}`, 'x-workspace-id': 'acme' },
        payload: { value: 'v' },
      });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({
        error: {
          code: 'UNAVAILABLE',
          message:
            "The secret key file 'service.db-secret.key' cannot be used: EISDIR: illegal operation on a directory, read. Fix its folder's permissions, or set TOOLSHED_SECRET_KEY.",
          request_id: response.headers['x-request-id'],
        },
      });
      expect(response.body).not.toContain(folder);
      expect(reported).toHaveLength(1);
      expect((reported[0] as Error).message).toContain(keyFile);
      expect(await store.secrets.list('acme')).toEqual([]);
    } finally {
      await app.close();
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
