import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadedTools } from '../../src/cli/load-registry.js';
import { upsertServiceBuiltins } from '../../src/cli/serve/open-service-store.js';
import { servedConfigOf } from '../../src/cli/serve/served-config-of.js';
import { EmailStore, EXAMPLE_INBOX, generateIntoStore } from '../../src/emails/index.js';
import { EXPORT_FORMATS } from '../../src/server/export-tools.js';
import { createServer } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { loadServeTools, postgresHarness, type ServerStoreHarness, sqliteHarness } from './server-harness.js';

const ECHO_SERVER = resolve('test/server/fixtures/echo-mcp-server.mjs');

/** One tool of each source, with a call that shows it ran and a word its description is found by. */
interface SourceCase {
  source: string;
  tool: string;
  args: Record<string, unknown>;
  /** Text the result of the call contains. */
  answer: string;
  /** A query `GET /api/tools?q=` finds the tool by. */
  query: string;
}

const CASES: SourceCase[] = [
  { source: 'builtin', tool: 'calculator', args: { expression: '6 * 7' }, answer: '42', query: 'math expression' },
  { source: 'config', tool: 'shout', args: { text: 'hi' }, answer: 'HI!', query: 'shout uppercase' },
  { source: 'module', tool: 'mod_reverse', args: { text: 'abc' }, answer: 'cba', query: 'reverse letters' },
  {
    source: 'mcp:upstream',
    tool: 'upstream__echo',
    args: { text: 'ping' },
    answer: 'echo: ping',
    query: 'echo text back',
  },
  { source: 'config', tool: 'status_check', args: {}, answer: 'all systems go', query: 'service status' },
  { source: 'api', tool: 'company_lookup', args: { name: 'acme' }, answer: 'all systems go', query: 'company lookup' },
  { source: 'code', tool: 'word_lengths', args: { text: 'ab cde' }, answer: 'lengths 2,3', query: 'word lengths' },
  // Named under `builtins:`, served over the service's own corpus: the configuration's database
  // (beside the file) holds no email, so only the service's tool can give this inbox.
  {
    source: 'builtin',
    tool: 'email_inboxes',
    args: { limit: 1 },
    answer: EXAMPLE_INBOX,
    query: 'list email inboxes',
  },
];

/** A configuration with a YAML tool, a module, a REST tool, an MCP server, two built-ins and an agent. */
function writeConfig(folder: string, statusUrl: string): string {
  mkdirSync(join(folder, 'tools'));
  writeFileSync(
    join(folder, 'tools', 'shout.yaml'),
    [
      'name: shout',
      'description: Shout a text back in uppercase letters.',
      'category: text',
      'parameters:',
      '  type: object',
      '  properties:',
      '    text: { type: string }',
      '  required: [text]',
      'handler: ./handlers.js#shout',
      '',
    ].join('\n'),
  );
  writeFileSync(join(folder, 'tools', 'handlers.js'), 'export const shout = ({ text }) => `${text.toUpperCase()}!`;\n');
  writeFileSync(
    join(folder, 'module-tools.mjs'),
    [
      'export const reverse = {',
      "  name: 'mod_reverse',",
      "  description: 'Reverse the letters of a text.',",
      "  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },",
      "  execute: ({ text }) => [...text].reverse().join(''),",
      '};',
      '',
    ].join('\n'),
  );
  const file = join(folder, 'toolshed.yaml');
  writeFileSync(
    file,
    [
      'tools: [./tools, ./module-tools.mjs]',
      'builtins: [calculator, read_file, email_inboxes]',
      'custom_tools:',
      '  - id: status_check',
      '    type: rest_api',
      '    description: Check the service status page.',
      `    endpoint: ${statusUrl}`,
      '    method: GET',
      '    allow_private_network: true',
      '    parameters: { type: object, properties: {} }',
      'mcp_servers:',
      '  - name: upstream',
      `    command: ${process.execPath}`,
      `    args: [${JSON.stringify(ECHO_SERVER)}]`,
      'agents:',
      '  - id: helper',
      '    tools: [calculator, shout]',
      '',
    ].join('\n'),
  );
  return file;
}

describe.each([sqliteHarness(), postgresHarness()] as ServerStoreHarness[])(
  'every source on every surface ($dialect)',
  (harness) => {
    let store: ToolshedStore;
    let app: FastifyInstance;
    let loaded: LoadedTools;
    let fake: Server;
    let folder: string;
    let base: string;
    let headers: Record<string, string>;
    let token: string;
    let agent: string;

    beforeAll(async () => {
      folder = mkdtempSync(join(tmpdir(), 'toolshed-sources-'));
      fake = createHttpServer((_request, response) => {
        response.setHeader('content-type', 'application/json');
        response.end('{"status":"all systems go"}');
      });
      await new Promise<void>((done) => fake.listen(0, '127.0.0.1', done));
      const fakeHost = `127.0.0.1:${(fake.address() as AddressInfo).port}`;
      const file = writeConfig(folder, `http://${fakeHost}/status`);
      loaded = await loadServeTools(file, folder);
      store = await harness.open();
      await store.migrate();
      // As `toolshed serve` does before it serves: the built-ins are rows of every workspace.
      await upsertServiceBuiltins(store);
      await generateIntoStore(new EmailStore(store), { count: 60, inboxes: 3, seed: 1 });
      const served = servedConfigOf(loaded, 'matrix', []);
      app = createServer({
        store,
        webCatalog: false,
        // The sandbox runs the code tool.
        builtins: { sandbox: { size: 1 } },
        restTool: { guard: { allowHosts: [fakeHost] } },
        ...(served === undefined ? {} : { config: served }),
      });
      await app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      ({ token } = await store.tokens.create('matrix', { name: 'matrix' }));
      headers = { authorization: `Bearer ${token}`, 'x-workspace-id': 'matrix', 'content-type': 'application/json' };
      const created = await post('/api/tools', {
        id: 'company_lookup',
        type: 'rest_api',
        description: 'Company lookup: the status of a company.',
        endpoint: `http://${fakeHost}/companies/{name}`,
        method: 'GET',
        parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      expect(created.status).toBe(201);
      const code = await post('/api/tools', {
        id: 'word_lengths',
        type: 'javascript',
        description: 'Word lengths: the length of each word of a text.',
        parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        code: 'function word_lengths({ text }) {\n  return "lengths " + text.split(" ").map((word) => word.length);\n}',
      });
      expect(code.status).toBe(201);
      agent = ((await post('/api/agents', { name: 'matrix agent' })).body as { id: string }).id;
    }, 60_000);

    afterAll(async () => {
      await app?.close();
      await loaded?.close();
      await store?.close();
      await harness.teardown();
      await new Promise<void>((done) => (fake === undefined ? done() : fake.close(() => done())));
      rmSync(folder, { recursive: true, force: true });
    }, 30_000);

    async function request(method: string, path: string, body?: unknown) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers:
          body === undefined ? { authorization: headers.authorization ?? '', 'x-workspace-id': 'matrix' } : headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      const type = response.headers.get('content-type') ?? '';
      return { status: response.status, body: type.includes('json') ? (JSON.parse(text) as unknown) : text };
    }
    const get = (path: string) => request('GET', path);
    const post = (path: string, body: unknown) => request('POST', path, body);

    it.each(CASES)(
      '$source tool $tool: listed, searchable, shown, attachable, callable, exported, documented',
      async (each) => {
        const listed = (await get('/api/tools')).body as { tools: Array<Record<string, unknown>> };
        expect(listed.tools.find((tool) => tool.id === each.tool)).toMatchObject({
          source: each.source,
          available: true,
        });

        const found = (await get(`/api/tools?q=${encodeURIComponent(each.query)}`)).body as {
          tools: Array<{ id: string }>;
        };
        expect(found.tools.slice(0, 3).map((tool) => tool.id)).toContain(each.tool);

        const one = await get(`/api/tools/${each.tool}`);
        expect(one.status).toBe(200);
        expect(one.body).toMatchObject({ id: each.tool, source: each.source, available: true });

        const attached = await post(`/api/agents/${agent}/tools`, { tool_id: each.tool });
        expect(attached.status).toBe(201);

        const viaRest = await post(`/api/tools/${each.tool}/call`, { arguments: each.args, agent_id: agent });
        expect(viaRest.status).toBe(200);
        expect(viaRest.body).toMatchObject({ status: 'success' });
        expect(JSON.stringify(viaRest.body)).toContain(each.answer);

        const client = new Client({ name: 'toolshed-matrix', version: '1.0.0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`/mcp/agents/${agent}`, base), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        try {
          expect((await client.listTools()).tools.map((tool) => tool.name)).toContain(each.tool);
          const viaMcp = await client.callTool({ name: each.tool, arguments: each.args });
          expect(viaMcp.isError).not.toBe(true);
          expect(JSON.stringify(viaMcp.content)).toContain(each.answer);
        } finally {
          await client.close();
        }

        for (const format of EXPORT_FORMATS) {
          const exported = await get(`/api/tools/${each.tool}/export?format=${format}`);
          expect(exported.status, format).toBe(200);
          expect(JSON.stringify(exported.body), format).toContain(`"${each.tool}"`);
          const agentExport = await get(`/api/agents/${agent}/export?format=${format}`);
          expect(JSON.stringify(agentExport.body), format).toContain(`"${each.tool}"`);
        }
        const prompt = await get(`/api/agents/${agent}/prompt`);
        expect(prompt.body as string).toContain(`**${each.tool}**`);
      },
      60_000,
    );

    it("keeps the configuration's agent and built-in choice as rows: listed with their source, others hidden", async () => {
      const agents = (await get('/api/agents')).body as { agents: Array<Record<string, unknown>> };
      expect(agents.agents.find((each) => each.id === 'helper')).toMatchObject({ source: 'config' });
      const tools = (await get('/api/agents/helper/tools')).body as { tools: Array<{ id: string }>; fallback: boolean };
      expect(tools).toMatchObject({ fallback: false });
      expect(tools.tools.map((tool) => tool.id)).toEqual(['calculator', 'shout']);
      // The configuration names three built-ins: the others do not exist in its workspace.
      expect((await get('/api/tools/write_file')).status).toBe(404);
      expect((await get('/api/tools/email_search')).status).toBe(404);
      const ids = ((await get('/api/tools')).body as { tools: Array<{ id: string; source: string }> }).tools
        .filter((tool) => tool.source === 'builtin')
        .map((tool) => tool.id);
      expect(ids).toEqual(['calculator', 'email_inboxes', 'read_file']);
    });
  },
);
