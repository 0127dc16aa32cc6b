import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { definePrompt } from '../../src/core/define-prompt.js';
import { defineResource, defineResourceTemplate } from '../../src/core/define-resource.js';
import { defineTool } from '../../src/core/define-tool.js';
import { createServer, reloadServedConfig, type ServedConfig } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { sqliteHarness } from './server-harness.js';

const wordCount = defineTool({
  name: 'word_count',
  description: 'Count the words of a text.',
  whenToUse: 'When you need to know how long a text is.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: ({ text }: { text: string }) => text.split(/\s+/).filter(Boolean).length,
});

function servedConfig(statusText: string): ServedConfig {
  return {
    workspaceId: 'default',
    origin: 'toolshed.yaml',
    tools: [{ spec: wordCount, source: 'config' }],
    builtins: [],
    agents: [
      {
        id: 'writer',
        prompt: 'You help people write shorter texts.',
        tools: ['word_count'],
        config: {},
        prompts: ['summarize'],
        resources: ['docs://status'],
      },
      { id: 'bare', tools: ['word_count'], config: {} },
    ],
    catalog: {
      prompts: [
        definePrompt({
          name: 'summarize',
          description: 'Summarize a text.',
          arguments: [{ name: 'text', required: true }],
          messages: [{ role: 'user', content: { type: 'text', text: 'Summarize: {{text}}' } }],
        }),
        definePrompt({
          name: 'internal_review',
          description: 'Only for the workspace endpoint.',
          messages: [{ role: 'user', content: { type: 'text', text: 'Review.' } }],
        }),
      ],
      resources: [
        defineResource({
          uri: 'docs://status',
          name: 'status',
          mimeType: 'text/plain',
          text: statusText,
          subscribable: true,
        }),
        defineResource({ uri: 'docs://internal', name: 'internal', text: 'Not for agents.' }),
      ],
      resourceTemplates: [
        defineResourceTemplate({
          uriTemplate: 'docs://pages/{slug}',
          name: 'page',
          read: ({ slug }) => `Page ${slug}`,
        }),
      ],
    },
  };
}

const harness = sqliteHarness();
let store: ToolshedStore;
let app: FastifyInstance;
let base: string;
let token: string;

beforeAll(async () => {
  store = await harness.open();
  await store.migrate();
  await store.workspaces.create({ id: 'default', name: 'Default' });
  app = createServer({ store, config: servedConfig('All systems go.'), builtins: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  token = (await store.tokens.create('default', { name: 'catalog' })).token;
});

afterAll(async () => {
  await app.close();
  await store.close();
  await harness.teardown();
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
});

async function connect(path: string): Promise<Client> {
  const client = new Client({ name: 'toolshed-catalog-service-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path, base), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

async function refusal(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await request;
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message };
  }
  throw new Error('the request was not refused');
}

describe('MCP prompts and resources of toolshed serve, per view', () => {
  it("serves the configuration's prompts and resources on /mcp, with the workspace's system prompt", async () => {
    const client = await connect('/mcp');
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual([
      'internal_review',
      'summarize',
      'system_prompt',
    ]);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([
      'docs://internal',
      'docs://status',
    ]);
    expect((await client.readResource({ uri: 'docs://pages/intro' })).contents).toEqual([
      { uri: 'docs://pages/intro', text: 'Page intro' },
    ]);
    const system = await client.getPrompt({ name: 'system_prompt' });
    const text = String((system.messages[0]?.content as { text?: string } | undefined)?.text);
    expect(text).toContain('word_count');
    expect(text).toContain('Count the words of a text.');
  });

  it('serves an agent only the prompts and resources it names, and its own system prompt', async () => {
    const client = await connect('/mcp/agents/writer');
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['summarize', 'system_prompt']);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(['docs://status']);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    const system = await client.getPrompt({ name: 'system_prompt' });
    expect(system.description).toBe("The system prompt of agent 'writer': its instructions and the docs of its tools.");
    const text = String((system.messages[0]?.content as { text?: string } | undefined)?.text);
    expect(text.startsWith('You help people write shorter texts.\n\n')).toBe(true);
    expect(text).toContain('word_count');
    expect(await refusal(client.getPrompt({ name: 'internal_review' }))).toEqual({
      code: -32602,
      message: "MCP error -32602: No prompt 'internal_review'.",
    });
    expect(await refusal(client.readResource({ uri: 'docs://internal' }))).toEqual({
      code: -32602,
      message:
        "MCP error -32602: No resource 'docs://internal'. List them with resources/list and resources/templates/list.",
    });
    expect(await refusal(client.readResource({ uri: 'docs://pages/intro' }))).toMatchObject({ code: -32602 });

    const bare = await connect('/mcp/agents/bare');
    expect((await bare.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['system_prompt']);
    expect((await bare.listResources()).resources).toEqual([]);
  });

  it("serves the workspace's files through toolshed://files/{+path}, text or blob, with path completion", async () => {
    const files = store.files('default');
    await files.write('/notes/plan.md', new TextEncoder().encode('# Plan\nShip it.'));
    await files.write('/notes/pixel.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe]));
    const client = await connect('/mcp');
    expect((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'docs://pages/{slug}',
      'toolshed://files/{+path}',
    ]);
    expect((await client.readResource({ uri: 'toolshed://files/notes/plan.md' })).contents).toEqual([
      { uri: 'toolshed://files/notes/plan.md', mimeType: 'text/markdown', text: '# Plan\nShip it.' },
    ]);
    expect((await client.readResource({ uri: 'toolshed://files/notes/pixel.png' })).contents).toEqual([
      {
        uri: 'toolshed://files/notes/pixel.png',
        mimeType: 'image/png',
        blob: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe]).toString('base64'),
      },
    ]);
    const completion = await client.complete({
      ref: { type: 'ref/resource', uri: 'toolshed://files/{+path}' },
      argument: { name: 'path', value: 'notes/p' },
    });
    expect(completion.completion.values).toEqual(['notes/pixel.png', 'notes/plan.md']);
    expect(await refusal(client.readResource({ uri: 'toolshed://files/notes/missing.md' }))).toEqual({
      code: -32602,
      message: "MCP error -32602: No file '/notes/missing.md' in the workspace.",
    });
    expect(await refusal(client.readResource({ uri: 'toolshed://files/../../etc/passwd' }))).toMatchObject({
      code: -32602,
    });
    // An agent's endpoint serves the files only when the agent names the template.
    const writer = await connect('/mcp/agents/writer');
    expect(await refusal(writer.readResource({ uri: 'toolshed://files/notes/plan.md' }))).toMatchObject({
      code: -32602,
    });
  });

  it('refuses bad prompt and resource requests without logging a call', async () => {
    const before = (await store.toolCalls.listRecent('default', { limit: 100 })).length;
    const client = await connect('/mcp/agents/writer');
    expect(await refusal(client.getPrompt({ name: 'summarize', arguments: {} }))).toEqual({
      code: -32602,
      message: "MCP error -32602: Prompt 'summarize' needs the argument 'text'.",
    });
    expect(await refusal(client.subscribeResource({ uri: 'docs://internal' }))).toEqual({
      code: -32602,
      message: "MCP error -32602: No resource 'docs://internal' to subscribe to. List them with resources/list.",
    });
    expect(await store.toolCalls.listRecent('default', { limit: 100 })).toHaveLength(before);
  });

  it('tells a subscriber when a reloaded configuration changes the resource', async () => {
    const client = await connect('/mcp/agents/writer');
    const updated = new Promise<string>((resolve) =>
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) =>
        resolve(notification.params.uri),
      ),
    );
    await client.subscribeResource({ uri: 'docs://status' });
    await reloadServedConfig(app, servedConfig('Degraded: the search index is rebuilding.'));
    expect(await updated).toBe('docs://status');
    expect((await client.readResource({ uri: 'docs://status' })).contents).toEqual([
      { uri: 'docs://status', mimeType: 'text/plain', text: 'Degraded: the search index is rebuilding.' },
    ]);
  });
});

describe('MCP authentication hints', () => {
  it('answers 401 with WWW-Authenticate naming the protected resource metadata, without and with a bad token', async () => {
    const missing = await fetch(`${base}/mcp`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`,
    );
    expect(await missing.json()).toEqual({
      error: { code: 'UNAUTHORIZED', message: 'Send an API token as "Authorization: Bearer <token>".' },
    });
    const wrong = await fetch(`${base}/mcp/agents/writer`, {
      method: 'POST',
      headers: { authorization: 'Bearer tsk_not_a_token' },
      body: '{}',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", error_description="The API token is malformed, unknown or revoked.", resource_metadata="${base}/.well-known/oauth-protected-resource"`,
    );
    // The REST API keeps its own 401 (its clients are not OAuth clients).
    const rest = await fetch(`${base}/api/tools`);
    expect(rest.status).toBe(401);
    expect(rest.headers.get('www-authenticate')).toBeNull();
  });

  it('serves RFC 9728 metadata that names no authorization server and says the tokens are bearer tokens', async () => {
    const response = await fetch(`${base}/.well-known/oauth-protected-resource`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      resource: `${base}/mcp`,
      authorization_servers: [],
      bearer_methods_supported: ['header'],
      resource_name: 'toolshed',
      toolshed_token:
        "toolshed API tokens (tsk_...) are bearer tokens: send 'Authorization: Bearer <token>'. Make one with 'toolshed token create --workspace <id>' or POST /api/tokens.",
    });
    const agent = await fetch(`${base}/.well-known/oauth-protected-resource/mcp/agents/writer`);
    expect(((await agent.json()) as { resource: string }).resource).toBe(`${base}/mcp/agents/writer`);
  });

  it('never puts a hostile Host header into WWW-Authenticate', async () => {
    const { request } = await import('node:http');
    const port = Number(new URL(base).port);
    const header = await new Promise<string | undefined>((resolve, reject) => {
      const sent = request(
        { host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: { host: 'evil.example"; x="y' } },
        (response) => {
          response.resume();
          resolve(response.headers['www-authenticate'] as string | undefined);
        },
      );
      sent.on('error', reject);
      sent.end('{}');
    });
    expect(header).toBe(`Bearer resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource"`);
  });
});

describe('GET /api/prompts and /api/resources', () => {
  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`, {
      headers: { authorization: `Bearer ${token}`, 'x-workspace-id': 'default' },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("lists the workspace's prompts and resources from its rows, with the agents that serve each", async () => {
    const prompts = await get('/api/prompts');
    expect(prompts.status).toBe(200);
    expect(prompts.body.prompts).toEqual([
      {
        name: 'internal_review',
        description: 'Only for the workspace endpoint.',
        arguments: [],
        source: 'config',
        origin: 'toolshed.yaml',
        agents: [],
        updated_at: expect.any(String),
      },
      {
        name: 'summarize',
        description: 'Summarize a text.',
        arguments: [{ name: 'text', required: true }],
        source: 'config',
        origin: 'toolshed.yaml',
        agents: ['writer'],
        updated_at: expect.any(String),
      },
    ]);
    const resources = await get('/api/resources');
    expect(
      (resources.body.resources as Array<Record<string, unknown>>).map((resource) => [
        resource.kind,
        resource.uri ?? resource.uri_template,
        resource.agents,
      ]),
    ).toEqual([
      ['resource', 'docs://internal', []],
      ['resource', 'docs://status', ['writer']],
      ['resource_template', 'docs://pages/{slug}', []],
    ]);
    const forWriter = await get('/api/resources?agent_id=writer');
    expect((forWriter.body.resources as Array<{ uri?: string }>).map((resource) => resource.uri)).toEqual([
      'docs://status',
    ]);
    expect(((await get('/api/prompts?agent_id=bare')).body.prompts as unknown[]).length).toBe(0);
  });

  it('refuses a repeated or unknown query parameter and an unknown agent', async () => {
    expect(await get('/api/prompts?agent_id=a&agent_id=b')).toEqual({
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_ERROR',
          message: "'agent_id' must be given once, got an array.",
          details: { field: 'agent_id' },
        },
      },
    });
    expect((await get('/api/resources?agnet_id=writer')).body).toMatchObject({
      error: {
        code: 'VALIDATION_ERROR',
        message: "Unknown query parameter 'agnet_id'; did you mean 'agent_id'? Allowed: agent_id.",
      },
    });
    expect(await get('/api/prompts?agent_id=nobody')).toEqual({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: "No agent 'nobody' in this workspace." } },
    });
  });
});
