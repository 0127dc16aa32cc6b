import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createConformanceRegistry, waitingTool } from '../../test/mcp/conformance-tools.js';
import { handlerHarness } from '../../test/mcp/listen.js';
import { defineTool } from '../index.js';
import {
  createMcpHttpHandler,
  type McpHttpHandlerOptions,
  type McpSessionSharing,
  type McpSessionSignalMessage,
  type McpSharedSession,
} from './index.js';

const { cleanups, start } = handlerHarness();

async function connectClient(
  url: string,
  capabilities = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'toolshed-http-test', version: '1.0.0' }, { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request through node:http, which (unlike fetch) may set any Host header. */
function raw(
  port: number,
  options: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    chunked?: boolean;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? '/mcp',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          ...options.headers,
        },
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
    if (options.body !== undefined) {
      if (options.chunked === true) {
        // Several writes without a Content-Length: the size is only known while reading.
        const body = Buffer.from(options.body);
        for (let offset = 0; offset < body.length; offset += 64 * 1024)
          request.write(body.subarray(offset, offset + 64 * 1024));
      } else request.write(options.body);
    }
    request.end();
  });
}

const initialize = (id = 1) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
  });

/** The JSON-RPC messages in an SSE body (or the JSON body itself). */
function messages(response: RawResponse): Array<Record<string, unknown>> {
  if (String(response.headers['content-type']).startsWith('application/json')) return [JSON.parse(response.body)];
  return response.body
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)));
}

async function openSession(port: number, path = '/mcp', headers: Record<string, string> = {}): Promise<string> {
  const response = await raw(port, { path, headers, body: initialize() });
  expect(response.status).toBe(200);
  const sessionId = response.headers['mcp-session-id'];
  expect(typeof sessionId).toBe('string');
  const initialized = await raw(port, {
    path,
    headers: { ...headers, 'mcp-session-id': String(sessionId) },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(initialized.status).toBe(202);
  return String(sessionId);
}

/** A standalone SSE stream (GET) of a session, held open until `close`. */
function openStream(
  port: number,
  sessionId: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'GET',
        path: '/mcp',
        headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, ...headers },
      },
      (response) => {
        response.on('error', () => {});
        resolve({ status: response.statusCode ?? 0, close: () => request.destroy() });
      },
    );
    request.on('error', (error) => {
      if (!request.destroyed) reject(error);
    });
    request.end();
  });
}

const toolsList = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });

/** One sessionQuotas entry per caller, named by its `x-caller` header. */
const perCaller =
  (limit: number): McpHttpHandlerOptions['sessionQuotas'] =>
  (request) => [{ key: request.headers.get('x-caller') ?? '', limit, holder: 'this caller' }];

describe('MCP Streamable HTTP handler', () => {
  it('serves list, call, progress and sampling to the SDK client over HTTP sessions', async () => {
    const { url, handler } = await start();
    const { client, transport } = await connectClient(url, { sampling: {} });
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(handler.sessionCount).toBe(1);

    const listing = await client.listTools();
    expect(listing.tools).toHaveLength(14);
    expect(listing._meta?.tools_hash).toMatch(/^[0-9a-f]{64}$/);

    const progress: number[] = [];
    const called = await client.callTool({ name: 'test_tool_with_progress' }, undefined, {
      onprogress: (event) => progress.push(event.progress),
    });
    expect(called.content).toEqual([{ type: 'text', text: 'Tool with progress executed successfully' }]);
    expect(progress).toEqual([0, 50, 100]);

    client.setRequestHandler(CreateMessageRequestSchema, () => ({
      role: 'assistant',
      content: { type: 'text', text: 'from the client' },
      model: 'test-model',
    }));
    const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hello' } });
    expect(sampled.content).toEqual([{ type: 'text', text: 'LLM response: from the client' }]);
  });

  it('sends list_changed to an HTTP client on its standalone stream', async () => {
    const registry = createConformanceRegistry();
    const { url } = await start(registry);
    const { client } = await connectClient(url);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    await client.listTools();
    // The client opens its GET stream right after initialization; give it a moment to be there.
    await new Promise((resolve) => setTimeout(resolve, 100));
    registry.register(defineTool({ name: 'late_tool', description: 'Registered later.', handler: () => 'late' }));
    await expect.poll(() => changes).toBe(1);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('late_tool');
  });

  it('refuses a non-local Host with 403 (DNS-rebinding protection)', async () => {
    const { port } = await start();
    const response = await raw(port, { headers: { host: 'evil.example.com' }, body: initialize() });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: expect.stringContaining("Host 'evil.example.com' is not allowed") },
    });
  });

  it('refuses a foreign Origin with 403 and accepts local and same-origin ones', async () => {
    const { port } = await start();
    const foreign = await raw(port, { headers: { origin: 'https://evil.example.com' }, body: initialize() });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toContain("Origin 'https://evil.example.com' is not allowed");
    const nullOrigin = await raw(port, { headers: { origin: 'null' }, body: initialize() });
    expect(nullOrigin.status).toBe(403);
    const local = await raw(port, { headers: { origin: 'http://localhost:5173' }, body: initialize() });
    expect(local.status).toBe(200);
    const same = await raw(port, { headers: { origin: `http://127.0.0.1:${port}` }, body: initialize() });
    expect(same.status).toBe(200);
  });

  it('accepts hosts and origins listed in the options', async () => {
    const { port } = await start(createConformanceRegistry(), {
      allowedHosts: ['tools.example.com'],
      allowedOrigins: ['https://app.example.com'],
    });
    const allowed = await raw(port, {
      headers: { host: 'tools.example.com:8443', origin: 'https://app.example.com' },
      body: initialize(),
    });
    expect(allowed.status).toBe(200);
    const sameSite = await raw(port, {
      headers: { host: 'tools.example.com', origin: 'https://tools.example.com' },
      body: initialize(),
    });
    expect(sameSite.status).toBe(200);
    const other = await raw(port, { headers: { host: 'other.example.com' }, body: initialize() });
    expect(other.status).toBe(403);
    const garbage = await raw(port, { headers: { host: 'evil@127.0.0.1' }, body: initialize() });
    expect(garbage.status).toBe(403);
  });

  it('answers 400 to a request without a session id and 404 to an unknown one', async () => {
    const { port } = await start();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });

    const missing = await raw(port, { body: list });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body).error).toMatchObject({
      code: -32000,
      message: expect.stringContaining('Mcp-Session-Id'),
    });

    const unknown = await raw(port, { headers: { 'mcp-session-id': 'no-such-session' }, body: list });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).error).toMatchObject({
      code: -32001,
      message: expect.stringContaining('Session not found'),
    });

    const getWithout = await raw(port, { method: 'GET', headers: { accept: 'text/event-stream' } });
    expect(getWithout.status).toBe(400);
    const deleteUnknown = await raw(port, { method: 'DELETE', headers: { 'mcp-session-id': 'no-such-session' } });
    expect(deleteUnknown.status).toBe(404);
  });

  it('answers malformed JSON with a JSON-RPC parse error and 400', async () => {
    const { port } = await start();
    for (const body of ['{"jsonrpc": "2.0", "id": 1, "method": ', 'not json at all', '']) {
      const response = await raw(port, { body });
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    }
    const sessionId = await openSession(port);
    const inSession = await raw(port, { headers: { 'mcp-session-id': sessionId }, body: '{"jsonrpc":' });
    expect(inSession.status).toBe(400);
    expect(JSON.parse(inSession.body).error.code).toBe(-32700);
    // Bytes that are not UTF-8 are refused, never read with U+FFFD in their place (as over stdio).
    const call = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a';
    const notUtf8 = await raw(port, {
      headers: { 'mcp-session-id': sessionId },
      body: Buffer.concat([Buffer.from(call), Buffer.from([0xff, 0xfe]), Buffer.from('b"}}}')]),
    });
    expect([notUtf8.status, JSON.parse(notUtf8.body)]).toEqual([
      400,
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error: the request body is not valid UTF-8.' },
      },
    ]);
  });

  describe('the handshake', () => {
    const initializeWith = (params: unknown, id: unknown = 1) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', ...(params === undefined ? {} : { params }) });
    const clientInfo = { name: 'raw', version: '1.0.0' };
    const everyVersion = '2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07';

    it('answers an initialize whose params are wrong with -32602 naming the field, and opens no session', async () => {
      const { port, handler } = await start();
      const cases: Array<[unknown, string]> = [
        [undefined, "'params' is required (an object)."],
        [{ protocolVersion: 5, capabilities: {}, clientInfo }, "'params.protocolVersion' must be a string, got 5."],
        [
          { protocolVersion: '2025-11-25', capabilities: 'x', clientInfo },
          `'params.capabilities' must be an object, got "x".`,
        ],
      ];
      for (const [params, problem] of cases) {
        const response = await raw(port, { body: initializeWith(params) });
        expect([response.status, response.headers['mcp-session-id'], JSON.parse(response.body)]).toEqual([
          400,
          undefined,
          { jsonrpc: '2.0', id: 1, error: { code: -32602, message: `Invalid params for initialize: ${problem}` } },
        ]);
      }
      expect(handler.sessionCount).toBe(0);
    });

    it('answers an initialize naming a version it does not know with one it supports, and serves that', async () => {
      const { port } = await start();
      for (const version of ['abc', '9999-01-01', '1999-01-01']) {
        const response = await raw(port, {
          body: initializeWith({ protocolVersion: version, capabilities: {}, clientInfo }),
        });
        expect(messages(response)[0]).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
        const sessionId = String(response.headers['mcp-session-id']);
        // A stream of the session opens with the priming event that 2025-11-25 clients read.
        const listed = await raw(port, { headers: { 'mcp-session-id': sessionId }, body: toolsList });
        expect(listed.body.startsWith('id: '), version).toBe(true);
        expect(listed.body).toContain('retry: 1000\n');
      }
    });

    it('refuses an MCP-Protocol-Version it does not support on every request with 400, opening no session', async () => {
      const { port, handler } = await start();
      const sessionless = [
        toolsList,
        initializeWith({ protocolVersion: '2025-11-25', capabilities: {}, clientInfo }),
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      ];
      for (const version of ['abc', '9999-01-01', '2027-01-01']) {
        for (const body of sessionless) {
          const response = await raw(port, { headers: { 'mcp-protocol-version': version }, body });
          expect([response.status, JSON.parse(response.body)], `${version} ${body}`).toEqual([
            400,
            {
              jsonrpc: '2.0',
              id: null,
              error: {
                code: -32000,
                message: `Bad Request: Unsupported protocol version: ${version} (supported versions: ${everyVersion})`,
              },
            },
          ]);
        }
      }
      expect(handler.sessionCount).toBe(0);
    });

    it('refuses a second initialize in a session with -32600, and the session goes on', async () => {
      const { port } = await start();
      const sessionId = await openSession(port);
      const again = await raw(port, {
        headers: { 'mcp-session-id': sessionId },
        body: initializeWith({ protocolVersion: '2025-11-25', capabilities: {}, clientInfo }, 2),
      });
      expect([again.status, JSON.parse(again.body)]).toEqual([
        400,
        {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message:
              "Invalid Request: the session is already initialized; 'initialize' is sent once, to open a session (send it without an Mcp-Session-Id header to open a new one).",
          },
        },
      ]);
      const listed = await raw(port, { headers: { 'mcp-session-id': sessionId }, body: toolsList });
      expect(messages(listed)[0]).toMatchObject({ id: 2, result: { tools: expect.any(Array) } });
    });

    it('refuses a numeric id it cannot answer exactly (past 2^53) with -32600, id null', async () => {
      const { port, handler } = await start();
      const bigId = '123456789012345678901234567890';
      const expected = {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message:
            "Invalid Request: 'id' 1.2345678901234568e+29 is a number too large to be answered with the same id (a whole number between -9007199254740991 and 9007199254740991 is); send a smaller number or a string.",
        },
      };
      const opening = await raw(port, {
        body: `{"jsonrpc":"2.0","id":${bigId},"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1.0.0"}}}`,
      });
      expect([opening.status, JSON.parse(opening.body)]).toEqual([400, expected]);
      expect(handler.sessionCount).toBe(0);
      const sessionId = await openSession(port);
      const ping = await raw(port, {
        headers: { 'mcp-session-id': sessionId },
        body: `{"jsonrpc":"2.0","id":${bigId},"method":"ping"}`,
      });
      expect([ping.status, JSON.parse(ping.body)]).toEqual([400, expected]);
      const batch = await raw(port, {
        headers: { 'mcp-session-id': sessionId },
        body: `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":-${bigId},"method":"ping"}]`,
      });
      expect(JSON.parse(batch.body).error.message).toContain("'id' -1.2345678901234568e+29 is a number too large");
    });
  });

  describe('request ids under way', () => {
    /** A registry with a call that waits for `release`, so a request stays under way. */
    function waitingRegistry() {
      const registry = createConformanceRegistry();
      const { tool, release } = waitingTool();
      registry.register(tool);
      return { registry, release };
    }
    const call = (id: unknown, name: string) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

    it('refuses an id its client already has under way, and still answers the first request', async () => {
      const { registry, release } = waitingRegistry();
      const { port } = await start(registry);
      const sessionId = await openSession(port);
      const headers = { 'mcp-session-id': sessionId };
      const first = raw(port, { headers, body: call(42, 'wait_here') });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const again = await raw(port, { headers, body: call(42, 'echo') });
      expect(again.status).toBe(400);
      expect(JSON.parse(again.body)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message:
            'Request id 42 is already in use by a request of this session that has not been answered; send each request with a new id.',
        },
      });
      // A batch that takes one id twice is refused whole, and takes none.
      const twice = await raw(port, { headers, body: `[${call('b', 'echo')},${call('b', 'echo')}]` });
      expect(JSON.parse(twice.body).error.message).toContain('Request id "b" is already in use');
      release();
      expect(messages(await first)).toEqual([expect.objectContaining({ id: 42, result: expect.anything() })]);
      // Answered, the id is free again, and so is "b".
      const reused = await raw(port, { headers, body: call(42, 'wait_here') });
      expect(messages(reused)).toEqual([expect.objectContaining({ id: 42, result: expect.anything() })]);
      const batch = await raw(port, { headers, body: call('b', 'wait_here') });
      expect(messages(batch)[0]).toMatchObject({ id: 'b' });
    });

    it('refuses an MCP-Protocol-Version it does not support on a session request, with 400', async () => {
      const { port } = await start();
      const sessionId = await openSession(port);
      for (const version of ['1999-01-01', '0', '', ' ']) {
        const response = await raw(port, {
          headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': version },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        });
        expect(response.status, JSON.stringify(version)).toBe(400);
        expect(JSON.parse(response.body).error.message).toMatch(
          new RegExp(
            `^Bad Request: Unsupported protocol version: ${version.trim() === '' ? '' : version} ?\\(supported versions: `,
          ),
        );
      }
      const supported = await raw(port, {
        headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
      expect(supported.status).toBe(200);
    });

    it('answers a request whose params its method refuses with -32602 saying what is wrong', async () => {
      const { port } = await start();
      const sessionId = await openSession(port);
      const headers = { 'mcp-session-id': sessionId };
      const cases: Array<[string, unknown, string]> = [
        ['tools/call', { name: 'echo', arguments: 'x' }, `'params.arguments' must be an object, got "x".`],
        ['tools/call', { arguments: {} }, "'params.name' is required (a string)."],
        ['tools/list', { cursor: 5 }, "'params.cursor' must be a string, got 5."],
      ];
      for (const [method, params, problem] of cases) {
        const response = await raw(port, {
          headers,
          body: JSON.stringify({ jsonrpc: '2.0', id: 'p', method, params }),
        });
        expect(messages(response)).toEqual([
          { jsonrpc: '2.0', id: 'p', error: { code: -32602, message: `Invalid params for ${method}: ${problem}` } },
        ]);
      }
    });

    it('ends the stream of a request its client cancels, with a -32800 answer the client ignores', async () => {
      const { registry } = waitingRegistry();
      const { port, handler } = await start(registry);
      const sessionId = await openSession(port);
      const headers = { 'mcp-session-id': sessionId };
      const pending = raw(port, { headers, body: call('c1', 'wait_here') });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const cancel = await raw(port, {
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1' } }),
      });
      expect(cancel.status).toBe(202);
      // Before, this stream never ended: no answer follows a cancellation.
      expect(messages(await pending)).toEqual([
        {
          jsonrpc: '2.0',
          id: 'c1',
          error: { code: -32800, message: 'The request was cancelled by the client; no result follows.' },
        },
      ]);
      // The id is free again, and the session is idle (no stream left open).
      const again = await raw(port, { headers, body: call('c1', 'echo') });
      expect(messages(again)[0]).toMatchObject({ id: 'c1' });
      expect(handler.sessionCount).toBe(1);
    });
  });

  it('refuses an oversized body with 413, declared or streamed', async () => {
    const { port } = await start(createConformanceRegistry(), { maxBodyBytes: 1024 });
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { padding: 'x'.repeat(300_000) },
    });
    const declared = await raw(port, { body: big });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error.message).toContain('exceeds 1024 bytes');
    const streamed = await raw(port, { body: big, chunked: true });
    expect(streamed.status).toBe(413);
    // The server is still fine afterwards.
    expect((await raw(port, { body: initialize() })).status).toBe(200);
  });

  it('ends a session on DELETE', async () => {
    const { port, handler } = await start();
    const sessionId = await openSession(port);
    expect(handler.sessionCount).toBe(1);
    const listed = await raw(port, {
      headers: { 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(listed.status).toBe(200);
    expect(messages(listed)[0]).toMatchObject({ id: 2, result: { tools: expect.any(Array) } });

    const deleted = await raw(port, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    expect(deleted.status).toBe(200);
    expect(handler.sessionCount).toBe(0);
    const after = await raw(port, {
      headers: { 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
  });

  it('answers other methods with 405 and an Allow header', async () => {
    const { port } = await start();
    const response = await raw(port, { method: 'PUT', body: initialize() });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST, GET, DELETE');
  });

  it('serves a registry per path through a resolver, and keeps each session on its own path', async () => {
    const agents = new Map([
      ['alpha', createConformanceRegistry().subset(['test_simple_text'])],
      ['beta', createConformanceRegistry().subset(['test_error_handling'])],
    ]);
    const { port } = await start((request) => {
      const match = /^\/mcp\/agents\/([a-z]+)$/.exec(new URL(request.url).pathname);
      return match === null ? undefined : agents.get(match[1] as string);
    });
    const alpha = await openSession(port, '/mcp/agents/alpha');
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const listed = await raw(port, { path: '/mcp/agents/alpha', headers: { 'mcp-session-id': alpha }, body: list });
    expect(messages(listed)[0]).toMatchObject({ result: { tools: [{ name: 'test_simple_text' }] } });

    const elsewhere = await raw(port, { path: '/mcp/agents/beta', headers: { 'mcp-session-id': alpha }, body: list });
    expect(elsewhere.status).toBe(404);
    const nobody = await raw(port, { path: '/mcp/agents/gamma', body: initialize() });
    expect(nobody.status).toBe(404);
    expect(JSON.parse(nobody.body).error.message).toContain("no MCP endpoint at '/mcp/agents/gamma'");
  });

  it("binds a session to the caller's scope, so its id is useless with another caller's credentials", async () => {
    const { port } = await start(createConformanceRegistry(), {
      sessionScope: (request) => request.headers.get('x-workspace') ?? undefined,
    });
    const sessionId = await openSession(port, '/mcp', { 'x-workspace': 'ws_a' });
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const own = await raw(port, { headers: { 'x-workspace': 'ws_a', 'mcp-session-id': sessionId }, body: list });
    expect(own.status).toBe(200);
    const other = await raw(port, { headers: { 'x-workspace': 'ws_b', 'mcp-session-id': sessionId }, body: list });
    expect(other.status).toBe(404);
    const none = await raw(port, { headers: { 'mcp-session-id': sessionId }, body: list });
    expect(none.status).toBe(404);
  });

  it('refuses new sessions beyond maxSessions with 503', async () => {
    const { port } = await start(createConformanceRegistry(), { maxSessions: 1 });
    await openSession(port);
    const second = await raw(port, { body: initialize() });
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBe('60');
  });

  it('closes sessions that stay idle longer than sessionIdleMs', async () => {
    const { port, handler } = await start(createConformanceRegistry(), { sessionIdleMs: 50 });
    const sessionId = await openSession(port);
    expect(handler.sessionCount).toBe(1);
    await expect.poll(() => handler.sessionCount, { timeout: 3000 }).toBe(0);
    const after = await raw(port, {
      headers: { 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
  });

  it('serves web-standard requests through fetch', async () => {
    const handler = createMcpHttpHandler(createConformanceRegistry());
    cleanups.push(() => handler.close());
    const response = await handler.fetch(
      new Request('http://localhost:4319/mcp', {
        method: 'POST',
        headers: {
          host: 'localhost:4319',
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
        },
        body: initialize(),
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeTruthy();
    expect(await response.text()).toContain('"protocolVersion":"2025-11-25"');
    await handler.close();
    expect(handler.sessionCount).toBe(0);
  });

  it("closes a caller's least recently used idle session at its quota, and no one else's", async () => {
    const { port, handler } = await start(createConformanceRegistry(), { sessionQuotas: perCaller(2) });
    const a = { 'x-caller': 'a' };
    const first = await openSession(port, '/mcp', a);
    const second = await openSession(port, '/mcp', a);
    const other = await openSession(port, '/mcp', { 'x-caller': 'b' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Using the first makes the second the least recently used.
    expect((await raw(port, { headers: { ...a, 'mcp-session-id': first }, body: toolsList })).status).toBe(200);
    const third = await openSession(port, '/mcp', a);
    expect(handler.sessionCountOf('a')).toBe(2);
    const evicted = await raw(port, { headers: { ...a, 'mcp-session-id': second }, body: toolsList });
    expect(evicted.status).toBe(404);
    expect(JSON.parse(evicted.body)).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32001,
        message: 'Session not found: it was closed or never existed; send initialize to start a new one.',
      },
      id: null,
    });
    for (const [headers, id] of [
      [a, first],
      [a, third],
      [{ 'x-caller': 'b' }, other],
    ] as const) {
      expect((await raw(port, { headers: { ...headers, 'mcp-session-id': id }, body: toolsList })).status).toBe(200);
    }
    expect(handler.sessionCount).toBe(3);
  });

  it('answers 429 when every session under the quota has an open stream, until one ends', async () => {
    const { port, handler } = await start(createConformanceRegistry(), { sessionQuotas: perCaller(2) });
    const a = { 'x-caller': 'a' };
    const streams: Array<{ status: number; close(): void }> = [];
    const ids = [await openSession(port, '/mcp', a), await openSession(port, '/mcp', a)];
    for (const id of ids) {
      const stream = await openStream(port, id, a);
      expect(stream.status).toBe(200);
      streams.push(stream);
    }
    cleanups.push(async () => {
      for (const stream of streams) stream.close();
    });
    const refused = await raw(port, { headers: a, body: initialize() });
    expect(refused.status).toBe(429);
    expect(refused.body).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Too Many Requests: this caller has 2 MCP sessions open, its limit, and none is idle; end one with DELETE and its Mcp-Session-Id header."},"id":null}',
    );
    expect(handler.sessionCountOf('a')).toBe(2);
    // Another caller is not affected.
    expect((await raw(port, { headers: { 'x-caller': 'b' }, body: initialize() })).status).toBe(200);
    // A stream that ends makes its session idle, so it can give way.
    streams[0]?.close();
    await expect
      .poll(async () => (await raw(port, { headers: a, body: initialize() })).status, { timeout: 3000 })
      .toBe(200);
    expect((await raw(port, { headers: { ...a, 'mcp-session-id': ids[0] as string }, body: toolsList })).status).toBe(
      404,
    );
    expect((await raw(port, { headers: { ...a, 'mcp-session-id': ids[1] as string }, body: toolsList })).status).toBe(
      200,
    );
  });

  it('counts initializes under way against the quota, so concurrent ones cannot overshoot it', async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const registry = createConformanceRegistry();
    const { port, handler } = await start(
      async () => {
        await gate;
        return registry;
      },
      { sessionQuotas: perCaller(3) },
    );
    const a = { 'x-caller': 'a' };
    const early: number[] = [];
    const answers = Array.from({ length: 6 }, () =>
      raw(port, { headers: a, body: initialize() }).then((response) => {
        early.push(response.status);
        return response;
      }),
    );
    // Three wait at the gate holding the quota; the other three are refused at once.
    await expect.poll(() => early.length, { timeout: 3000 }).toBe(3);
    expect(early).toEqual([429, 429, 429]);
    open();
    const statuses = (await Promise.all(answers)).map((response) => response.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    expect(handler.sessionCountOf('a')).toBe(3);
  });
});

/** Sessions shared in memory between handlers, as a database and its notifications would share them. */
function memorySharing(): McpSessionSharing & {
  records: Map<string, McpSharedSession>;
  holdReads(): () => void;
  resync(): void;
} {
  const records = new Map<string, McpSharedSession>();
  const listeners = new Set<(message: McpSessionSignalMessage) => void>();
  const resyncListeners = new Set<() => void>();
  let held: Promise<void> | undefined;
  return {
    records,
    /** Reads from now on see the records as they are now, but answer only once released. */
    holdReads() {
      let release = () => {};
      held = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        held = undefined;
        release();
      };
    },
    async create(session) {
      records.set(session.id, session);
    },
    async get(id) {
      const record = records.get(id);
      await held;
      return record;
    },
    async touch(id) {
      return records.has(id);
    },
    async delete(id) {
      return records.delete(id);
    },
    async pruneExpired() {
      return 0;
    },
    async signal(message) {
      queueMicrotask(() => {
        for (const listener of listeners) listener(message);
      });
    },
    onSignal(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** As after a dropped connection: signals sent meanwhile were lost. */
    resync() {
      for (const listener of resyncListeners) listener();
    },
    onResync(listener) {
      resyncListeners.add(listener);
      return () => resyncListeners.delete(listener);
    },
  };
}

describe('MCP Streamable HTTP handler with shared sessions', () => {
  it('serves a session opened on one server from another, and ends it on both with one DELETE', async () => {
    const sharing = memorySharing();
    const a = await start(createConformanceRegistry(), { sessions: sharing });
    const b = await start(createConformanceRegistry(), { sessions: sharing });
    const sessionId = await openSession(a.port);
    const listed = await raw(b.port, { headers: { 'mcp-session-id': sessionId }, body: toolsList });
    expect(listed.status).toBe(200);
    expect(b.handler.sessionCount).toBe(1);

    const deleted = await raw(a.port, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    expect(deleted.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(b.handler.sessionCount).toBe(0);
    const after = await raw(b.port, { headers: { 'mcp-session-id': sessionId }, body: toolsList });
    expect(after.status).toBe(404);
  });

  it('does not keep a session that was ended elsewhere while this server was opening it again', async () => {
    const sharing = memorySharing();
    const a = await start(createConformanceRegistry(), { sessions: sharing });
    const b = await start(createConformanceRegistry(), { sessions: sharing });
    const sessionId = await openSession(a.port);
    // B reads the record, but the answer arrives only after the DELETE on A and its signal.
    const release = sharing.holdReads();
    const late = raw(b.port, { headers: { 'mcp-session-id': sessionId }, body: toolsList });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const deleted = await raw(a.port, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    expect(deleted.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    expect((await late).status).toBe(404);
    expect(b.handler.sessionCount).toBe(0);
    const after = await raw(b.port, { headers: { 'mcp-session-id': sessionId }, body: toolsList });
    expect(after.status).toBe(404);
    expect(sharing.records.size).toBe(0);
  });

  it('lets go of sessions that ended while their closing signal was lost, once told to resync', async () => {
    const sharing = memorySharing();
    const a = await start(createConformanceRegistry(), { sessions: sharing });
    const b = await start(createConformanceRegistry(), { sessions: sharing });
    const ended = await openSession(a.port);
    const kept = await openSession(a.port);
    for (const sessionId of [ended, kept]) {
      const listed = await raw(b.port, { headers: { 'mcp-session-id': sessionId }, body: toolsList });
      expect(listed.status).toBe(200);
    }
    expect(b.handler.sessionCount).toBe(2);
    // Ended with no signal heard, as when the listening connection was down.
    sharing.records.delete(ended);
    sharing.resync();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(b.handler.sessionCount).toBe(1);
    expect((await raw(b.port, { headers: { 'mcp-session-id': ended }, body: toolsList })).status).toBe(404);
    expect((await raw(b.port, { headers: { 'mcp-session-id': kept }, body: toolsList })).status).toBe(200);
  });
});
