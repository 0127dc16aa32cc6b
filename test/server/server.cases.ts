import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltins } from '../../src/builtins/index.js';
import { createServer } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import type { ServerStoreHarness } from './server-harness.js';

interface Tenant {
  id: string;
  token: string;
  tokenId: string;
  headers: Record<string, string>;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** The REST API cases, run once per dialect. */
export function defineServerCases(harness: ServerStoreHarness): void {
  let store: ToolshedStore;
  let app: FastifyInstance;
  let fake: Server;
  let fakeUrl: string;
  let fakeHits = 0;
  let counter = 0;
  const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${(counter++).toString(36)}`;

  beforeAll(async () => {
    store = await harness.open();
    await store.migrate();
    await store.tools.upsertBuiltins(createBuiltins());
    fake = createHttpServer((request, response) => {
      fakeHits += 1;
      let text = '';
      request.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      request.on('end', () => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ data: { echoed: text === '' ? null : JSON.parse(text) } }));
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/search`;
    // Workspace tools may not reach private addresses; the loopback fake is exempted by the operator.
    app = createServer({ store, restTool: { guard: { allowHosts: [new URL(fakeUrl).host] } } });
    await app.ready();
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    await new Promise<void>((resolve) => (fake === undefined ? resolve() : fake.close(() => resolve())));
    await store?.close();
    await harness.teardown();
  }, 30_000);

  async function tenant(): Promise<Tenant> {
    const workspace = await store.workspaces.create({ id: unique('ws'), name: 'Test' });
    const created = await store.tokens.create(workspace.id, { name: 'test' });
    return {
      id: workspace.id,
      token: created.token,
      tokenId: created.id,
      headers: { authorization: `Bearer ${created.token}`, 'x-workspace-id': workspace.id },
    };
  }

  function send(method: Method, url: string, headers: Record<string, string>, body?: unknown) {
    return app.inject({
      method,
      url,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  }

  function restTool(id: string, extra: Record<string, unknown> = {}) {
    return {
      id,
      type: 'rest_api',
      description: 'Search the company knowledge base.',
      endpoint: fakeUrl,
      method: 'POST',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      request: { body: { query: '{query}' } },
      response: { path: 'data.echoed' },
      ...extra,
    };
  }

  async function newAgent(owner: Tenant): Promise<string> {
    const response = await send('POST', '/api/agents', owner.headers, { name: 'Research' });
    expect(response.statusCode).toBe(201);
    return (response.json() as { id: string }).id;
  }

  describe('health and metrics', () => {
    it('answers /health without a token', async () => {
      const response = await app.inject({ method: 'GET', url: '/health' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ status: 'ok' });
    });

    it('exposes per-tool call counts and latency on /metrics', async () => {
      const owner = await tenant();
      await send('POST', '/api/tools/calculator/call', owner.headers, { arguments: { expression: '1+2' } });
      const response = await app.inject({ method: 'GET', url: '/metrics' });
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('toolshed_tool_calls_total{tool="calculator",status="success"}');
      expect(response.body).toContain('toolshed_tool_call_duration_seconds_bucket');
    });
  });

  describe('tools', () => {
    it('lists the global tools, optionally of one category, and gets one', async () => {
      const owner = await tenant();
      const all = await send('GET', '/api/tools', owner.headers);
      expect(all.statusCode).toBe(200);
      const ids = (all.json() as { tools: Array<{ id: string }> }).tools.map((tool) => tool.id);
      expect(ids).toEqual(expect.arrayContaining(['calculator', 'read_file', 'write_file']));
      const filesystem = await send('GET', '/api/tools?category=filesystem', owner.headers);
      const categories = (filesystem.json() as { tools: Array<{ category: string }> }).tools.map((t) => t.category);
      expect(new Set(categories)).toEqual(new Set(['filesystem']));
      const one = await send('GET', '/api/tools/read_file', owner.headers);
      expect(one.json()).toMatchObject({ id: 'read_file', scope: 'global', handler_key: 'read_file' });
      const missing = await send('GET', '/api/tools/no_such_tool', owner.headers);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    });

    it('creates a workspace REST tool and calls it through the API, logging the call', async () => {
      const owner = await tenant();
      const created = await send('POST', '/api/tools', owner.headers, restTool('my_company_api'));
      expect(created.statusCode).toBe(201);
      expect(created.json()).toMatchObject({ id: 'my_company_api', handler_key: 'http', scope: 'workspace' });
      const called = await send('POST', '/api/tools/my_company_api/call', owner.headers, {
        arguments: { query: 'holidays' },
      });
      expect(called.statusCode).toBe(200);
      expect(called.json()).toMatchObject({ status: 'success', data: { query: 'holidays' } });
      const calls = await send('GET', '/api/calls?limit=5', owner.headers);
      expect((calls.json() as { calls: unknown[] }).calls[0]).toMatchObject({
        tool_id: 'my_company_api',
        status: 'success',
      });
    });

    it('lets two workspaces create the same tool id without learning about each other', async () => {
      const first = await tenant();
      const second = await tenant();
      expect((await send('POST', '/api/tools', first.headers, restTool('my_company_api'))).statusCode).toBe(201);
      const other = await send('POST', '/api/tools', second.headers, restTool('my_company_api', { description: 'B' }));
      expect(other.statusCode).toBe(201);
      expect((await send('GET', '/api/tools/my_company_api', first.headers)).json()).toMatchObject({
        description: 'Search the company knowledge base.',
      });
      expect((await send('GET', '/api/tools/my_company_api', second.headers)).json()).toMatchObject({
        description: 'B',
      });
      const again = await send('POST', '/api/tools', first.headers, restTool('my_company_api'));
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ error: { code: 'ALREADY_EXISTS' } });
      expect((await send('POST', '/api/tools', first.headers, restTool('calculator'))).statusCode).toBe(409);
    });

    it('refuses malformed REST tools with VALIDATION_ERROR naming the field, writing nothing', async () => {
      const owner = await tenant();
      const cases: Array<[string, unknown]> = [
        ['id', { ...restTool('x'), id: 'Bad-Name' }],
        ['id', (({ id: _id, ...rest }) => rest)(restTool('x'))],
        ['endpoint', { ...restTool('bad_endpoint'), endpoint: 'ftp://example.com' }],
        ['method', { ...restTool('bad_method'), method: 'BREW' }],
        ['parameters', { ...restTool('bad_parameters'), parameters: { type: 'object', properties: 3 } }],
        ['description', { ...restTool('bad_description'), description: 7 }],
        ['surprise', { ...restTool('bad_extra'), surprise: true }],
        ['body', [1, 2]],
        ['body', { ...restTool('too_big'), description: 'x'.repeat(70_000) }],
      ];
      for (const [field, body] of cases) {
        const response = await send('POST', '/api/tools', owner.headers, body);
        expect(response.statusCode, field).toBe(400);
        expect(response.json(), field).toMatchObject({ error: { code: 'VALIDATION_ERROR', details: { field } } });
      }
      const listed = (await send('GET', '/api/tools', owner.headers)).json() as { tools: Array<{ scope: string }> };
      expect(listed.tools.filter((tool) => tool.scope === 'workspace')).toEqual([]);
      expect(fakeHits).toBeGreaterThanOrEqual(0);
    });

    it('runs the file built-ins on the workspace virtual filesystem', async () => {
      const first = await tenant();
      const second = await tenant();
      const write = await send('POST', '/api/tools/write_file/call', first.headers, {
        arguments: { path: '/notes.txt', content: 'secret of the first' },
      });
      expect(write.json()).toMatchObject({ status: 'success' });
      const read = await send('POST', '/api/tools/read_file/call', first.headers, {
        arguments: { path: '/notes.txt' },
      });
      expect(JSON.stringify(read.json())).toContain('secret of the first');
      const other = await send('POST', '/api/tools/read_file/call', second.headers, {
        arguments: { path: '/notes.txt' },
      });
      expect(other.json()).toMatchObject({ status: 'error' });
      expect(JSON.stringify(other.json())).not.toContain('secret of the first');
    });

    it('answers 404 for calling an unknown tool or one the agent does not have', async () => {
      const owner = await tenant();
      expect((await send('POST', '/api/tools/nope/call', owner.headers, { arguments: {} })).statusCode).toBe(404);
      const agent = await newAgent(owner);
      await send('POST', `/api/agents/${agent}/tools`, owner.headers, { tool_id: 'read_file' });
      const refused = await send('POST', '/api/tools/calculator/call', owner.headers, {
        arguments: { expression: '1' },
        agent_id: agent,
      });
      expect(refused.statusCode).toBe(404);
    });

    it("names the closest of the workspace's own tools on a 404 for a misspelled tool id, never another's", async () => {
      const owner = await tenant();
      const other = await tenant();
      expect((await send('POST', '/api/tools', owner.headers, restTool('private_search'))).statusCode).toBe(201);
      const agent = await newAgent(owner);
      await send('POST', `/api/agents/${agent}/tools`, owner.headers, { tool_id: 'read_file' });
      const notFound = (message: string, closest?: string[]) => ({
        error: {
          code: 'NOT_FOUND',
          message,
          ...(closest === undefined ? {} : { details: { did_you_mean: closest } }),
        },
      });
      const cases: Array<[Method, string, Tenant, unknown, ReturnType<typeof notFound>]> = [
        [
          'GET',
          '/api/tools/calculater',
          owner,
          undefined,
          notFound("Tool 'calculater' does not exist in this workspace. Did you mean 'calculator'?", ['calculator']),
        ],
        [
          'GET',
          '/api/tools/private_serch',
          owner,
          undefined,
          notFound("Tool 'private_serch' does not exist in this workspace. Did you mean 'private_search'?", [
            'private_search',
          ]),
        ],
        [
          'GET',
          '/api/tools/private_serch',
          other,
          undefined,
          notFound("Tool 'private_serch' does not exist in this workspace."),
        ],
        [
          'GET',
          '/api/tools/calculater/export?format=openai',
          owner,
          undefined,
          notFound("Tool 'calculater' does not exist in this workspace. Did you mean 'calculator'?", ['calculator']),
        ],
        [
          'GET',
          '/api/tools/private_serch/export?format=mcp',
          other,
          undefined,
          notFound("Tool 'private_serch' does not exist in this workspace."),
        ],
        [
          'POST',
          '/api/tools/private_serch/call',
          owner,
          { arguments: { query: 'x' } },
          notFound("Tool 'private_serch' does not exist in this workspace. Did you mean 'private_search'?", [
            'private_search',
          ]),
        ],
        [
          'POST',
          '/api/tools/private_serch/call',
          other,
          { arguments: { query: 'x' } },
          notFound("Tool 'private_serch' does not exist in this workspace."),
        ],
        [
          'POST',
          '/api/tools/read_fil/call',
          owner,
          { arguments: { path: '/a' }, agent_id: agent },
          notFound(`Tool 'read_fil' is not available to agent '${agent}'. Did you mean 'read_file'?`, ['read_file']),
        ],
        // The agent's view is read_file alone: the workspace's calculator is not offered.
        [
          'POST',
          '/api/tools/calculater/call',
          owner,
          { arguments: {}, agent_id: agent },
          notFound(`Tool 'calculater' is not available to agent '${agent}'.`),
        ],
        [
          'POST',
          `/api/agents/${agent}/tools`,
          owner,
          { tool_id: 'private_serch' },
          notFound(`Tool 'private_serch' does not exist in workspace '${owner.id}'. Did you mean 'private_search'?`, [
            'private_search',
          ]),
        ],
        [
          'DELETE',
          `/api/agents/${agent}/tools/read_fil`,
          owner,
          undefined,
          notFound(`Tool 'read_fil' is not attached to agent '${agent}'. Did you mean 'read_file'?`, ['read_file']),
        ],
        [
          'DELETE',
          '/api/agents/agt_missing/tools/read_fil',
          owner,
          undefined,
          notFound("Tool 'read_fil' is not attached to agent 'agt_missing'."),
        ],
      ];
      for (const [method, url, who, body, expected] of cases) {
        const response = await send(method, url, who.headers, body);
        expect(response.statusCode, `${method} ${url}`).toBe(404);
        expect(response.json(), `${method} ${url}`).toEqual(expected);
      }
      // Another workspace attaching the name learns nothing of it either.
      const otherAgent = await newAgent(other);
      const theirs = await send('POST', `/api/agents/${otherAgent}/tools`, other.headers, { tool_id: 'private_serch' });
      expect(theirs.json()).toEqual(notFound(`Tool 'private_serch' does not exist in workspace '${other.id}'.`));
      // Nothing was attached or detached by the refused requests.
      expect((await send('GET', `/api/agents/${agent}/tools`, owner.headers)).json()).toEqual({
        fallback: false,
        tools: [expect.objectContaining({ id: 'read_file' })],
      });
      expect((await send('GET', `/api/agents/${otherAgent}/tools`, other.headers)).json()).toMatchObject({
        fallback: true,
      });
    });

    it('hands the attachment config to the tool and logs the agent', async () => {
      const owner = await tenant();
      const agent = await newAgent(owner);
      await send('POST', `/api/agents/${agent}/tools`, owner.headers, {
        tool_id: 'calculator',
        config: { precision: 3 },
      });
      const called = await send('POST', '/api/tools/calculator/call', owner.headers, {
        arguments: { expression: '2*21' },
        agent_id: agent,
      });
      expect(called.json()).toMatchObject({ status: 'success' });
      const calls = await send('GET', `/api/calls?agent_id=${agent}`, owner.headers);
      expect((calls.json() as { calls: unknown[] }).calls).toEqual([
        expect.objectContaining({ agent_id: agent, tool_id: 'calculator', status: 'success' }),
      ]);
      await send('POST', '/api/tools/list_files/call', owner.headers, { arguments: {} });
      const byTool = await send('GET', '/api/calls?tool_id=list_files', owner.headers);
      expect((byTool.json() as { calls: Array<{ tool_id: string }> }).calls.map((call) => call.tool_id)).toEqual([
        'list_files',
      ]);
      const both = await send('GET', `/api/calls?agent_id=${agent}&tool_id=list_files`, owner.headers);
      expect((both.json() as { calls: unknown[] }).calls).toEqual([]);
      expect((await send('GET', '/api/calls?tool_id=a&tool_id=b', owner.headers)).json()).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message: "'tool_id' must be given once, got an array.",
          details: { field: 'tool_id' },
        },
      });
      expect((await send('GET', '/api/calls?limit=0', owner.headers)).statusCode).toBe(400);
      expect((await send('GET', '/api/calls?limit=abc', owner.headers)).json()).toMatchObject({
        error: { details: { field: 'limit' } },
      });
    });
  });

  describe('agents and attachments', () => {
    it('creates, lists, gets and deletes agents with server-made ids', async () => {
      const owner = await tenant();
      const created = await send('POST', '/api/agents', owner.headers, { name: 'Research', description: 'Digs' });
      expect(created.statusCode).toBe(201);
      const agent = created.json() as { id: string };
      expect(agent).toMatchObject({ name: 'Research', description: 'Digs' });
      expect((await send('GET', '/api/agents', owner.headers)).json()).toEqual({
        agents: [expect.objectContaining({ id: agent.id })],
      });
      expect((await send('GET', `/api/agents/${agent.id}`, owner.headers)).statusCode).toBe(200);
      expect((await send('DELETE', `/api/agents/${agent.id}`, owner.headers)).statusCode).toBe(204);
      expect((await send('GET', `/api/agents/${agent.id}`, owner.headers)).statusCode).toBe(404);
      expect((await send('DELETE', `/api/agents/${agent.id}`, owner.headers)).statusCode).toBe(404);
    });

    it('attaches with config, lists with fallback, refuses duplicates and detaches', async () => {
      const owner = await tenant();
      const agent = await newAgent(owner);
      const fallback = (await send('GET', `/api/agents/${agent}/tools`, owner.headers)).json() as {
        fallback: boolean;
        tools: unknown[];
      };
      expect(fallback.fallback).toBe(true);
      expect(fallback.tools.length).toBeGreaterThan(0);
      const attached = await send('POST', `/api/agents/${agent}/tools`, owner.headers, {
        tool_id: 'read_file',
        config: { default_limit: 20 },
      });
      expect(attached.statusCode).toBe(201);
      expect(attached.json()).toMatchObject({ id: 'read_file', config: { default_limit: 20 } });
      const again = await send('POST', `/api/agents/${agent}/tools`, owner.headers, { tool_id: 'read_file' });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ error: { code: 'ALREADY_EXISTS' } });
      const list = (await send('GET', `/api/agents/${agent}/tools`, owner.headers)).json();
      expect(list).toEqual({
        fallback: false,
        tools: [expect.objectContaining({ id: 'read_file', config: { default_limit: 20 } })],
      });
      expect((await send('POST', `/api/agents/${agent}/tools`, owner.headers, { tool_id: 'no_such' })).statusCode).toBe(
        404,
      );
      expect(
        (await send('POST', '/api/agents/agt_missing/tools', owner.headers, { tool_id: 'read_file' })).statusCode,
      ).toBe(404);
      expect((await send('DELETE', `/api/agents/${agent}/tools/read_file`, owner.headers)).statusCode).toBe(204);
      expect((await send('DELETE', `/api/agents/${agent}/tools/read_file`, owner.headers)).statusCode).toBe(404);
    });

    it('exports the agent tools for every provider and refuses other formats', async () => {
      const owner = await tenant();
      const agent = await newAgent(owner);
      await send('POST', `/api/agents/${agent}/tools`, owner.headers, { tool_id: 'calculator' });
      for (const format of ['openai', 'anthropic', 'gemini', 'mcp']) {
        const response = await send('GET', `/api/agents/${agent}/export?format=${format}`, owner.headers);
        expect(response.statusCode, format).toBe(200);
        const body = response.json() as { format: string; tools: unknown[] };
        expect(body.format).toBe(format);
        expect(JSON.stringify(body.tools)).toContain('calculator');
        expect(JSON.stringify(body.tools)).not.toContain('read_file');
      }
      const bad = await send('GET', `/api/agents/${agent}/export?format=cobol`, owner.headers);
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error: { code: 'VALIDATION_ERROR', details: { field: 'format' } } });
      expect((await send('GET', `/api/agents/${agent}/export`, owner.headers)).statusCode).toBe(400);
      const typo = await send('GET', `/api/agents/${agent}/export?fromat=openai`, owner.headers);
      expect(typo.json().error.message).toBe(
        "Unknown query parameter 'fromat'; did you mean 'format'? Allowed: format.",
      );
      expect((await send('GET', '/api/agents/agt_missing/export?format=openai', owner.headers)).statusCode).toBe(404);
    });

    it('renders the agent prompt docs as markdown', async () => {
      const owner = await tenant();
      const agent = await newAgent(owner);
      await send('POST', `/api/agents/${agent}/tools`, owner.headers, { tool_id: 'calculator' });
      const response = await send('GET', `/api/agents/${agent}/prompt`, owner.headers);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('text/markdown');
      expect(response.body).toContain('calculator');
      expect((await send('GET', '/api/agents/agt_missing/prompt', owner.headers)).statusCode).toBe(404);
    });
  });

  describe('search, requirements and per-tool exports', () => {
    it('ranks tools for q with the BM25 search, within the category filter', async () => {
      const owner = await tenant();
      const search = async (query: string) => {
        const response = await send('GET', `/api/tools?${query}`, owner.headers);
        expect(response.statusCode, query).toBe(200);
        return (response.json() as { tools: Array<{ id: string; score: number; category: string }> }).tools;
      };
      const math = await search('q=evaluate%20a%20math%20expression');
      expect(math[0]).toMatchObject({ id: 'calculator', category: 'math', scope: 'global' });
      expect(math[0]?.score).toBeGreaterThan(0);
      expect((await search('q=calc'))[0]?.id).toBe('calculator');
      const files = await search('q=read%20a%20file&category=filesystem');
      expect(files[0]?.id).toBe('read_file');
      expect(new Set(files.map((tool) => tool.category))).toEqual(new Set(['filesystem']));
      const outside = await search('q=read%20a%20file&category=math');
      expect(outside.map((tool) => tool.category)).toEqual(outside.map(() => 'math'));
      expect(outside.map((tool) => tool.id)).not.toContain('read_file');
      expect(await search('q=zzqxv')).toEqual([]);
      const blank = await search('q=%20%20');
      expect(blank.map((tool) => tool.id)).toEqual(expect.arrayContaining(['calculator', 'read_file']));
    });

    it("finds the workspace's own REST tools, and never another workspace's", async () => {
      const owner = await tenant();
      const other = await tenant();
      await send('POST', '/api/tools', owner.headers, restTool('holiday_lookup', { description: 'Look up holidays.' }));
      const mine = await send('GET', '/api/tools?q=holidays', owner.headers);
      expect((mine.json() as { tools: Array<{ id: string }> }).tools.map((tool) => tool.id)).toContain(
        'holiday_lookup',
      );
      const theirs = await send('GET', '/api/tools?q=holidays', other.headers);
      expect(theirs.statusCode).toBe(200);
      expect(theirs.body).not.toContain('holiday_lookup');
    });

    it('refuses a repeated or oversized q with VALIDATION_ERROR', async () => {
      const owner = await tenant();
      const repeated = await send('GET', '/api/tools?q=a&q=b', owner.headers);
      expect(repeated.statusCode).toBe(400);
      expect(repeated.json()).toEqual({
        error: { code: 'VALIDATION_ERROR', message: "'q' must be given once, got an array.", details: { field: 'q' } },
      });
      const oversized = await send('GET', `/api/tools?q=${'a'.repeat(201)}`, owner.headers);
      expect(oversized.statusCode).toBe(400);
      expect(oversized.json()).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message: "'q' must be at most 200 characters, got 201; search with fewer words.",
          details: { field: 'q' },
        },
      });
      expect((await send('GET', `/api/tools?q=${'a'.repeat(200)}`, owner.headers)).statusCode).toBe(200);
      const categories = await send('GET', '/api/tools?category=a&category=b', owner.headers);
      expect(categories.json()).toMatchObject({ error: { details: { field: 'category' } } });
      // A misspelt filter is refused, not ignored (the whole list would look filtered).
      for (const [query, message] of [
        ['categroy=math', "Unknown query parameter 'categroy'; did you mean 'category'? Allowed: category, q."],
        [`${'x'.repeat(300)}=1`, `Unknown query parameter '${'x'.repeat(79)}…'; allowed: category, q.`],
      ]) {
        const unknown = await send('GET', `/api/tools?${query}`, owner.headers);
        expect(unknown.statusCode, query).toBe(400);
        expect(unknown.json().error.message, query).toBe(message);
      }
    });

    it('refuses an empty category, and a category list never stands in for the whole list', async () => {
      const owner = await tenant();
      const empty = await send('GET', '/api/tools?category=', owner.headers);
      expect(empty.statusCode).toBe(400);
      expect(empty.json()).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message: "'category' must name a category; leave it out to list every tool.",
          details: { field: 'category' },
        },
      });
      // The store's own list of the empty category is kept apart from the whole list.
      expect(await store.tools.list(owner.id, { category: '' })).toEqual([]);
      const all = await store.tools.list(owner.id);
      expect(all.length).toBeGreaterThan(0);
      expect((await send('GET', '/api/tools', owner.headers)).json()).toMatchObject({
        tools: expect.arrayContaining([expect.objectContaining({ id: 'calculator' })]),
      });
      const call = await send('POST', '/api/tools/calculator/call', owner.headers, {
        arguments: { expression: '1+1' },
      });
      expect(call.json()).toMatchObject({ status: 'success', data: { result: 2 } });
    });

    it('shows whether each required environment variable is set, never its value', async () => {
      const owner = await tenant();
      const saved = process.env.SERPER_API_KEY;
      try {
        delete process.env.SERPER_API_KEY;
        const unset = await send('GET', '/api/tools/serper_search', owner.headers);
        expect(unset.json()).toMatchObject({
          requires: { env: [{ name: 'SERPER_API_KEY', url: 'https://serper.dev', set: false }] },
        });
        process.env.SERPER_API_KEY = '';
        const empty = await send('GET', '/api/tools/serper_search', owner.headers);
        expect(empty.json()).toMatchObject({ requires: { env: [{ name: 'SERPER_API_KEY', set: false }] } });
        process.env.SERPER_API_KEY = 'secret-value-123';
        const set = await send('GET', '/api/tools/serper_search', owner.headers);
        expect(set.json()).toMatchObject({ requires: { env: [{ name: 'SERPER_API_KEY', set: true }] } });
        expect(set.body).not.toContain('secret-value-123');
      } finally {
        if (saved === undefined) delete process.env.SERPER_API_KEY;
        else process.env.SERPER_API_KEY = saved;
      }
      expect((await send('GET', '/api/tools/calculator', owner.headers)).json()).toMatchObject({
        requires: { env: [] },
      });
    });

    it('exports one tool for every provider and refuses other formats', async () => {
      const owner = await tenant();
      const expectations: Record<string, unknown> = {
        openai: [{ type: 'function', function: expect.objectContaining({ name: 'calculator' }) }],
        anthropic: [expect.objectContaining({ name: 'calculator', input_schema: expect.any(Object) })],
        mcp: [expect.objectContaining({ name: 'calculator', inputSchema: expect.any(Object) })],
      };
      for (const format of ['openai', 'anthropic', 'gemini', 'mcp']) {
        const response = await send('GET', `/api/tools/calculator/export?format=${format}`, owner.headers);
        expect(response.statusCode, format).toBe(200);
        const body = response.json() as { format: string; tools: unknown[]; warnings: unknown[] };
        expect(body.format).toBe(format);
        expect(Array.isArray(body.warnings), format).toBe(true);
        expect(JSON.stringify(body.tools), format).toContain('calculator');
        expect(JSON.stringify(body.tools), format).not.toContain('read_tool_output');
        if (format in expectations) expect(body.tools, format).toEqual(expectations[format]);
      }
      const bad = await send('GET', '/api/tools/calculator/export?format=cobol', owner.headers);
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message: "'format' must be one of openai, anthropic, gemini, mcp.",
          details: { field: 'format' },
        },
      });
      expect((await send('GET', '/api/tools/calculator/export?format=a&format=b', owner.headers)).statusCode).toBe(400);
      const extra = await send('GET', '/api/tools/calculator/export?format=openai&strict=true', owner.headers);
      expect(extra.json()).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message: "Unknown query parameter 'strict'; allowed: format.",
          details: { field: 'strict' },
        },
      });
      const missing = await send('GET', '/api/tools/no_such_tool/export?format=openai', owner.headers);
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({
        error: { code: 'NOT_FOUND', message: "Tool 'no_such_tool' does not exist in this workspace." },
      });
    });

    it("exports a workspace's REST tool only to that workspace", async () => {
      const owner = await tenant();
      const other = await tenant();
      await send('POST', '/api/tools', owner.headers, restTool('private_search'));
      const mine = await send('GET', '/api/tools/private_search/export?format=anthropic', owner.headers);
      expect(mine.statusCode).toBe(200);
      expect(JSON.stringify(mine.json())).toContain('private_search');
      const theirs = await send('GET', '/api/tools/private_search/export?format=anthropic', other.headers);
      expect(theirs.statusCode).toBe(404);
      expect(
        (await send('GET', '/api/tools/private_search/export?format=anthropic', { 'x-workspace-id': owner.id }))
          .statusCode,
      ).toBe(401);
    });
  });

  describe('bad bodies', () => {
    it('refuses bad bodies on every write route with VALIDATION_ERROR naming the field', async () => {
      const owner = await tenant();
      const agent = await newAgent(owner);
      const cases: Array<[string, string, unknown, string]> = [
        ['/api/agents', 'name', {}, 'missing name'],
        ['/api/agents', 'name', { name: 7 }, 'wrong type'],
        ['/api/agents', 'id', { name: 'A', id: 'mine' }, 'client id'],
        ['/api/agents', 'description', { name: 'A', description: ['x'] }, 'wrong type'],
        ['/api/agents', 'body', '{"name": ', 'invalid JSON'],
        ['/api/agents', 'body', '[]', 'array'],
        [`/api/agents/${agent}/tools`, 'tool_id', {}, 'missing tool_id'],
        [`/api/agents/${agent}/tools`, 'tool_id', { tool_id: 42 }, 'wrong type'],
        [`/api/agents/${agent}/tools`, 'tool_id', { tool_id: 'Not A Name' }, 'malformed'],
        [`/api/agents/${agent}/tools`, 'config', { tool_id: 'read_file', config: 'x' }, 'config type'],
        [`/api/agents/${agent}/tools`, 'config', { tool_id: 'read_file', config: { b: 'x'.repeat(70_000) } }, 'huge'],
        [`/api/agents/${agent}/tools`, 'body', '{"tool_id"', 'invalid JSON'],
        ['/api/tools/calculator/call', 'arguments', { arguments: 5 }, 'arguments type'],
        ['/api/tools/calculator/call', 'agent_id', { arguments: {}, agent_id: 5 }, 'agent_id type'],
        ['/api/tools/calculator/call', 'body', 'not json', 'invalid JSON'],
        ['/api/approvals/appr_x', 'decision', { decision: 'maybe' }, 'decision'],
        ['/api/approvals/appr_x', 'decision', {}, 'missing decision'],
      ];
      for (const [url, field, body, label] of cases) {
        const response = await send('POST', url, owner.headers, body);
        expect(response.statusCode, label).toBe(400);
        expect(response.json(), label).toMatchObject({ error: { code: 'VALIDATION_ERROR', details: { field } } });
      }
      expect((await send('GET', '/api/agents', owner.headers)).json()).toEqual({
        agents: [expect.objectContaining({ id: agent })],
      });
      expect((await send('GET', `/api/agents/${agent}/tools`, owner.headers)).json()).toMatchObject({
        fallback: true,
      });
    });

    it('takes an empty body sent with Content-Type: application/json as no body', async () => {
      const owner = await tenant();
      const json = { ...owner.headers, 'content-type': 'application/json' };
      const empty = (method: Method, url: string) => app.inject({ method, url, headers: json, payload: '' });
      const agent = await newAgent(owner);
      await send('POST', `/api/agents/${agent}/tools`, owner.headers, { tool_id: 'calculator' });

      const called = await empty('POST', '/api/tools/list_files/call');
      expect(called.statusCode).toBe(200);
      expect(called.json()).toMatchObject({ status: 'success' });
      expect((await empty('DELETE', `/api/agents/${agent}/tools/calculator`)).statusCode).toBe(204);
      expect((await empty('DELETE', `/api/agents/${agent}`)).statusCode).toBe(204);
      expect((await send('GET', `/api/agents/${agent}`, owner.headers)).statusCode).toBe(404);

      // A route that needs a body says so, as it does without the header; nothing is written.
      const created = await empty('POST', '/api/agents');
      expect(created.statusCode).toBe(400);
      expect(created.json()).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message: 'The request body must be a JSON object, got nothing.',
          details: { field: 'body' },
        },
      });
      expect((await send('GET', '/api/agents', owner.headers)).json()).toEqual({ agents: [] });
      // Not empty is still JSON: blanks and prototype keys are refused as before.
      for (const payload of [' ', '{"name": "A", "__proto__": {"admin": true}}']) {
        const refused = await app.inject({ method: 'POST', url: '/api/agents', headers: json, payload });
        expect(refused.statusCode, payload).toBe(400);
        expect(refused.json(), payload).toMatchObject({
          error: { code: 'VALIDATION_ERROR', details: { field: 'body' } },
        });
      }
      expect((await send('GET', '/api/agents', owner.headers)).json()).toEqual({ agents: [] });
    });

    it('answers 413 for a body over 1 MB', async () => {
      const owner = await tenant();
      const response = await send('POST', '/api/agents', owner.headers, { name: 'x'.repeat(1_100_000) });
      expect(response.statusCode).toBe(413);
      expect(response.json()).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    });
  });

  describe('isolation', () => {
    it('answers every route with 401, 403 or 404 and never shows another workspace', async () => {
      const owner = await tenant();
      const intruder = await tenant();
      const revoked = await tenant();
      await store.tokens.revoke(revoked.id, revoked.tokenId);
      const agent = await newAgent(owner);
      await send('POST', '/api/tools', owner.headers, restTool('owner_secret_api'));
      await send('POST', `/api/agents/${agent}/tools`, owner.headers, { tool_id: 'owner_secret_api' });
      await send('POST', '/api/tools/owner_secret_api/call', owner.headers, {
        arguments: { query: 'x' },
        agent_id: agent,
      });
      const routes: Array<[Method, string, unknown?]> = [
        ['GET', '/api/tools'],
        ['GET', '/api/tools/owner_secret_api'],
        ['GET', '/api/tools/owner_secret_api/export?format=openai'],
        ['GET', '/api/tools?q=owner%20secret'],
        ['POST', '/api/tools', restTool('another_tool')],
        ['POST', '/api/tools/owner_secret_api/call', { arguments: { query: 'x' } }],
        ['PATCH', '/api/tools/owner_secret_api', { description: 'Taken over.' }],
        ['DELETE', '/api/tools/owner_secret_api'],
        ['GET', '/api/agents'],
        ['PATCH', `/api/agents/${agent}`, { name: 'Taken over' }],
        ['POST', '/api/agents', { name: 'Sneaky' }],
        ['GET', `/api/agents/${agent}`],
        ['DELETE', `/api/agents/${agent}`],
        ['GET', `/api/agents/${agent}/tools`],
        ['POST', `/api/agents/${agent}/tools`, { tool_id: 'read_file' }],
        ['DELETE', `/api/agents/${agent}/tools/owner_secret_api`],
        ['GET', `/api/agents/${agent}/export?format=openai`],
        ['GET', `/api/agents/${agent}/prompt`],
        ['GET', `/api/calls?agent_id=${agent}`],
        ['POST', '/api/approvals/appr_0123', { decision: 'approve' }],
      ];
      const credentials: Array<[string, Record<string, string>, number]> = [
        ['no token', { 'x-workspace-id': owner.id }, 401],
        ['not bearer', { authorization: `Basic ${owner.token}`, 'x-workspace-id': owner.id }, 401],
        ['bad token', { authorization: 'Bearer tsk_nope', 'x-workspace-id': owner.id }, 401],
        ['tampered token', { authorization: `Bearer ${owner.token.slice(0, -2)}xx`, 'x-workspace-id': owner.id }, 401],
        ['revoked token', { authorization: `Bearer ${revoked.token}`, 'x-workspace-id': revoked.id }, 401],
        ['another workspace token', { authorization: `Bearer ${intruder.token}`, 'x-workspace-id': owner.id }, 403],
      ];
      for (const [method, url, body] of routes) {
        for (const [label, headers, status] of credentials) {
          const response = await send(method, url, headers, body);
          expect(response.statusCode, `${method} ${url} with ${label}`).toBe(status);
          expect(response.json()).toMatchObject({ error: { code: status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN' } });
          expect(response.body).not.toContain('owner_secret_api');
        }
        // The intruder's own, valid credentials with the owner's ids.
        const response = await send(method, url, intruder.headers, body);
        const label = `${method} ${url} as another workspace`;
        if (
          ['/api/tools', '/api/agents'].includes(url) ||
          url.startsWith('/api/calls') ||
          url.startsWith('/api/tools?')
        ) {
          expect(response.statusCode, label).toBeLessThan(300);
        } else {
          expect(response.statusCode, label).toBe(404);
        }
        if (response.statusCode === 404) {
          // Indistinguishable from ids that never existed (the message only echoes the id sent).
          const ghost = (text: string) =>
            text.replaceAll('owner_secret_api', 'never_existed_api').replaceAll(agent, 'agt_never_existed');
          const missing = await send(
            method,
            ghost(url),
            intruder.headers,
            body === undefined ? undefined : JSON.parse(ghost(JSON.stringify(body))),
          );
          expect(ghost(response.body), label).toBe(missing.body);
        } else {
          expect(response.body, label).not.toContain('owner_secret_api');
          expect(response.body, label).not.toContain(agent);
        }
      }
      // Nothing of the owner's changed.
      expect((await send('GET', '/api/tools/owner_secret_api', owner.headers)).json()).toMatchObject({
        description: 'Search the company knowledge base.',
      });
      expect((await send('GET', `/api/agents/${agent}`, owner.headers)).json()).toMatchObject({ name: 'Research' });
      const list = (await send('GET', `/api/agents/${agent}/tools`, owner.headers)).json();
      expect(list).toMatchObject({ fallback: false, tools: [expect.objectContaining({ id: 'owner_secret_api' })] });
      expect((await send('GET', `/api/calls?agent_id=${agent}`, owner.headers)).json()).toMatchObject({
        calls: [expect.objectContaining({ tool_id: 'owner_secret_api' })],
      });
    });

    it('refuses a missing X-Workspace-Id', async () => {
      const owner = await tenant();
      const response = await send('GET', '/api/tools', { authorization: `Bearer ${owner.token}` });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: { details: { field: 'X-Workspace-Id' } } });
    });
  });

  describe('concurrency', () => {
    it('handles 1 000 concurrent attach and detach requests with no 5xx and a consistent end state', async () => {
      const owner = await tenant();
      const agents = [await newAgent(owner), await newAgent(owner)];
      const tools = ['read_file', 'calculator', 'list_files'];
      const requests = Array.from({ length: 1000 }, (_, index) => {
        const agent = agents[index % agents.length] as string;
        const tool = tools[Math.floor(index / agents.length) % tools.length] as string;
        const attach = index % 3 !== 2;
        return { agent, tool, attach };
      });
      const responses = await Promise.all(
        requests.map(({ agent, tool, attach }) =>
          attach
            ? send('POST', `/api/agents/${agent}/tools`, owner.headers, { tool_id: tool })
            : send('DELETE', `/api/agents/${agent}/tools/${tool}`, owner.headers),
        ),
      );
      const statuses = responses.map((response) => response.statusCode);
      expect(statuses.filter((status) => status >= 500)).toEqual([]);
      for (const [index, response] of responses.entries()) {
        const expected = requests[index]?.attach ? [201, 409] : [204, 404];
        expect(expected).toContain(response.statusCode);
      }
      for (const agent of agents) {
        for (const tool of tools) {
          // Each pair's responses, in any order, must net to the final state: attaches minus detaches.
          const mine = requests
            .map((request, index) => ({ ...request, status: statuses[index] }))
            .filter((request) => request.agent === agent && request.tool === tool);
          const attached = mine.filter((request) => request.status === 201).length;
          const detached = mine.filter((request) => request.status === 204).length;
          const list = (await send('GET', `/api/agents/${agent}/tools`, owner.headers)).json() as {
            fallback: boolean;
            tools: Array<{ id: string }>;
          };
          const present = !list.fallback && list.tools.some((each) => each.id === tool);
          expect(attached - detached, `${agent}/${tool}`).toBe(present ? 1 : 0);
        }
      }
    }, 60_000);
  });

  describe('approvals', () => {
    async function pendingCall(owner: Tenant, id: string) {
      await send('POST', '/api/tools', owner.headers, restTool(id, { requires_approval: true }));
      const response = await send('POST', `/api/tools/${id}/call`, owner.headers, { arguments: { query: 'pay' } });
      expect(response.statusCode).toBe(200);
      const result = response.json() as { status: string; approval: { id: string; arguments: unknown } };
      expect(result.status).toBe('pending_approval');
      return result.approval;
    }

    it('runs an approved call exactly once and refuses replays', async () => {
      const owner = await tenant();
      const approval = await pendingCall(owner, 'pay_invoice');
      const before = fakeHits;
      const approved = await send('POST', `/api/approvals/${approval.id}`, owner.headers, { decision: 'approve' });
      expect(approved.statusCode).toBe(200);
      expect(approved.json()).toMatchObject({ result: { status: 'success', data: { query: 'pay' } } });
      expect(fakeHits).toBe(before + 1);
      for (const decision of ['approve', 'deny']) {
        const replay = await send('POST', `/api/approvals/${approval.id}`, owner.headers, { decision });
        expect(replay.statusCode).toBe(409);
        expect(replay.json()).toMatchObject({ error: { code: 'APPROVAL_INVALID' } });
      }
      expect(fakeHits).toBe(before + 1);
    });

    it('runs once when the same approval is sent 20 times at once', async () => {
      const owner = await tenant();
      const approval = await pendingCall(owner, 'pay_twice');
      const before = fakeHits;
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          send('POST', `/api/approvals/${approval.id}`, owner.headers, { decision: 'approve' }),
        ),
      );
      expect(responses.filter((response) => response.statusCode === 200)).toHaveLength(1);
      expect(responses.filter((response) => response.statusCode === 409)).toHaveLength(19);
      expect(fakeHits).toBe(before + 1);
    });

    it('denies without running, and refuses tampered arguments', async () => {
      const owner = await tenant();
      const denied = await pendingCall(owner, 'pay_denied');
      const before = fakeHits;
      const tampered = await send('POST', `/api/approvals/${denied.id}`, owner.headers, {
        decision: 'approve',
        arguments: { query: 'pay everything' },
      });
      expect(tampered.statusCode).toBe(409);
      const response = await send('POST', `/api/approvals/${denied.id}`, owner.headers, { decision: 'deny' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ approval: { status: 'denied' } });
      expect(
        (await send('POST', `/api/approvals/${denied.id}`, owner.headers, { decision: 'approve' })).statusCode,
      ).toBe(409);
      expect(fakeHits).toBe(before);
    });

    /** Approve `approvalId` and expect it used up without a run: `TOOL_NOT_FOUND` saying `message`. */
    async function approveUnrun(owner: Tenant, approvalId: string, message: string) {
      const before = fakeHits;
      const approved = await send('POST', `/api/approvals/${approvalId}`, owner.headers, { decision: 'approve' });
      expect(approved.statusCode).toBe(200);
      expect(approved.json()).toMatchObject({
        approval: { status: 'used' },
        result: { status: 'error', error: { code: 'TOOL_NOT_FOUND', message } },
      });
      expect(fakeHits).toBe(before);
    }

    it('does not run an approved call whose tool was deleted since it was asked', async () => {
      const owner = await tenant();
      const approval = await pendingCall(owner, 'pay_deleted');
      expect((await send('DELETE', '/api/tools/pay_deleted', owner.headers)).statusCode).toBe(204);
      await approveUnrun(owner, approval.id, "Tool 'pay_deleted' was removed before its approved call could run.");
      expect((await store.approvals(owner.id).getRecord(approval.id))?.status).not.toBe('pending');
    });

    it.each([
      ['a tool detached from its agent', 'pay_detached', (agent: string) => `/api/agents/${agent}/tools/pay_detached`],
      ['a tool whose agent was deleted', 'pay_orphan', (agent: string) => `/api/agents/${agent}`],
    ])('does not run an approved call of %s since it was asked', async (_label, tool, removal) => {
      const owner = await tenant();
      await send('POST', '/api/tools', owner.headers, restTool(tool, { requires_approval: true }));
      const agent = (await send('POST', '/api/agents', owner.headers, { name: 'payer' })).json() as { id: string };
      expect((await send('POST', `/api/agents/${agent.id}/tools`, owner.headers, { tool_id: tool })).statusCode).toBe(
        201,
      );
      const asked = await send('POST', `/api/tools/${tool}/call`, owner.headers, {
        arguments: { query: 'pay' },
        agent_id: agent.id,
      });
      const approval = (asked.json() as { approval: { id: string } }).approval;
      expect((await send('DELETE', removal(agent.id), owner.headers)).statusCode).toBe(204);
      await approveUnrun(
        owner,
        approval.id,
        `Tool '${tool}' is no longer available to agent '${agent.id}' (removed or detached since the call was asked); the approved call did not run.`,
      );
    });

    it("answers 404 for another workspace's approval and leaves it pending", async () => {
      const owner = await tenant();
      const intruder = await tenant();
      const approval = await pendingCall(owner, 'pay_other');
      const response = await send('POST', `/api/approvals/${approval.id}`, intruder.headers, { decision: 'approve' });
      expect(response.statusCode).toBe(404);
      expect((await store.approvals(owner.id).getRecord(approval.id))?.status).toBe('pending');
    });
  });
}
