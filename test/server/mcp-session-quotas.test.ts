import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltins } from '../../src/builtins/index.js';
import { createServer } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { sqliteHarness } from './server-harness.js';

const SESSION_NOT_FOUND =
  '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found: it was closed or never existed; send initialize to start a new one."},"id":null}';
const CLOSE_ONE =
  'end one with DELETE on the path it was opened on (/mcp or /mcp/agents/:agentId) and its Mcp-Session-Id header';
const TOKEN_FULL = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Too Many Requests: this API token has 3 MCP sessions open, its limit, and none is idle; ${CLOSE_ONE}, or have the operator raise maxSessionsPerToken (toolshed serve --mcp-max-sessions-per-token)."},"id":null}`;
const WORKSPACE_FULL = `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Too Many Requests: this workspace has 4 MCP sessions open, its limit, and none is idle; ${CLOSE_ONE}, or have the operator raise maxSessionsPerWorkspace (toolshed serve --mcp-max-sessions-per-workspace)."},"id":null}`;

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
});
const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe('MCP session quotas per token and per workspace', () => {
  const harness = sqliteHarness();
  let store: ToolshedStore;
  let app: FastifyInstance;
  let port: number;
  let counter = 0;
  const closers: Array<() => void> = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    store = await harness.open();
    await store.migrate();
    await store.tools.upsertBuiltins(createBuiltins());
    // Low quotas keep the counts small: 3 per token, 4 per workspace (40 in all, for the tests together).
    app = createServer({
      store,
      builtins: false,
      webCatalog: false,
      mcp: { maxSessionsPerToken: 3, maxSessionsPerWorkspace: 4, maxSessions: 40 },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  }, 30_000);

  afterEach(async () => {
    for (const close of closers.splice(0)) close();
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  });

  afterAll(async () => {
    await app?.close();
    await store?.close();
    await harness.teardown();
  }, 30_000);

  async function workspace(): Promise<string> {
    counter += 1;
    return (await store.workspaces.create({ id: `ws_quota_${counter}`, name: 'Quota test' })).id;
  }

  async function token(workspaceId: string): Promise<string> {
    return (await store.tokens.create(workspaceId, { name: 'mcp' })).token;
  }

  function post(bearer: string, body: string, sessionId?: string): Promise<RawResponse> {
    return send('POST', bearer, sessionId, body);
  }

  function send(method: string, bearer: string, sessionId: string | undefined, body?: string): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method,
          path: '/mcp',
          headers: {
            authorization: `Bearer ${bearer}`,
            accept: 'application/json, text/event-stream',
            'content-type': 'application/json',
            ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
          });
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
          );
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  /** initialize + notifications/initialized, as a client does; the session id. */
  async function openSession(bearer: string): Promise<string> {
    const opened = await post(bearer, INITIALIZE);
    expect([opened.status, opened.body]).toEqual([200, expect.stringContaining('"protocolVersion"')]);
    const sessionId = String(opened.headers['mcp-session-id']);
    const initialized = await post(
      bearer,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      sessionId,
    );
    expect(initialized.status).toBe(202);
    return sessionId;
  }

  /** The session's standalone SSE stream, held open until the test ends. */
  function holdStream(bearer: string, sessionId: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'GET',
          path: '/mcp',
          headers: { authorization: `Bearer ${bearer}`, accept: 'text/event-stream', 'mcp-session-id': sessionId },
        },
        (response) => {
          response.on('error', () => {});
          expect(response.statusCode).toBe(200);
          resolve();
        },
      );
      request.on('error', (error) => {
        if (!request.destroyed) reject(error);
      });
      closers.push(() => request.destroy());
      request.end();
    });
  }

  it('lets a flooding token keep only its newest sessions, and another workspace connect and call a tool', async () => {
    const flooded = await workspace();
    const flooder = await token(flooded);
    const opened: string[] = [];
    for (let index = 0; index < 15; index += 1) opened.push(await openSession(flooder));
    // The twelve oldest were closed to make room, least recently used first; the newest three answer.
    for (const [index, sessionId] of opened.entries()) {
      const listed = await post(flooder, TOOLS_LIST, sessionId);
      if (index < 12) expect([index, listed.status, listed.body]).toEqual([index, 404, SESSION_NOT_FOUND]);
      else expect([index, listed.status]).toEqual([index, 200]);
    }

    const other = await token(await workspace());
    const client = new Client({ name: 'other-workspace', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${other}` } },
      }),
    );
    clients.push(client);
    const result = await client.callTool({ name: 'calculator', arguments: { expression: '6 * 7' } });
    expect(result.isError).not.toBe(true);
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '')).toEqual({
      expression: '6 * 7',
      result: 42,
    });
    // A second token of the flooded workspace still gets in: the workspace holds 3 of its 4.
    expect((await post(await token(flooded), INITIALIZE)).status).toBe(200);
  });

  it('answers 429 with the way out when every session of the token holds an open stream', async () => {
    const owner = await token(await workspace());
    const busy: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const sessionId = await openSession(owner);
      await holdStream(owner, sessionId);
      busy.push(sessionId);
    }
    const refused = await post(owner, INITIALIZE);
    expect(refused.status).toBe(429);
    expect(refused.body).toBe(TOKEN_FULL);
    for (const sessionId of busy) expect((await post(owner, TOOLS_LIST, sessionId)).status).toBe(200);

    expect((await send('DELETE', owner, busy[0])).status).toBe(200);
    expect((await post(owner, INITIALIZE)).status).toBe(200);
  });

  it("makes room in a full workspace from the caller's own idle sessions first, else answers 429", async () => {
    const shared = await workspace();
    const first = await token(shared);
    const second = await token(shared);
    const firsts = [await openSession(first), await openSession(first), await openSession(first)];
    const secondOld = await openSession(second);
    // The workspace holds 4 of 4. The first token's sessions are older, but the second token gives way.
    const secondNew = await openSession(second);
    expect((await post(second, TOOLS_LIST, secondOld)).body).toBe(SESSION_NOT_FOUND);
    for (const sessionId of firsts) expect((await post(first, TOOLS_LIST, sessionId)).status).toBe(200);

    for (const sessionId of firsts) await holdStream(first, sessionId);
    await holdStream(second, secondNew);
    const refused = await post(second, INITIALIZE);
    expect(refused.status).toBe(429);
    expect(refused.body).toBe(WORKSPACE_FULL);
  });

  it('refuses quotas that are not whole numbers of at least 1, or a workspace quota above maxSessions', () => {
    expect(() => createServer({ store, builtins: false, mcp: { maxSessionsPerToken: 0 } })).toThrow(
      new TypeError('maxSessionsPerToken must be a whole number of at least 1, got 0.'),
    );
    expect(() => createServer({ store, builtins: false, mcp: { maxSessionsPerWorkspace: 2.5 } })).toThrow(
      new TypeError('maxSessionsPerWorkspace must be a whole number of at least 1, got 2.5.'),
    );
    expect(() => createServer({ store, builtins: false, mcp: { maxSessionsPerWorkspace: 2000 } })).toThrow(
      new TypeError('maxSessionsPerWorkspace (2000) is above maxSessions (1000); lower it or raise maxSessions.'),
    );
  });
});
