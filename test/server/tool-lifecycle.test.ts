import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltins } from '../../src/builtins/index.js';
import { createServer } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { postgresHarness, type ServerStoreHarness, sqliteHarness } from './server-harness.js';

interface Tenant {
  id: string;
  token: string;
  headers: Record<string, string>;
}

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

const ORIGIN = 'examples/toolshed.yaml';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
});

/** Resolves on the client's next `notifications/tools/list_changed`, or rejects after 5 s. */
function nextListChanged(client: Client): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no notifications/tools/list_changed within 5 s')), 5_000);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function defineLifecycleCases(harness: ServerStoreHarness): void {
  let store: ToolshedStore;
  let app: FastifyInstance;
  let base: string;
  let fake: Server;
  let fakeBase: string;
  /** The paths the fake upstream API was called on, in order. */
  const hits: string[] = [];
  let counter = 0;
  const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${(counter++).toString(36)}`;

  beforeAll(async () => {
    store = await harness.open();
    await store.migrate();
    await store.tools.upsertBuiltins(createBuiltins());
    fake = createHttpServer((request, response) => {
      hits.push(request.url ?? '');
      request.resume();
      request.on('end', () => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ data: { path: request.url } }));
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    fakeBase = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    app = createServer({ store, restTool: { guard: { allowHosts: [new URL(fakeBase).host] } } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }, 30_000);

  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
    await app?.close();
    await new Promise<void>((resolve) => (fake === undefined ? resolve() : fake.close(() => resolve())));
    await store?.close();
    await harness.teardown();
  }, 30_000);

  async function tenant(): Promise<Tenant> {
    const workspace = await store.workspaces.create({ id: unique('ws'), name: 'Lifecycle' });
    const { token } = await store.tokens.create(workspace.id, { name: 'test' });
    return { id: workspace.id, token, headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspace.id } };
  }

  /** A request with a JSON body (`raw`: text sent as it is). */
  async function rest(owner: Tenant, method: string, path: string, body?: unknown, raw = false): Promise<Reply> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? owner.headers : { ...owner.headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: raw ? (body as string) : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
  }

  async function connect(path: string, token: string): Promise<Client> {
    const client = new Client({ name: 'toolshed-lifecycle-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(path, base), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  function restTool(id: string, extra: Record<string, unknown> = {}) {
    return {
      id,
      type: 'rest_api',
      description: 'Search the company knowledge base.',
      endpoint: `${fakeBase}/v1/search`,
      method: 'POST',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      request: { body: { query: '{query}' } },
      response: { path: 'data.path' },
      ...extra,
    };
  }

  async function createRestTool(owner: Tenant, extra: Record<string, unknown> = {}): Promise<string> {
    const id = unique('api');
    const created = await rest(owner, 'POST', '/api/tools', restTool(id, extra));
    expect(created.status).toBe(201);
    return id;
  }

  async function createCodeTool(owner: Tenant): Promise<string> {
    const id = unique('code');
    await store.tools.createWorkspaceTool(owner.id, {
      id,
      description: 'Add two numbers.',
      parametersSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      handlerKey: 'python',
      category: 'math',
      config: { type: 'python', code: 'def main(a, b):\n    return a + b\n' },
      source: 'code',
    });
    return id;
  }

  async function createAgent(owner: Tenant, name = 'Research'): Promise<string> {
    const created = await rest(owner, 'POST', '/api/agents', { name });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  /**
   * The configuration's tools and its agent, as `toolshed serve --config` syncs them; the agent's id
   * (agent ids are unique in the database) is returned.
   */
  async function syncConfiguration(owner: Tenant): Promise<string> {
    const assistant = unique('assistant');
    const tool = (name: string) => ({
      name,
      description: `The ${name} tool.`,
      category: 'text',
      inputSchema: { type: 'object' as const, properties: {} },
    });
    await store.tools.sync(owner.id, {
      origin: ORIGIN,
      tools: [
        { ...tool('word_count'), source: 'config' },
        { ...tool('slugify'), source: 'module' },
        { ...tool('files__read'), source: 'mcp:files' },
      ],
    });
    await store.agents.sync(owner.id, {
      origin: ORIGIN,
      agents: [{ id: assistant, name: 'Assistant', tools: [{ toolId: 'word_count' }, { toolId: 'calculator' }] }],
    });
    return assistant;
  }

  describe('PATCH /api/tools/:id', () => {
    it('changes a REST tool: metadata, tags and endpoint, re-validated; calls go to the new endpoint', async () => {
      const owner = await tenant();
      const id = await createRestTool(owner, { tags: ['search'] });
      const before = await rest(owner, 'GET', `/api/tools/${id}`);
      expect(before.body).toMatchObject({ source: 'api', origin: null, tags: ['search'], category: 'api' });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const patched = await rest(owner, 'PATCH', `/api/tools/${id}`, {
        description: 'Search the wiki.',
        when_to_use: 'For questions about internal projects.',
        category: 'knowledge',
        tags: ['search', 'wiki'],
        annotations: { read_only: true },
        endpoint: `${fakeBase}/v2/search`,
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        id,
        description: 'Search the wiki.',
        when_to_use: 'For questions about internal projects.',
        category: 'knowledge',
        tags: ['search', 'wiki'],
        annotations: { read_only: true, destructive: false, idempotent: false, open_world: true },
        requires_approval: false,
        source: 'api',
        created_at: before.body.created_at,
      });
      expect((patched.body.updated_at as string) > (before.body.updated_at as string)).toBe(true);
      expect((await rest(owner, 'GET', `/api/tools/${id}`)).body).toEqual({
        ...patched.body,
        requires: { env: [] },
        available: true,
      });
      const exported = await rest(owner, 'GET', `/api/tools/${id}/export?format=openai`);
      expect(exported.body.tools).toMatchObject([{ function: { name: id, description: 'Search the wiki.' } }]);
      const called = await rest(owner, 'POST', `/api/tools/${id}/call`, { arguments: { query: 'holidays' } });
      expect(called.body).toMatchObject({ status: 'success', data: '/v2/search' });
      // null removes an optional field; the rest of the definition stays.
      const cleared = await rest(owner, 'PATCH', `/api/tools/${id}`, { when_to_use: null, category: null });
      expect(cleared.body).toMatchObject({ when_to_use: null, category: 'api', description: 'Search the wiki.' });
    });

    it("changes a code tool's description, tags, hints and parameters", async () => {
      const owner = await tenant();
      const id = await createCodeTool(owner);
      const patched = await rest(owner, 'PATCH', `/api/tools/${id}`, {
        id,
        title: 'Adder',
        description: 'Add two integers.',
        tags: ['math'],
        annotations: { read_only: true, idempotent: true },
        requires_approval: true,
        parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        id,
        name: 'Adder',
        description: 'Add two integers.',
        tags: ['math'],
        source: 'code',
        annotations: { read_only: true, destructive: false, idempotent: true, open_world: false },
        requires_approval: true,
        parameters_schema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } },
      });
      const stored = await store.tools.get(owner.id, id);
      expect(stored?.config).toEqual({ type: 'python', code: 'def main(a, b):\n    return a + b\n' });
      const hintsOnly = await rest(owner, 'PATCH', `/api/tools/${id}`, { annotations: {} });
      // Hints left out return to a code tool's defaults; the approval stays.
      expect(hintsOnly.body).toMatchObject({
        annotations: { read_only: true, destructive: false, idempotent: false, open_world: false },
        requires_approval: true,
      });
      // New code is checked in the sandbox as at creation: refused, it leaves the stored code as it was.
      const code = await rest(owner, 'PATCH', `/api/tools/${id}`, { code: 'import os' });
      expect(code.status).toBe(400);
      const error = code.body.error as { code: string; message: string; details: { field: string } };
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'code' } });
      expect(error.message).toMatch(
        /^'code' raised ImportError on line 1 when its top level ran: module 'os' is not allowed/,
      );
      expect((await store.tools.get(owner.id, id))?.config).toEqual({
        type: 'python',
        code: 'def main(a, b):\n    return a + b\n',
      });
      const unknown = await rest(owner, 'PATCH', `/api/tools/${id}`, { surprise: 1 });
      expect((unknown.body.error as { message: string }).message).toBe(
        "Unknown field 'surprise'; a code tool can change: title, description, when_to_use, category, tags, annotations, requires_approval, parameters, input_examples, code.",
      );
    });

    it("tells an agent's MCP session when one of its tools changed, with the new description", async () => {
      const owner = await tenant();
      const id = await createRestTool(owner);
      const agent = await createAgent(owner);
      expect((await rest(owner, 'POST', `/api/agents/${agent}/tools`, { tool_id: id })).status).toBe(201);
      const client = await connect(`/mcp/agents/${agent}`, owner.token);
      expect((await client.listTools()).tools.map((tool) => [tool.name, tool.description])).toEqual([
        [id, 'Search the company knowledge base.'],
      ]);
      const changed = nextListChanged(client);
      expect((await rest(owner, 'PATCH', `/api/tools/${id}`, { description: 'Search the wiki.' })).status).toBe(200);
      await changed;
      expect((await client.listTools()).tools.map((tool) => [tool.name, tool.description])).toEqual([
        [id, 'Search the wiki.'],
      ]);
    });
  });

  describe('DELETE /api/tools/:id', () => {
    it('deletes a REST tool with its attachments; the MCP sessions of its agents are told', async () => {
      const owner = await tenant();
      const id = await createRestTool(owner);
      const agent = await createAgent(owner);
      const bystander = await createAgent(owner, 'Bystander');
      for (const tool_id of [id, 'calculator']) {
        expect((await rest(owner, 'POST', `/api/agents/${agent}/tools`, { tool_id })).status).toBe(201);
      }
      expect((await rest(owner, 'POST', `/api/agents/${bystander}/tools`, { tool_id: id })).status).toBe(201);
      const client = await connect(`/mcp/agents/${agent}`, owner.token);
      const other = await connect(`/mcp/agents/${bystander}`, owner.token);
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['calculator', id].sort());
      const changed = nextListChanged(client);
      const otherChanged = nextListChanged(other);
      expect(await rest(owner, 'DELETE', `/api/tools/${id}`)).toEqual({ status: 204, body: {} });
      await Promise.all([changed, otherChanged]);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['calculator']);
      // The last tool went: the bystander keeps an empty view, never the whole workspace.
      expect((await other.listTools()).tools).toEqual([]);
      const gone = await client.callTool({ name: id, arguments: { query: 'x' } });
      expect(gone.isError).toBe(true);
      expect((await rest(owner, 'GET', `/api/tools/${id}`)).status).toBe(404);
      expect((await rest(owner, 'GET', `/api/agents/${agent}/tools`)).body).toMatchObject({
        fallback: false,
        tools: [expect.objectContaining({ id: 'calculator' })],
      });
      expect((await rest(owner, 'DELETE', `/api/tools/${id}`)).body).toEqual({
        error: { code: 'NOT_FOUND', message: `Tool '${id}' does not exist in this workspace.` },
      });
    });

    it('deletes a code tool', async () => {
      const owner = await tenant();
      const id = await createCodeTool(owner);
      expect((await rest(owner, 'DELETE', `/api/tools/${id}`)).status).toBe(204);
      expect(await store.tools.get(owner.id, id)).toBeUndefined();
    });
  });

  describe('read-only tools and agents', () => {
    it("refuses to change or delete a built-in or a configuration's tool with READ_ONLY, writing nothing", async () => {
      const owner = await tenant();
      await syncConfiguration(owner);
      const refusals: Array<[string, string, Record<string, unknown>]> = [
        ['read_file', "Tool 'read_file' is a built-in; it cannot be changed.", { source: 'builtin', origin: null }],
        [
          'word_count',
          `Tool 'word_count' is defined in ${ORIGIN}; edit it there.`,
          { source: 'config', origin: ORIGIN },
        ],
        ['slugify', `Tool 'slugify' is defined in ${ORIGIN}; edit it there.`, { source: 'module', origin: ORIGIN }],
        [
          'files__read',
          `Tool 'files__read' is imported from the MCP server 'files' named in ${ORIGIN}; change it on that server or in ${ORIGIN}.`,
          { source: 'mcp:files', origin: ORIGIN },
        ],
      ];
      for (const [id, message, details] of refusals) {
        const before = await rest(owner, 'GET', `/api/tools/${id}`);
        expect(before.body).toMatchObject(details);
        for (const [method, body] of [
          ['PATCH', { description: 'Mine now.' }],
          ['PATCH', { description: 7, surprise: true }],
          ['PATCH', '[1, 2]'],
          ['DELETE', undefined],
        ] as const) {
          const refused = await rest(owner, method, `/api/tools/${id}`, body, typeof body === 'string');
          expect(refused, `${method} ${id}`).toEqual({
            status: 409,
            body: { error: { code: 'READ_ONLY', message, details } },
          });
        }
        expect((await rest(owner, 'GET', `/api/tools/${id}`)).body).toEqual(before.body);
      }
    });

    it('shows config agents with their file and refuses to change them, their tools, or delete them', async () => {
      const owner = await tenant();
      const assistant = await syncConfiguration(owner);
      const listed = await rest(owner, 'GET', '/api/agents');
      expect(listed.body.agents).toEqual([
        {
          id: assistant,
          name: 'Assistant',
          description: null,
          source: 'config',
          origin: ORIGIN,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ]);
      const message = `Agent '${assistant}' is defined in ${ORIGIN}; edit it there.`;
      const attempts: Array<[string, string, unknown]> = [
        ['PATCH', `/api/agents/${assistant}`, { name: 'Mine' }],
        ['PATCH', `/api/agents/${assistant}`, { name: 42, extra: true }],
        ['DELETE', `/api/agents/${assistant}`, undefined],
        ['POST', `/api/agents/${assistant}/tools`, { tool_id: 'read_file' }],
        ['DELETE', `/api/agents/${assistant}/tools/word_count`, undefined],
        ['DELETE', `/api/agents/${assistant}/tools/calculator`, undefined],
      ];
      for (const [method, path, body] of attempts) {
        expect(await rest(owner, method, path, body), `${method} ${path}`).toEqual({
          status: 409,
          body: { error: { code: 'READ_ONLY', message, details: { source: 'config', origin: ORIGIN } } },
        });
      }
      expect((await rest(owner, 'GET', `/api/agents/${assistant}`)).body).toEqual((listed.body.agents as unknown[])[0]);
      const tools = await rest(owner, 'GET', `/api/agents/${assistant}/tools`);
      expect((tools.body.tools as Array<{ id: string }>).map((tool) => tool.id)).toEqual(['calculator', 'word_count']);
    });
  });

  describe('PATCH /api/agents/:agentId', () => {
    it('renames an agent and changes or clears its description', async () => {
      const owner = await tenant();
      const agent = await createAgent(owner);
      const before = await rest(owner, 'GET', `/api/agents/${agent}`);
      expect(before.body).toMatchObject({ source: 'api', origin: null, updated_at: before.body.created_at });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const renamed = await rest(owner, 'PATCH', `/api/agents/${agent}`, {
        name: 'Research (EU)',
        description: 'Finds European sources.',
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({
        ...before.body,
        name: 'Research (EU)',
        description: 'Finds European sources.',
        updated_at: expect.any(String),
      });
      expect((renamed.body.updated_at as string) > (before.body.updated_at as string)).toBe(true);
      const cleared = await rest(owner, 'PATCH', `/api/agents/${agent}`, { description: null });
      expect(cleared.body).toMatchObject({ name: 'Research (EU)', description: null });
      expect((await rest(owner, 'GET', '/api/agents')).body.agents).toEqual([cleared.body]);
    });
  });

  describe('bad input', () => {
    it('refuses malformed tool patches with 400 naming the field, writing nothing', async () => {
      const owner = await tenant();
      const api = await createRestTool(owner);
      const code = await createCodeTool(owner);
      const restFields =
        'type, title, description, when_to_use, category, tags, input_examples, endpoint, method, auth, parameters, request, response, timeout, max_response_bytes, allow_private_network, annotations, execution, requires_approval, cli';
      const cases: Array<[string, unknown, string, string, boolean?]> = [
        [api, '[1, 2]', 'body', 'The request body must be a JSON object, got an array.', true],
        [api, '"text"', 'body', 'The request body must be a JSON object, got "text".', true],
        [api, '{"description": ', 'body', 'The request body is not valid JSON', true],
        [api, {}, 'body', `The request body changes nothing; send one or more of: ${restFields}.`],
        [api, { surprise: 1 }, 'surprise', `Unknown field 'surprise'; a REST tool can change: ${restFields}.`],
        [
          api,
          { id: 'renamed_tool' },
          'id',
          `A tool's id cannot change; create a tool named "renamed_tool" with POST /api/tools and delete '${api}'.`,
        ],
        [api, { description: 7 }, 'description', "Invalid REST tool: 'description' must be a string, got number 7."],
        [
          api,
          { description: null },
          'description',
          "Invalid REST tool: missing required field 'description' (a string).",
        ],
        [api, { endpoint: 'file:///etc/passwd' }, 'endpoint', 'Invalid REST tool: '],
        [api, { method: 'BREW' }, 'method', 'Invalid REST tool: '],
        [api, { tags: 'search' }, 'tags', 'Invalid REST tool: \'tags\' must be an array, got string "search".'],
        [
          api,
          { tags: Array.from({ length: 65 }, (_, index) => `t${index}`) },
          'tags',
          'tags has 65 tags; the limit is 64.',
        ],
        [api, { annotations: { read_only: 'yes' } }, 'annotations', 'Invalid REST tool: '],
        [
          api,
          { annotations: { read_onyl: true } },
          'annotations',
          "Invalid REST tool: unknown field 'annotations.read_onyl' (did you mean 'annotations.read_only'?); allowed fields of 'annotations': read_only, destructive, idempotent, open_world.",
        ],
        [
          api,
          { input_examples: 'query: x' },
          'input_examples',
          'Invalid REST tool: \'input_examples\' must be an array, got string "query: x".',
        ],
        [
          api,
          { input_examples: Array.from({ length: 11 }, () => ({ query: 'x' })) },
          'input_examples',
          'Invalid REST tool: ',
        ],
        [
          api,
          { input_examples: [{ query: 'ok' }, { query: 7 }] },
          'input_examples[1]',
          "Invalid REST tool: input_examples[1] does not fit parameters: 'query' must be a string, got number 7.",
        ],
        [api, { parameters: { type: 'string' } }, 'parameters', 'Invalid REST tool: '],
        [
          api,
          { allow_private_network: true },
          'allow_private_network',
          "'allow_private_network' (true) is for operator config files only; a tool created through the API reaches public addresses only, so leave the field out.",
        ],
        [
          api,
          { auth: { type: 'bearer', token_env: 'HOME' } },
          'auth',
          'Environment variables are for operator config files, so \'auth.token_env\' ("HOME") is refused; store a workspace secret with PUT /api/secrets/HOME and reference it as "secret": "HOME".',
        ],
        [
          api,
          { description: 'x'.repeat(70_000) },
          'body',
          'A REST tool definition must be at most 65536 bytes as JSON.',
        ],
        [code, { description: '' }, 'description', 'Invalid tool patch: '],
        [code, { description: 'x'.repeat(70_000) }, 'description', 'Invalid tool patch: '],
        [code, { when_to_use: 5 }, 'when_to_use', 'Invalid tool patch: '],
        [code, { tags: ['ok', ''] }, 'tags', 'Invalid tool patch: '],
        [code, { tags: ['x'.repeat(101)] }, 'tags', 'Invalid tool patch: '],
        [code, { category: ['math'] }, 'category', 'Invalid tool patch: '],
        [code, { parameters: { type: 'object' } }, 'parameters', 'Invalid tool patch: '],
        [code, { requires_approval: 'yes' }, 'requires_approval', 'Invalid tool patch: '],
        [code, { endpoint: 'https://example.com' }, 'endpoint', "Unknown field 'endpoint'; a code tool can change: "],
        [
          code,
          { id: 'x' },
          'id',
          `A tool's id cannot change; create a tool named "x" with POST /api/tools and delete '${code}'.`,
        ],
      ];
      const before = [await store.tools.get(owner.id, api), await store.tools.get(owner.id, code)];
      for (const [id, body, field, message, raw] of cases) {
        const label = `${id === api ? 'api' : 'code'} ${JSON.stringify(body).slice(0, 60)}`;
        const response = await rest(owner, 'PATCH', `/api/tools/${id}`, body, raw === true);
        expect(response.status, label).toBe(400);
        const error = response.body.error as { code: string; message: string; details: { field: string } };
        expect([error.code, error.details.field], label).toEqual(['VALIDATION_ERROR', field]);
        if (message.endsWith(': ') || message.endsWith('JSON')) expect(error.message, label).toContain(message);
        else expect(error.message, label).toBe(message);
      }
      expect([await store.tools.get(owner.id, api), await store.tools.get(owner.id, code)]).toEqual(before);
    });

    it('refuses a definition no call could use, on POST and PATCH, naming the place and writing nothing', async () => {
      const owner = await tenant();
      const api = await createRestTool(owner);
      const code = await createCodeTool(owner);
      const string = (extra: Record<string, unknown>) => ({
        type: 'object',
        properties: { query: { type: 'string', ...extra } },
      });
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [
          { parameters: { type: 'object', properties: {}, required: 'query' } },
          'parameters.required',
          `Invalid REST tool: 'parameters.required' must be an array, got string "query".`,
        ],
        [
          { parameters: { type: 'object', properties: { query: { type: 'strung' } } } },
          'parameters.properties.query.type',
          `Invalid REST tool: 'parameters.properties.query.type' must be one of "array", "boolean", "integer", "null", "number", "object", "string", got string "strung"; did you mean "string"?`,
        ],
        [
          { parameters: { type: 'object', properties: { query: 5 } } },
          'parameters.properties.query',
          `Invalid REST tool: 'parameters.properties.query' must be an object or boolean, got number 5.`,
        ],
        [
          { parameters: string({ pattern: '(' }) },
          'parameters',
          "Invalid REST tool: 'parameters' cannot be used to check arguments: Invalid regular expression: /(/u: Unterminated group.",
        ],
        [
          { parameters: { type: 'object', properties: { query: { $ref: '#/$defs/nope' } } } },
          'parameters',
          "Invalid REST tool: 'parameters' cannot be used to check arguments: can't resolve reference #/$defs/nope from id #.",
        ],
        [
          { parameters: { type: 'object', properties: { query: { $ref: 'http://schemas.example.net/s.json' } } } },
          'parameters',
          "Invalid REST tool: 'parameters' cannot be used to check arguments: can't resolve reference http://schemas.example.net/s.json from id #.",
        ],
        [
          { parameters: string({ pattern: '^(?=.*\\d)\\w+$' }) },
          'parameters.properties.query.pattern',
          'Invalid REST tool: the pattern "^(?=.*\\\\d)\\\\w+$" at parameters/properties/query/pattern needs a lookaround or a backreference, which a tool defined through the API may not use (a crafted argument could make it run for seconds); write it without them.',
        ],
        [{ timeout: 1e308 }, 'timeout', "Invalid REST tool: 'timeout' must be <= 2147483, got number 1e+308."],
        [{ endpoint: 'https://' }, 'endpoint', `Invalid REST tool: 'endpoint' must be a URL, got "https://".`],
        [
          { endpoint: 'https://exa mple.com/' },
          'endpoint',
          `Invalid REST tool: 'endpoint' must be a URL, got "https://exa mple.com/".`,
        ],
        [
          { request: { headers: { 'X-A': 'a\r\nX-Injected: 1' } } },
          'request',
          'Invalid REST tool: \'request.headers.X-A\' must be a string matching /^[^\\r\\n\\u0000]*$/, got string "a\\r\\nX-Injected: 1".',
        ],
        [
          { request: { headers: { 'X A': 'b' } } },
          'request',
          "Invalid REST tool: 'request.headers' must be a string matching /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, got string \"X A\".",
        ],
      ];
      const before = await store.tools.get(owner.id, api);
      for (const [fields, field, message] of cases) {
        const label = JSON.stringify(fields).slice(0, 80);
        const created = await rest(owner, 'POST', '/api/tools', restTool(unique('bad'), fields));
        const patched = await rest(owner, 'PATCH', `/api/tools/${api}`, fields);
        for (const response of [created, patched]) {
          expect(response.status, label).toBe(400);
          const error = response.body.error as { code: string; message: string; details: { field: string } };
          expect([error.code, error.details.field], label).toEqual(['VALIDATION_ERROR', field]);
          if (message.endsWith(': ')) expect(error.message, label).toContain(message);
          else expect(error.message, label).toBe(message);
        }
      }
      expect(await store.tools.get(owner.id, api)).toEqual(before);
      const listed = (await rest(owner, 'GET', '/api/tools')).body.tools as Array<{ id: string }>;
      expect(listed.filter((tool) => tool.id.startsWith('bad_'))).toEqual([]);
      // A code tool's parameters are checked the same way.
      const codeBefore = await store.tools.get(owner.id, code);
      const risky = await rest(owner, 'PATCH', `/api/tools/${code}`, { parameters: string({ pattern: '^(\\w)\\1$' }) });
      expect(risky.body).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message:
            'Invalid tool patch: the pattern "^(\\\\w)\\\\1$" at parameters/properties/query/pattern needs a lookaround or a backreference, which a tool defined through the API may not use (a crafted argument could make it run for seconds); write it without them.',
          details: { field: 'parameters.properties.query.pattern' },
        },
      });
      expect(await store.tools.get(owner.id, code)).toEqual(codeBefore);
      // A pattern RE2 runs is kept, and a crafted argument is answered at once.
      const kept = await rest(owner, 'PATCH', `/api/tools/${api}`, { parameters: string({ pattern: '^(a+)+$' }) });
      expect(kept.status).toBe(200);
      const call = await rest(owner, 'POST', `/api/tools/${api}/call`, { arguments: { query: `${'a'.repeat(64)}!` } });
      expect(call.body).toMatchObject({ status: 'error', error: { code: 'INVALID_ARGUMENTS' } });
    });

    it("shows and exports a REST tool's input examples, and keeps them fitting its parameters", async () => {
      const owner = await tenant();
      const api = await createRestTool(owner, { input_examples: [{ query: 'holiday policy' }] });
      expect((await rest(owner, 'GET', `/api/tools/${api}`)).body.input_examples).toEqual([
        { query: 'holiday policy' },
      ]);
      const exported = await rest(owner, 'GET', `/api/tools/${api}/export?format=anthropic`);
      expect(exported.status).toBe(200);
      expect((exported.body.tools as Array<Record<string, unknown>>)[0]?.input_examples).toEqual([
        { query: 'holiday policy' },
      ]);
      // Parameters that the stored example no longer fits are refused, and nothing changes.
      const before = await store.tools.get(owner.id, api);
      const refused = await rest(owner, 'PATCH', `/api/tools/${api}`, {
        parameters: { type: 'object', properties: { query: { type: 'integer' } } },
      });
      expect(refused).toEqual({
        status: 400,
        body: {
          error: {
            code: 'VALIDATION_ERROR',
            message:
              'Invalid REST tool: input_examples[0] does not fit parameters: \'query\' must be an integer, got string "holiday policy".',
            details: { field: 'input_examples[0]' },
          },
        },
      });
      expect(await store.tools.get(owner.id, api)).toEqual(before);
      const removed = await rest(owner, 'PATCH', `/api/tools/${api}`, { input_examples: null });
      expect(removed.body.input_examples).toEqual([]);
    });

    it('gives a code tool input examples through PATCH, refusing ones its parameters do not fit', async () => {
      const owner = await tenant();
      const code = await createCodeTool(owner);
      const patched = await rest(owner, 'PATCH', `/api/tools/${code}`, { input_examples: [{ a: 2, b: 3 }] });
      expect([patched.status, patched.body.input_examples]).toEqual([200, [{ a: 2, b: 3 }]]);
      const before = await store.tools.get(owner.id, code);
      for (const [body, field, message] of [
        [
          { input_examples: [{ a: 'two' }] },
          'input_examples[0]',
          'Invalid tool patch: input_examples[0] does not fit parameters: \'a\' must be a number, got string "two".',
        ],
        [
          { parameters: { type: 'object', properties: { a: { type: 'string' } } } },
          'input_examples[0]',
          "Invalid tool patch: input_examples[0] does not fit parameters: 'a' must be a string, got number 2.",
        ],
        [{ input_examples: [7] }, 'input_examples', 'Invalid tool patch: '],
      ] as const) {
        const response = await rest(owner, 'PATCH', `/api/tools/${code}`, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        const error = response.body.error as { message: string; details: { field: string } };
        expect(error.details.field, JSON.stringify(body)).toBe(field);
        if (message.endsWith(': ')) expect(error.message).toContain(message);
        else expect(error.message).toBe(message);
      }
      expect(await store.tools.get(owner.id, code)).toEqual(before);
    });

    it('stores hostile text as plain text, and answers unknown, foreign and hostile ids with 404', async () => {
      const owner = await tenant();
      const intruder = await tenant();
      const api = await createRestTool(owner);
      const hostile = "Robert'); DROP TABLE tools;-- <script>alert(1)</script> \u202eevil\u202c 🧨";
      const patched = await rest(owner, 'PATCH', `/api/tools/${api}`, { description: hostile, tags: [hostile] });
      expect(patched.body).toMatchObject({ description: hostile, tags: [hostile] });
      expect((await rest(owner, 'GET', '/api/tools')).status).toBe(200);
      const before = await store.tools.get(owner.id, api);
      for (const id of [api, 'no_such_tool', 'constructor', '__proto__', 'Robert%27%29%3B%20DROP%20TABLE%20tools']) {
        for (const [method, body] of [
          ['PATCH', { description: 'Taken over.' }],
          ['DELETE', undefined],
        ] as const) {
          const response = await rest(intruder, method, `/api/tools/${id}`, body);
          expect(response, `${method} ${id}`).toEqual({
            status: 404,
            body: {
              error: {
                code: 'NOT_FOUND',
                message: `Tool '${decodeURIComponent(id)}' does not exist in this workspace.`,
              },
            },
          });
        }
      }
      expect(await store.tools.get(owner.id, api)).toEqual(before);
      // A misspelled id names the closest of the workspace's own tools, never another workspace's.
      for (const [method, body] of [
        ['PATCH', { description: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        expect(await rest(owner, method, `/api/tools/${api.slice(0, -1)}x`, body)).toEqual({
          status: 404,
          body: {
            error: {
              code: 'NOT_FOUND',
              message: `Tool '${api.slice(0, -1)}x' does not exist in this workspace. Did you mean '${api}'?`,
              details: { did_you_mean: [api] },
            },
          },
        });
        const foreign = await rest(intruder, method, `/api/tools/${api.slice(0, -1)}x`, body);
        expect(JSON.stringify(foreign.body)).not.toContain(api);
      }
    });

    it('refuses malformed agent patches with 400 naming the field; unknown and foreign agents are 404', async () => {
      const owner = await tenant();
      const intruder = await tenant();
      const agent = await createAgent(owner);
      const cases: Array<[unknown, string, string, boolean?]> = [
        ['[]', 'body', 'The request body must be a JSON object, got an array.', true],
        [{}, 'body', "The request body changes nothing; send 'name', 'description' or both."],
        [{ id: 'other' }, 'id', "Unknown field 'id'; allowed fields: name, description."],
        [{ name: 7 }, 'name', "'name' must be a non-empty string of at most 200 characters, got 7."],
        [{ name: '   ' }, 'name', '\'name\' must be a non-empty string of at most 200 characters, got "   ".'],
        [{ name: null }, 'name', "'name' must be a non-empty string of at most 200 characters, got null."],
        [
          { name: 'x'.repeat(201) },
          'name',
          `'name' must be a non-empty string of at most 200 characters, got "${'x'.repeat(57)}...".`,
        ],
        [
          { description: '' },
          'description',
          '\'description\' must be a non-empty string, or null to clear it, got "".',
        ],
        [
          { description: ['x'] },
          'description',
          "'description' must be a non-empty string, or null to clear it, got an array.",
        ],
        [
          { description: 'x'.repeat(70_000) },
          'description',
          `'description' must be a non-empty string of at most 65536 characters, got "${'x'.repeat(57)}...".`,
        ],
      ];
      for (const [body, field, message, raw] of cases) {
        const response = await rest(owner, 'PATCH', `/api/agents/${agent}`, body, raw === true);
        expect(response, JSON.stringify(body).slice(0, 60)).toEqual({
          status: 400,
          body: { error: { code: 'VALIDATION_ERROR', message, details: { field } } },
        });
      }
      for (const id of [agent, 'no-such-agent', 'constructor']) {
        expect(await rest(intruder, 'PATCH', `/api/agents/${id}`, { name: 'Taken over' })).toEqual({
          status: 404,
          body: { error: { code: 'NOT_FOUND', message: `Agent '${id}' does not exist in this workspace.` } },
        });
      }
      expect((await rest(owner, 'GET', `/api/agents/${agent}`)).body).toMatchObject({
        name: 'Research',
        description: null,
      });
    });
  });
}

for (const harness of [sqliteHarness(), postgresHarness()]) {
  describe(`tool and agent lifecycle over REST and MCP on ${harness.dialect}`, () => {
    defineLifecycleCases(harness);
  });
}
