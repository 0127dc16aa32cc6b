import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolshedStore } from '../../src/store/index.js';
import { databaseSnapshot } from './database-snapshot.js';
import { openHostileServer, postgresHarness, sqliteHarness } from './server-harness.js';

// The cases measured by hand against `toolshed serve`: each a 400 naming the limit and the field,
// nothing written by a refused request, and every 5xx logged, counted and carrying its request id.

for (const harness of [sqliteHarness(), postgresHarness()]) {
  describe(`on ${harness.dialect}`, () => {
    let store: ToolshedStore;
    let app: FastifyInstance;
    let headers: Record<string, string>;
    const logLines: string[] = [];

    function nested(kind: 'array' | 'object', depth: number): string {
      return kind === 'array'
        ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
        : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    }

    function post(url: string, payload: string) {
      return app.inject({ method: 'POST', url, headers, payload });
    }

    beforeAll(async () => {
      ({ store, app, headers } = await openHostileServer(harness, 'ws_hostile', logLines));
    }, 30_000);

    afterAll(async () => {
      await app?.close();
      await store?.close();
      await harness.teardown();
    });

    it('refuses a call whose body is JSON null, as every other route does, and runs nothing', async () => {
      const before = await databaseSnapshot(store);
      const response = await post('/api/tools/calculator/call', 'null');
      expect([response.statusCode, response.json()]).toEqual([
        400,
        {
          error: {
            code: 'VALIDATION_ERROR',
            message: 'The request body must be a JSON object, got null.',
            details: { field: 'body' },
          },
        },
      ]);
      expect(await databaseSnapshot(store)).toEqual(before);
    });

    describe('text a REST body cannot carry', () => {
      it('refuses bytes that are not UTF-8 and lone surrogates, writing nothing, and keeps a pair as sent', async () => {
        const before = await databaseSnapshot(store);
        const bytes = await app.inject({
          method: 'POST',
          url: '/api/agents',
          headers: { ...headers, 'content-type': 'application/json' },
          payload: Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}')]),
        });
        expect([bytes.statusCode, bytes.json()]).toEqual([
          400,
          {
            error: {
              code: 'VALIDATION_ERROR',
              message: 'The request body is not valid UTF-8.',
              details: { field: 'body' },
            },
          },
        ]);
        for (const [payload, field] of [
          ['{"name":"\\ud800"}', 'name'],
          ['{"name":"ok","description":"a\\udc00b"}', 'description'],
          ['{"name":"ok","tags":["x","\\uD83D"]}', 'tags[1]'],
          ['{"\\ud800":1}', '\ud800'],
        ] as const) {
          const response = await post('/api/agents', payload);
          expect([response.statusCode, response.json()], payload).toEqual([
            400,
            {
              error: {
                code: 'VALIDATION_ERROR',
                message: `The request body has a lone UTF-16 surrogate (a \\ud800–\\udfff escape without its pair) at '${field}', which no text can hold; send valid Unicode.`,
                details: { field },
              },
            },
          ]);
        }
        expect(await databaseSnapshot(store)).toEqual(before);
        const paired = await post('/api/agents', '{"name":"smile \\ud83d\\ude00"}');
        expect(paired.statusCode).toBe(201);
        const id = (paired.json() as { id: string }).id;
        const read = await app.inject({ method: 'GET', url: `/api/agents/${id}`, headers });
        expect((read.json() as { name: string }).name).toBe('smile 😀');
        await app.inject({ method: 'DELETE', url: `/api/agents/${id}`, headers });
      });
    });

    describe('limits on a REST body', () => {
      it('answers arguments nested 6 000 levels deep 400 naming the depth limit and the field', async () => {
        const before = await databaseSnapshot(store);
        const response = await post(
          '/api/tools/calculator/call',
          `{"arguments":{"expression":${nested('array', 6_000)}}}`,
        );
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({
          error: {
            code: 'VALIDATION_ERROR',
            message:
              "The request body is nested more than 256 levels deep at 'arguments.expression[0][0][0][0][0][0]…' (limit: depth 256).",
            details: { field: 'arguments.expression[0][0][0][0][0][0]…', limit: 'depth', max: 256 },
          },
        });
        expect(await databaseSnapshot(store)).toEqual(before);
      });

      it('refuses a config nested 5 000 levels deep on attach, writes nothing, and a retry is not a conflict', async () => {
        const before = await databaseSnapshot(store);
        const listedBefore = await app.inject({ method: 'GET', url: '/api/agents/research/tools', headers });
        const body = `{"tool_id":"calculator","config":${nested('object', 5_000)}}`;
        const response = await post('/api/agents/research/tools', body);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({
          error: {
            code: 'VALIDATION_ERROR',
            message:
              "The request body is nested more than 256 levels deep at 'config.a.a.a.a.a.a.a…' (limit: depth 256).",
            details: { field: 'config.a.a.a.a.a.a.a…', limit: 'depth', max: 256 },
          },
        });
        expect(await databaseSnapshot(store)).toEqual(before);
        const listed = await app.inject({ method: 'GET', url: '/api/agents/research/tools', headers });
        expect(listed.body).toBe(listedBefore.body);
        const retry = await post('/api/agents/research/tools', '{"tool_id":"calculator","config":{"a":1}}');
        expect(retry.statusCode).toBe(201);
        await app.inject({ method: 'DELETE', url: '/api/agents/research/tools/calculator', headers });
      });

      it('refuses a config nested too deeply handed to the store directly, before writing', async () => {
        let config: Record<string, unknown> = { leaf: 1 };
        for (let level = 0; level < 5_000; level += 1) config = { a: config };
        const before = await databaseSnapshot(store);
        await expect(store.attachments.attach('ws_hostile', 'research', 'calculator', config)).rejects.toThrow(
          "config is nested more than 256 levels deep at 'a.a.a.a.a.a.a.a…' (limit: depth 256).",
        );
        expect(await databaseSnapshot(store)).toEqual(before);
      });

      it.each([
        ['arguments', '{"arguments":{"__proto__":{"isAdmin":true}}}', "'__proto__' at 'arguments'", 'arguments'],
        ['the body', '{"__proto__":{"x":1},"arguments":{}}', "'__proto__'", 'body'],
        // The only check of prototype keys: an escaped one is decoded before it is compared.
        [
          'an escaped key',
          '{"arguments":{"\\u005f_proto__":{"isAdmin":true}}}',
          "'__proto__' at 'arguments'",
          'arguments',
        ],
        [
          'constructor.prototype',
          '{"arguments":{"constructor":{"prototype":{"x":1}}}}',
          "'constructor.prototype' at 'arguments.constructor'",
          'arguments.constructor',
        ],
      ])('says a prototype key in %s is refused, not that the JSON is invalid', async (_where, body, named, field) => {
        const before = await databaseSnapshot(store);
        const response = await post('/api/tools/calculator/call', body);
        expect(response.statusCode).toBe(400);
        const key = named.includes('constructor') ? 'constructor.prototype' : '__proto__';
        expect(response.json()).toEqual({
          error: {
            code: 'VALIDATION_ERROR',
            message: `The request body has the key ${named}, which is refused: it could change the prototype of an object it is copied into.`,
            details: { field, limit: 'refusedKey', key },
          },
        });
        expect(await databaseSnapshot(store)).toEqual(before);
      });

      it('takes a key named constructor whose value is not a prototype object', async () => {
        const response = await post('/api/tools/calculator/call', '{"arguments":{"expression":"1+1","constructor":1}}');
        expect(response.statusCode).toBe(200);
      });

      it('refuses duplicate keys with 400 naming the key, and writes nothing', async () => {
        const before = await databaseSnapshot(store);
        const response = await post('/api/agents/research/tools', '{"tool_id":"calculator","tool_id":"read_file"}');
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({
          error: {
            code: 'VALIDATION_ERROR',
            message: "The request body has the key 'tool_id' twice; send each key once.",
            details: { field: 'body', limit: 'duplicateKey', key: 'tool_id' },
          },
        });
        expect(await databaseSnapshot(store)).toEqual(before);
      });

      it('refuses a list over the item limit and a string over the character limit', async () => {
        const items = await post(
          '/api/tools/calculator/call',
          `{"arguments":{"expression":[${'1,'.repeat(100_000)}1]}}`,
        );
        expect(items.statusCode).toBe(400);
        expect(items.json().error.message).toBe(
          "The request body has a list of more than 100000 items at 'arguments.expression' (limit: arrayItems 100000).",
        );
        const text = await post('/api/tools/calculator/call', `{"arguments":{"expression":"${'x'.repeat(524_289)}"}}`);
        expect(text.statusCode).toBe(400);
        expect(text.json().error.message).toBe(
          "The request body has a string longer than 524288 characters at 'arguments.expression' (limit: stringChars 524288).",
        );
      });

      it('answers a body over 1 MiB 413', async () => {
        const response = await post(
          '/api/tools/calculator/call',
          `{"arguments":{"expression":"${'x'.repeat(1_048_576)}"}}`,
        );
        expect(response.statusCode).toBe(413);
        expect(response.json()).toEqual({
          error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than the limit.' },
        });
      });
    });

    describe('limits on the MCP endpoint', () => {
      const mcp = (payload: string) =>
        app.inject({
          method: 'POST',
          url: '/mcp',
          headers: { ...headers, accept: 'application/json, text/event-stream' },
          payload,
        });

      it('answers a JSON-RPC body nested 6 000 levels deep 400 with an Invalid Request naming the limit', async () => {
        const before = await databaseSnapshot(store);
        const response = await mcp(
          `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calculator","arguments":{"expression":${nested('array', 6_000)}}}}`,
        );
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({
          jsonrpc: '2.0',
          error: {
            code: -32600,
            message:
              "Invalid Request: the request body is nested more than 256 levels deep at 'params.arguments.expression[0][0][0][0][0]…' (limit: depth 256).",
          },
          id: null,
        });
        expect(await databaseSnapshot(store)).toEqual(before);
      });

      it('answers a prototype key and a duplicate key with what is refused', async () => {
        const proto = await mcp('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"__proto__":{}}}');
        expect(proto.statusCode).toBe(400);
        expect(proto.json().error).toEqual({
          code: -32600,
          message:
            "Invalid Request: the request body has the key '__proto__' at 'params', which is refused: it could change the prototype of an object it is copied into.",
        });
        const twice = await mcp('{"jsonrpc":"2.0","id":1,"id":2,"method":"initialize"}');
        expect(twice.json().error).toEqual({
          code: -32600,
          message: "Invalid Request: the request body has the key 'id' twice; send each key once.",
        });
      });

      it('answers a body over 1 MiB 413', async () => {
        const response = await mcp(
          `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'x'.repeat(1_048_576)}"}}`,
        );
        expect(response.statusCode).toBe(413);
        expect(response.json().error.message).toBe('Payload Too Large: the request body exceeds 1048576 bytes.');
      });
    });

    describe('a request that fails on the server side', () => {
      it('is logged in one line with its route and request id, counted in /metrics, and its id is in the answer', async () => {
        const list = store.agents.list.bind(store.agents);
        Object.assign(store.agents, {
          list: () => {
            throw new TypeError('boom in the store');
          },
        });
        logLines.length = 0;
        try {
          const response = await app.inject({
            method: 'GET',
            url: '/api/agents?secret=tsk_do_not_log',
            headers: { ...headers, authorization: `${headers.authorization}` },
          });
          expect(response.statusCode).toBe(500);
          const requestId = response.headers['x-request-id'];
          expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
          expect(response.json()).toEqual({
            error: { code: 'INTERNAL', message: 'Something went wrong on the server.', request_id: requestId },
          });
          expect(logLines).toHaveLength(1);
          const line = logLines[0] ?? '';
          expect(line.trimEnd().includes('\n')).toBe(false);
          expect(JSON.parse(line)).toMatchObject({
            level: 50,
            request_id: requestId,
            route: 'GET /api/agents',
            status: 500,
            error: { type: 'TypeError', code: 'INTERNAL', message: 'boom in the store' },
            msg: 'request failed on the server side',
          });
          expect(line).not.toContain(headers.authorization?.slice('Bearer '.length));
          const metrics = await app.inject({ method: 'GET', url: '/metrics' });
          expect(metrics.body).toContain('toolshed_http_server_errors_total{route="GET /api/agents",status="500"} 1');
        } finally {
          Object.assign(store.agents, { list });
        }
      });

      it('logs and counts a 5xx the MCP endpoint answers itself, with the request id in its header', async () => {
        const defaultTools = store.workspaces.defaultTools.bind(store.workspaces);
        Object.assign(store.workspaces, {
          defaultTools: () => {
            throw new TypeError('boom in the MCP view');
          },
        });
        logLines.length = 0;
        try {
          const response = await app.inject({
            method: 'POST',
            url: '/mcp',
            headers: { ...headers, accept: 'application/json, text/event-stream' },
            payload: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'initialize',
              params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
            }),
          });
          expect(response.statusCode).toBe(500);
          expect(response.json()).toEqual({
            jsonrpc: '2.0',
            error: { code: -32603, message: 'Internal error: could not resolve the tools to serve.' },
            id: null,
          });
          const requestId = response.headers['x-request-id'];
          expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
          const logged = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
          expect(logged).toContainEqual(
            expect.objectContaining({ request_id: requestId, route: 'POST /mcp', status: response.statusCode }),
          );
          const metrics = await app.inject({ method: 'GET', url: '/metrics' });
          expect(metrics.body).toContain(
            `toolshed_http_server_errors_total{route="POST /mcp",status="${response.statusCode}"} 1`,
          );
        } finally {
          Object.assign(store.workspaces, { defaultTools });
        }
      });

      it('gives every answer an X-Request-Id of its own, ignoring the one a client sends', async () => {
        const first = await app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'forged' } });
        const second = await app.inject({ method: 'GET', url: '/nowhere' });
        expect(first.headers['x-request-id']).not.toBe('forged');
        expect(first.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
        expect(second.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
        expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
      });
    });
  });
}
