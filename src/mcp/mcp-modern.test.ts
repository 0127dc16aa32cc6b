import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { createConformanceCatalog, createConformanceRegistry } from '../../test/mcp/conformance-tools.js';
import { handlerHarness } from '../../test/mcp/listen.js';
import { defineTool, type ToolRegistry } from '../index.js';
import type { McpHttpHandlerOptions } from './index.js';
import { createModernMcpServer, DEFAULT_LIST_TTL_MS, MODERN_PROTOCOL_VERSION } from './mcp-modern.js';

/** toolshed's version as its package.json says, read here rather than through the code under test. */
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const { cleanups, start } = handlerHarness();

/** A 2026-07-28 client of `@modelcontextprotocol/client`, pinned to that revision. */
async function connectModern(url: string): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'toolshed-modern-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } },
  );
  await client.connect(new ModernTransport(new URL(url)));
  cleanups.push(() => client.close());
  return client;
}

/** A 2025-11-25 client of `@modelcontextprotocol/sdk` 1.x, with a session. */
async function connectLegacy(url: string): Promise<Client> {
  const client = new Client({ name: 'toolshed-legacy-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanups.push(() => client.close());
  return client;
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request through node:http, which (unlike fetch) may set any Host header. */
function raw(
  port: number,
  options: { path?: string; headers?: Record<string, string>; body: string; signal?: AbortSignal },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: options.path ?? '/mcp',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          ...options.headers,
        },
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** A 2026-07-28 request with the headers its body calls for; `headers` adds to or replaces them. */
function modern(
  port: number,
  method: string,
  params: Record<string, unknown> = {},
  options: {
    headers?: Record<string, string>;
    meta?: Record<string, unknown>;
    path?: string;
    signal?: AbortSignal;
  } = {},
): Promise<RawResponse> {
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method,
    params: { ...params, _meta: { ...ENVELOPE, ...options.meta } },
  });
  return raw(port, {
    ...(options.path === undefined ? {} : { path: options.path }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    headers: {
      'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
      ...options.headers,
    },
    body,
  });
}

/** The JSON-RPC messages in an SSE body (or the JSON body itself). */
function messages(response: RawResponse): Array<Record<string, unknown>> {
  if (String(response.headers['content-type']).startsWith('application/json')) return [JSON.parse(response.body)];
  return response.body
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)));
}

function answer(response: RawResponse): Record<string, unknown> {
  const found = messages(response).find((message) => 'result' in message || 'error' in message);
  if (found === undefined) throw new Error(`no answer in ${response.body}`);
  return found;
}

/** A registry with one tool that counts its calls, to show a refused request ran nothing. */
function countingRegistry(): { registry: ToolRegistry; calls: () => number } {
  const registry = createConformanceRegistry();
  let calls = 0;
  registry.register(
    defineTool({
      name: 'count_call',
      description: 'Counts its calls.',
      inputSchema: { type: 'object', properties: { note: { type: 'string' } } },
      handler: () => {
        calls += 1;
        return `call ${calls}`;
      },
    }),
  );
  return { registry, calls: () => calls };
}

describe('one endpoint, 2025-11-25 and 2026-07-28', () => {
  it('answers server/discover with 2026-07-28, its capabilities and cache hints, and keeps 2025-11-25 sessions', async () => {
    const { url, port, handler } = await start(createConformanceRegistry(), { instructions: 'Use the test tools.' });
    const discover = answer(await modern(port, 'server/discover'));
    expect(discover.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN_PROTOCOL_VERSION],
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        completions: {},
      },
      instructions: 'Use the test tools.',
      ttlMs: DEFAULT_LIST_TTL_MS,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'toolshed', version: PACKAGE_VERSION } },
    });

    const legacy = await connectLegacy(url);
    const modernClient = await connectModern(url);
    expect(modernClient.getProtocolEra()).toBe('modern');
    const [legacyTools, modernTools] = await Promise.all([legacy.listTools(), modernClient.listTools()]);
    expect(modernTools.tools.map((tool) => tool.name)).toEqual(legacyTools.tools.map((tool) => tool.name));
    expect(modernTools._meta?.tools_hash).toBe(legacyTools._meta?.tools_hash);
    // The JSON Schema 2020-12 input schema as registered, on both.
    const schemaTool = (tools: typeof legacyTools.tools) =>
      tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
    expect(schemaTool(modernTools.tools as typeof legacyTools.tools)?.inputSchema).toEqual(
      schemaTool(legacyTools.tools)?.inputSchema,
    );
    // Only the 2025-11-25 client holds a session.
    expect(handler.sessionCount).toBe(1);
  });

  it('pages tools/list with the same cursors, each page with ttlMs and cacheScope, and refuses a foreign cursor', async () => {
    const { port } = await start(createConformanceRegistry(), { pageSize: 5, cacheScope: 'private', listTtlMs: 1234 });
    const first = answer(await modern(port, 'tools/list')).result as Record<string, unknown>;
    expect(first).toMatchObject({ resultType: 'complete', ttlMs: 1234, cacheScope: 'private' });
    expect((first.tools as unknown[]).length).toBe(5);
    expect(typeof first.nextCursor).toBe('string');
    const second = answer(await modern(port, 'tools/list', { cursor: first.nextCursor })).result as Record<
      string,
      unknown
    >;
    expect(second).toMatchObject({ ttlMs: 1234, cacheScope: 'private' });
    const names = [...(first.tools as Array<{ name: string }>), ...(second.tools as Array<{ name: string }>)].map(
      (tool) => tool.name,
    );
    expect(new Set(names).size).toBe(names.length);
    const foreign = Buffer.from('prompts:5').toString('base64url');
    const refused = await modern(port, 'tools/list', { cursor: foreign });
    expect(answer(refused).error).toEqual({
      code: -32602,
      message: `Invalid cursor '${foreign}' for tools/list: pass the nextCursor of the previous page, or no cursor for the first page.`,
    });
  });

  it('calls a tool with progress on its own stream, and reports a failing tool as an isError result', async () => {
    const { url } = await start();
    const client = await connectModern(url);
    const progress: number[] = [];
    const result = await client.callTool(
      { name: 'test_tool_with_progress', arguments: {} },
      { onprogress: (event) => progress.push(event.progress) },
    );
    expect(result.content).toEqual([{ type: 'text', text: 'Tool with progress executed successfully' }]);
    expect(progress).toEqual([0, 50, 100]);
    const failed = await client.callTool({ name: 'test_error_handling', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(JSON.stringify(failed.content)).toContain('This tool intentionally returns an error for testing');
  });

  it('sends tool logs only to a request that names a log level, from that level up', async () => {
    const { port } = await start();
    const silent = messages(await modern(port, 'tools/call', { name: 'test_tool_with_logging', arguments: {} }));
    expect(silent.filter((message) => message.method === 'notifications/message')).toEqual([]);
    expect(silent.at(-1)?.result).toMatchObject({ content: [{ type: 'text' }] });
    const logged = messages(
      await modern(
        port,
        'tools/call',
        { name: 'test_tool_with_logging', arguments: {} },
        { meta: { 'io.modelcontextprotocol/logLevel': 'info' } },
      ),
    );
    expect(
      logged.filter((message) => message.method === 'notifications/message').map((message) => message.params),
    ).toEqual([
      { level: 'info', logger: 'test_tool_with_logging', data: 'Tool execution started' },
      { level: 'info', logger: 'test_tool_with_logging', data: 'Tool processing data' },
      { level: 'info', logger: 'test_tool_with_logging', data: 'Tool execution completed' },
    ]);
    const above = messages(
      await modern(
        port,
        'tools/call',
        { name: 'test_tool_with_logging', arguments: {} },
        { meta: { 'io.modelcontextprotocol/logLevel': 'warning' } },
      ),
    );
    expect(above.filter((message) => message.method === 'notifications/message')).toEqual([]);
  });

  it('cancels a running call when the client closes its response stream', async () => {
    const registry = createConformanceRegistry();
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const aborted = new Promise<string>((resolve) => {
      registry.register(
        defineTool({
          name: 'wait_for_cancel',
          description: 'Waits until it is cancelled.',
          inputSchema: { type: 'object', properties: {} },
          handler: (_args, ctx) =>
            new Promise<string>((_done, fail) => {
              ctx.progress(1, 2);
              started();
              ctx.signal.addEventListener('abort', () => {
                resolve('aborted');
                fail(new Error('cancelled'));
              });
            }),
        }),
      );
    });
    const { port } = await start(registry);
    const controller = new AbortController();
    const call = modern(
      port,
      'tools/call',
      { name: 'wait_for_cancel', arguments: {}, _meta: { progressToken: 'p1' } },
      { signal: controller.signal },
    ).catch((error: Error) => error.name);
    await running;
    controller.abort();
    expect(await aborted).toBe('aborted');
    expect(await call).toBe('AbortError');
  });

  it('serves prompts, resources, templates and completions, resources/read with ttlMs 0', async () => {
    const { url, port } = await start(createConformanceRegistry(), { catalog: createConformanceCatalog() });
    const client = await connectModern(url);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toContain('test_simple_prompt');
    const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
    expect(prompt.messages.length).toBeGreaterThan(0);
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain('test://static-text');
    expect((await client.listResourceTemplates()).resourceTemplates.map((template) => template.name)).toContain(
      'template-data',
    );
    const read = answer(await modern(port, 'resources/read', { uri: 'test://static-text' })).result;
    expect(read).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'public' });
    expect(JSON.stringify(read)).toContain('test://static-text');
    const missing = answer(await modern(port, 'resources/read', { uri: 'test://nothing-here' }));
    expect(missing.error).toMatchObject({ code: -32602 });
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'par' },
    });
    expect(completion.completion.values).toEqual(['paris', 'park', 'party']);
  });

  it('tells a subscriptions/listen stream when the tool set changes', async () => {
    const registry = createConformanceRegistry();
    const { url } = await start(registry);
    const client = await connectModern(url);
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler('notifications/tools/list_changed', () => resolve());
    });
    const subscription = await client.listen({ toolsListChanged: true });
    cleanups.push(() => subscription.close());
    registry.register(
      defineTool({
        name: 'late_tool',
        description: 'Registered after the listen stream opened.',
        inputSchema: { type: 'object', properties: {} },
        handler: () => 'late',
      }),
    );
    await changed;
    expect((await client.listTools(undefined, { cacheMode: 'bypass' })).tools.map((tool) => tool.name)).toContain(
      'late_tool',
    );
  });

  it("tells a listen stream of the catalog's changes: a resource it subscribed to, and the prompt list", async () => {
    const catalog = createConformanceCatalog();
    const { url } = await start(createConformanceRegistry(), { catalog });
    const client = await connectModern(url);
    const updated = new Promise<string>((resolve) => {
      client.setNotificationHandler('notifications/resources/updated', (notification) =>
        resolve(notification.params.uri),
      );
    });
    const promptsChanged = new Promise<void>((resolve) => {
      client.setNotificationHandler('notifications/prompts/list_changed', () => resolve());
    });
    const subscription = await client.listen({
      resourceSubscriptions: ['test://watched-resource'],
      promptsListChanged: true,
    });
    cleanups.push(() => subscription.close());
    catalog.notifyUpdated('test://watched-resource');
    expect(await updated).toBe('test://watched-resource');
    catalog.unregisterPrompt('test_simple_prompt');
    await promptsChanged;
    expect(
      (await client.listPrompts(undefined, { cacheMode: 'bypass' })).prompts.map((prompt) => prompt.name),
    ).not.toContain('test_simple_prompt');
  });

  it('serves each request with the endpoint its resolver picks: per-agent context, call log and admission', async () => {
    const { registry } = countingRegistry();
    registry.register(
      defineTool({
        name: 'who_am_i',
        description: 'Names the team its configuration gives.',
        inputSchema: { type: 'object', properties: {} },
        handler: (_args, ctx) => `agent ${String(ctx.config.team ?? 'none')}`,
      }),
    );
    const logged: Array<{ tool: string; args: unknown }> = [];
    const { port } = await start((request) =>
      new URL(request.url).pathname === '/mcp/agents/support'
        ? {
            registry,
            options: {
              cacheScope: 'private',
              context: { agentId: 'support', config: { team: 'support' } },
              onCallResult: (tool, _result, args) => {
                logged.push({ tool, args });
              },
              admitCall: (tool) =>
                tool === 'count_call'
                  ? ({
                      status: 'error',
                      error: { code: 'RATE_LIMITED', message: 'Too many calls.', retryable: true },
                      metadata: {},
                    } as never)
                  : undefined,
            },
          }
        : undefined,
    );
    const path = '/mcp/agents/support';
    expect(answer(await modern(port, 'tools/list', {}, { path })).result).toMatchObject({ cacheScope: 'private' });
    const called = answer(await modern(port, 'tools/call', { name: 'who_am_i', arguments: {} }, { path }));
    expect(called.result).toMatchObject({ content: [{ type: 'text', text: 'agent support' }] });
    expect(logged).toEqual([{ tool: 'who_am_i', args: {} }]);
    const refused = answer(await modern(port, 'tools/call', { name: 'count_call', arguments: {} }, { path }));
    expect(refused.result).toMatchObject({ isError: true });
    expect(JSON.stringify(refused.result)).toContain('Too many calls.');
    const nowhere = await modern(port, 'tools/list', {}, { path: '/mcp/agents/nobody' });
    expect(nowhere.status).toBe(404);
    expect(JSON.parse(nowhere.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: "Not Found: there is no MCP endpoint at '/mcp/agents/nobody'." },
      id: null,
    });
  });
});

describe('elicitation and sampling over multi round-trip requests', () => {
  it('asks with input_required and finishes the call on the retry (the SDK client answers itself)', async () => {
    const { url } = await start();
    const client = new ModernClient(
      { name: 'toolshed-mrtr-test', version: '1.0.0' },
      {
        capabilities: { elicitation: {}, sampling: {} },
        versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } },
      },
    );
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    });
    client.setRequestHandler('sampling/createMessage', () => ({
      role: 'assistant',
      content: { type: 'text', text: 'Paris' },
      model: 'test-model',
      stopReason: 'endTurn',
    }));
    await client.connect(new ModernTransport(new URL(url)));
    cleanups.push(() => client.close());
    const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    expect(elicited.content).toEqual([
      { type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' },
    ]);
    expect(asked).toEqual([
      expect.objectContaining({
        message: 'Who are you?',
        requestedSchema: expect.objectContaining({ type: 'object' }),
      }),
    ]);
    const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital of France?' } });
    expect(sampled.content).toEqual([{ type: 'text', text: 'LLM response: Paris' }]);
  });

  it('runs the tool again per round, answering earlier questions from requestState, and logs only the finished call', async () => {
    const registry = createConformanceRegistry();
    let runs = 0;
    registry.register(
      defineTool({
        name: 'two_questions',
        description: 'Asks two questions, one after the other.',
        inputSchema: { type: 'object', properties: {} },
        handler: async (_args, ctx) => {
          runs += 1;
          const first = await ctx.elicit('First?', { type: 'object', properties: { a: { type: 'string' } } });
          const second = await ctx.elicit('Second?', { type: 'object', properties: { b: { type: 'string' } } });
          return `${JSON.stringify(first.content)} ${JSON.stringify(second.content)}`;
        },
      }),
    );
    const logged: string[] = [];
    const { port } = await start(registry, { onCallResult: (tool) => void logged.push(tool) });
    const capable = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const call = (extra: Record<string, unknown>) =>
      modern(port, 'tools/call', { name: 'two_questions', arguments: {}, ...extra }, { meta: capable });
    const round1 = answer(await call({})).result as Record<string, unknown>;
    expect(round1).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'input-0': { method: 'elicitation/create', params: { mode: 'form', message: 'First?' } } },
    });
    const round2 = answer(
      await call({
        inputResponses: { 'input-0': { action: 'accept', content: { a: 'one' } } },
        requestState: round1.requestState,
      }),
    ).result as Record<string, unknown>;
    expect(round2).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'input-1': { method: 'elicitation/create', params: { message: 'Second?' } } },
    });
    expect(Object.keys(round2.inputRequests as object)).toEqual(['input-1']);
    const round3 = answer(
      await call({
        inputResponses: { 'input-1': { action: 'accept', content: { b: 'two' } } },
        requestState: round2.requestState,
      }),
    ).result;
    expect(round3).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: '{"a":"one"} {"b":"two"}' }],
    });
    expect(runs).toBe(3);
    expect(logged).toEqual(['two_questions']);
  });

  it('refuses a requestState it did not make for this tool (-32602), and fails a call on a malformed answer', async () => {
    const { port } = await start();
    const capable = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    for (const requestState of [
      'not base64 !',
      Buffer.from('{"tool":"test_sampling","answers":[]}').toString('base64url'),
      Buffer.from('[1,2]').toString('base64url'),
      Buffer.from(JSON.stringify({ tool: 'test_elicitation', answers: new Array(65).fill({}) })).toString('base64url'),
    ]) {
      const refused = answer(
        await modern(
          port,
          'tools/call',
          { name: 'test_elicitation', arguments: { message: 'x' }, requestState },
          { meta: capable },
        ),
      );
      expect(refused.error).toEqual({
        code: -32602,
        message:
          "Invalid requestState for 'test_elicitation': send back the requestState of this call's input_required result unchanged, or none to start over.",
      });
    }
    const wrongShape = answer(
      await modern(
        port,
        'tools/call',
        { name: 'test_elicitation', arguments: { message: 'x' }, inputResponses: { 'input-0': { action: 'maybe' } } },
        { meta: capable },
      ),
    ).result as { isError: boolean; content: Array<{ text: string }> };
    expect(wrongShape.isError).toBe(true);
    expect(wrongShape.content[0]?.text).toContain(
      `The client's answer 'input-0' is not a result of elicitation/create: {"action":"maybe"}.`,
    );
  });

  it('does not ask a client that did not declare the capability', async () => {
    const { port } = await start();
    const result = answer(await modern(port, 'tools/call', { name: 'test_elicitation', arguments: { message: 'x' } }))
      .result as { isError: boolean; content: Array<{ text: string }> };
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain('elicitation needs an MCP client that supports it');
  });
});

/** One request of a hostile case: a `tools/call` of count_call unless `params` says otherwise, and its answer. */
interface HostileRequest {
  params?: Record<string, unknown>;
  headers?: Record<string, string>;
  meta?: Record<string, unknown>;
  /** The HTTP status it is answered with, where the case checks it. */
  status?: number;
  /** What the JSON-RPC error of its answer holds. */
  error?: Record<string, unknown>;
  /** Its whole answer. */
  answer?: Record<string, unknown>;
}

/** Hostile requests, each case on a fresh endpoint: none of them runs a tool. */
const HOSTILE_CASES: Array<{
  /** The test's name. */
  name: string;
  options?: McpHttpHandlerOptions;
  requests: HostileRequest[];
  /** Whether the case also checks that nothing went to the server's error log (`onError`). */
  reportsNothing?: boolean;
}> = [
  {
    name: 'refuses an Mcp-Name that does not match the body with -32020, runs nothing and reports nothing',
    requests: [
      {
        headers: { 'mcp-name': 'test_simple_text' },
        status: 400,
        error: { code: -32020, message: expect.stringContaining('Mcp-Name') },
      },
    ],
    // The client's mistake, answered with its error: nothing for the server's error log.
    reportsNothing: true,
  },
  {
    name: 'refuses a body that is not sent as application/json with 415, runs nothing and reports nothing',
    requests: [
      {
        headers: { 'content-type': 'text/plain' },
        status: 415,
        error: { code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' },
      },
    ],
    reportsNothing: true,
  },
  {
    name: 'refuses a missing Mcp-Method header with -32020 and runs nothing',
    requests: [{ headers: { 'mcp-method': '' }, status: 400, error: { code: -32020 } }],
  },
  {
    name: 'refuses a protocol version it does not serve with -32022 naming the ones it does',
    requests: [
      {
        meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
        headers: { 'mcp-protocol-version': '2099-01-01' },
        status: 400,
        error: {
          code: -32022,
          data: { supported: expect.arrayContaining([MODERN_PROTOCOL_VERSION]), requested: '2099-01-01' },
        },
      },
    ],
    reportsNothing: true,
  },
  {
    name: 'refuses a wrong-typed envelope and wrong-typed params with -32602 and runs nothing',
    requests: [
      {
        meta: { 'io.modelcontextprotocol/clientCapabilities': 'all of them' },
        status: 400,
        error: { code: -32602 },
      },
      { params: { name: 'count_call', arguments: 'note=1' }, error: { code: -32602 } },
    ],
  },
  {
    name: 'checks Host before anything else (403) and the body size (413), and runs nothing',
    options: { maxBodyBytes: 2048 },
    requests: [
      { headers: { host: 'evil.example' }, status: 403, error: { code: -32000 } },
      {
        params: { name: 'count_call', arguments: { note: 'x'.repeat(4096) } },
        status: 413,
        answer: {
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Payload Too Large: the request body exceeds 2048 bytes.' },
          id: null,
        },
      },
    ],
  },
];

describe('hostile 2026-07-28 requests', () => {
  for (const { name, options, requests, reportsNothing } of HOSTILE_CASES) {
    it(name, async () => {
      const { registry, calls } = countingRegistry();
      const reported: unknown[] = [];
      const { port } = await start(registry, { ...options, onError: (error) => reported.push(error) });
      for (const { params = { name: 'count_call', arguments: {} }, headers, meta, ...expected } of requests) {
        const response = await modern(port, 'tools/call', params, { headers, meta });
        if (expected.status !== undefined) expect(response.status).toBe(expected.status);
        if (expected.error !== undefined) expect(answer(response).error).toMatchObject(expected.error);
        if (expected.answer !== undefined) expect(answer(response)).toEqual(expected.answer);
      }
      expect(calls()).toBe(0);
      if (reportsNothing) expect(reported).toEqual([]);
    });
  }

  it('checks Mcp-Param-* headers against the arguments of x-mcp-header properties, and runs nothing on a mismatch', async () => {
    const registry = createConformanceRegistry();
    let calls = 0;
    registry.register(
      defineTool({
        name: 'regional_query',
        description: 'Runs a query in a region.',
        inputSchema: {
          type: 'object',
          properties: {
            region: { type: 'string', 'x-mcp-header': 'Region' },
            limit: { type: 'integer', 'x-mcp-header': 'Limit' },
            query: { type: 'string' },
          },
          required: ['query'],
        },
        handler: ({ region, query }: { region?: string; query: string }) => {
          calls += 1;
          return `${region ?? 'anywhere'}: ${query}`;
        },
      }),
    );
    const { url, port } = await start(registry);
    const call = (args: Record<string, unknown>, headers: Record<string, string> = {}) =>
      modern(port, 'tools/call', { name: 'regional_query', arguments: args }, { headers });
    const missing = await call({ region: 'eu-west', query: 'q' });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32020,
        message:
          'Bad Request: the request headers and body disagree: the arguments have region="eu-west" but the Mcp-Param-Region header is missing.',
      },
    });
    const different = await call({ region: 'eu-west', query: 'q' }, { 'mcp-param-region': 'us-east' });
    expect(JSON.parse(different.body).error.message).toBe(
      'Bad Request: the request headers and body disagree: the Mcp-Param-Region header is "us-east" but the arguments have region="eu-west".',
    );
    const badBase64 = await call({ region: 'eu-west', query: 'q' }, { 'mcp-param-region': '=?base64?***?=' });
    expect(JSON.parse(badBase64.body).error.message).toBe(
      'Bad Request: the request headers and body disagree: the Mcp-Param-Region header is not valid Base64 between =?base64? and ?=.',
    );
    expect(calls).toBe(0);
    const encoded = `=?base64?${Buffer.from('zürich').toString('base64')}?=`;
    const agreed = answer(
      await call(
        { region: 'zürich', limit: 42, query: 'q' },
        { 'mcp-param-region': encoded, 'mcp-param-limit': '42.0' },
      ),
    );
    expect(agreed.result).toMatchObject({ content: [{ type: 'text', text: 'zürich: q' }] });
    // No value in the body: no header expected.
    expect(answer(await call({ query: 'q' })).result).toMatchObject({
      content: [{ type: 'text', text: 'anywhere: q' }],
    });
    // The SDK client mirrors the values into the headers itself.
    const client = await connectModern(url);
    const result = await client.callTool({ name: 'regional_query', arguments: { region: 'eu-west', query: 'q' } });
    expect(result.content).toEqual([{ type: 'text', text: 'eu-west: q' }]);
    expect(calls).toBe(3);
  });

  it('refuses a batch holding a 2026-07-28 request, a null id and a posted response with 400, and runs nothing', async () => {
    const { registry, calls } = countingRegistry();
    const { port } = await start(registry);
    const headers = {
      'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
      'mcp-method': 'tools/call',
      'mcp-name': 'count_call',
    };
    const call = {
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'count_call', arguments: {}, _meta: ENVELOPE },
    };
    const batch = await raw(port, { headers, body: JSON.stringify([{ ...call, id: 1 }]) });
    expect(batch.status).toBe(400);
    expect(JSON.parse(batch.body).error).toEqual({
      code: -32600,
      message: 'Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later',
    });
    for (const body of [
      { ...call, id: null },
      { jsonrpc: '2.0', id: 1, result: {}, _meta: ENVELOPE },
    ]) {
      const refused = await raw(port, { headers, body: JSON.stringify(body) });
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body).error).toEqual({
        code: -32600,
        message: 'Bad Request: the request body is not a valid JSON-RPC message',
      });
    }
    expect(calls()).toBe(0);
  });

  it('answers an unknown method with 404 and -32601', async () => {
    const { port } = await start();
    const response = await modern(port, 'tools/explode');
    expect(response.status).toBe(404);
    expect(answer(response).error).toMatchObject({ code: -32601 });
  });
});

describe('createModernMcpServer', () => {
  it('refuses settings out of range', () => {
    const registry = createConformanceRegistry();
    expect(() => createModernMcpServer(registry, { listTtlMs: -1 })).toThrow(
      'listTtlMs must be a whole number of milliseconds, 0 or more, got -1.',
    );
    expect(() => createModernMcpServer(registry, { cacheScope: 'shared' as never })).toThrow(
      "cacheScope must be 'public' or 'private', got shared.",
    );
    expect(() => createModernMcpServer(registry, { pageSize: 0 })).toThrow(
      'pageSize must be a whole number of at least 1, got 0.',
    );
  });
});
