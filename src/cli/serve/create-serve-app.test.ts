import { afterEach, describe, expect, it } from 'vitest';
import { defineTool } from '../../core/define-tool.js';
import { ToolRegistry } from '../../registry/tool-registry.js';
import { createServeApp, type ServeApp } from './create-serve-app.js';

const echo = defineTool({
  name: 'echo',
  description: 'Repeat the text.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: ({ text }) => text,
});

let app: ServeApp | undefined;
afterEach(async () => {
  await app?.close();
});

function create(): ServeApp {
  const registry = new ToolRegistry();
  registry.register(echo);
  app = createServeApp({ registry, agentIds: ['writer'], agent: () => registry.subset(['echo']) });
  return app;
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
};

function post(path: string, body: unknown): Request {
  return new Request(`http://127.0.0.1:4319${path}`, {
    method: 'POST',
    // node:http requests always carry Host; the MCP handler checks it (DNS-rebinding protection).
    headers: {
      host: '127.0.0.1:4319',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(body),
  });
}

describe('createServeApp', () => {
  it('answers /health with the live tool count', async () => {
    const response = await create().fetch(new Request('http://127.0.0.1:4319/health'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', tools: 1 });
  });

  it('opens MCP sessions at /mcp and at a known agent, one per path', async () => {
    const served = create();
    for (const path of ['/mcp', '/mcp/agents/writer']) {
      const response = await served.fetch(post(path, initialize));
      expect(response.status).toBe(200);
      expect(response.headers.get('mcp-session-id')).toMatch(/\S/);
      await response.body?.cancel();
    }
    expect(served.sessionCount).toBe(2);
    await served.close();
    expect(served.sessionCount).toBe(0);
  });

  it('answers 404 NOT_FOUND for an unknown agent, with suggestions', async () => {
    const response = await create().fetch(post('/mcp/agents/writr', initialize));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: 'NOT_FOUND', message: "No agent 'writr'. Did you mean 'writer'? Agents: writer." },
    });
  });

  it.each(['/', '/mcp/agents/', '/mcp/agents/writer/extra', '/mcpx', '/mcp/agents/%E0%A4%A'])(
    'leaves %s to the 404 fallback',
    async (path) => {
      const response = await create().fetch(new Request(`http://127.0.0.1:4319${path}`));
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    },
  );

  it('treats inherited names as unknown agents', async () => {
    const response = await create().fetch(post('/mcp/agents/constructor', initialize));
    expect(response.status).toBe(404);
  });

  it('answers 500 INTERNAL when a route throws, reporting the error', async () => {
    const errors: unknown[] = [];
    const registry = new ToolRegistry();
    app = createServeApp({
      registry,
      agentIds: [],
      agent: () => registry,
      onError: (error) => errors.push(error),
    });
    Object.defineProperty(registry, 'size', {
      get() {
        throw new Error('boom');
      },
    });
    const response = await app.fetch(new Request('http://127.0.0.1:4319/health'));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: { code: 'INTERNAL', message: 'Internal error while handling the request.' },
    });
    expect(errors).toHaveLength(1);
  });
});
