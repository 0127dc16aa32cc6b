import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltins } from '../../src/builtins/index.js';
import { createServer } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { postgresHarness, type ServerStoreHarness, sqliteHarness } from './server-harness.js';

describe.each([sqliteHarness(), postgresHarness()] as ServerStoreHarness[])(
  'the default tool set over REST ($dialect)',
  (harness) => {
    let store: ToolshedStore;
    let app: FastifyInstance;
    let base: string;
    let token: string;
    let counter = 0;

    beforeAll(async () => {
      store = await harness.open();
      await store.migrate();
      await store.tools.upsertBuiltins(createBuiltins());
      app = createServer({ store, webCatalog: false, builtins: false });
      await app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    }, 30_000);

    afterAll(async () => {
      await app?.close();
      await store?.close();
      await harness.teardown();
    }, 30_000);

    async function workspace(): Promise<{ id: string; token: string }> {
      counter += 1;
      const id = `ws_default_${counter}`;
      await store.workspaces.create({ id, name: 'Default set test' });
      ({ token } = await store.tokens.create(id, { name: 'test' }));
      return { id, token };
    }

    async function send(ws: { id: string; token: string }, method: string, body?: string) {
      const response = await fetch(`${base}/api/workspace/default-tools`, {
        method,
        headers: {
          authorization: `Bearer ${ws.token}`,
          'x-workspace-id': ws.id,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }

    const ids = (body: Record<string, unknown>) => (body.tools as Array<{ id: string }>).map((tool) => tool.id);

    it('chooses the set /mcp serves, tells its sessions, and resets it to every tool', async () => {
      const ws = await workspace();
      const everything = await send(ws, 'GET');
      expect(everything.status).toBe(200);
      expect(everything.body.custom).toBe(false);
      expect(ids(everything.body)).toContain('write_file');

      const client = new Client({ name: 'toolshed-default-set', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL('/mcp', base), {
          requestInit: { headers: { authorization: `Bearer ${ws.token}` } },
        }),
      );
      try {
        const told = new Promise<void>((resolve) => {
          client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
        });
        const chosen = await send(ws, 'PUT', JSON.stringify({ tool_ids: ['read_file', 'calculator', 'read_file'] }));
        expect(chosen).toEqual({ status: 200, body: expect.objectContaining({ custom: true }) });
        expect(ids(chosen.body)).toEqual(['calculator', 'read_file']);
        await told;
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['calculator', 'read_file']);
      } finally {
        await client.close();
      }
      const reset = await send(ws, 'DELETE');
      expect(reset.status).toBe(200);
      expect(reset.body.custom).toBe(false);
      expect(ids(reset.body)).toEqual(ids(everything.body));
    });

    it.each([
      ['not JSON', '{tool_ids:', 400, 'body', /^The request body is not valid JSON/],
      ['an array body', '[]', 400, 'body', /^The request body must be a JSON object, got an array\.$/],
      [
        'a string',
        '{"tool_ids": "read_file"}',
        400,
        'tool_ids',
        /^'tool_ids' must be an array of tool ids, got "read_file"\.$/,
      ],
      ['null', '{"tool_ids": null}', 400, 'tool_ids', /^'tool_ids' must be an array of tool ids, got null\.$/],
      [
        'a number in it',
        '{"tool_ids": ["read_file", 7]}',
        400,
        'tool_ids',
        /^'tool_ids\[1\]' must be a tool id like 'read_file', got 7\.$/,
      ],
      [
        'a hostile name',
        '{"tool_ids": ["read_file\\u0000; DROP TABLE tools"]}',
        400,
        'tool_ids',
        /^'tool_ids\[0\]' must be a tool id like 'read_file', got /,
      ],
      ['an unknown field', '{"tool_ids": [], "everything": true}', 400, 'everything', /everything/],
      [
        'too many ids',
        JSON.stringify({ tool_ids: Array.from({ length: 1001 }, (_, index) => `tool_${index}`) }),
        400,
        'tool_ids',
        /^'tool_ids' may list at most 1000 tools, got 1001\.$/,
      ],
    ])('refuses %s with a clear error and changes nothing', async (_case, body, status, field, message) => {
      const ws = await workspace();
      await send(ws, 'PUT', JSON.stringify({ tool_ids: ['calculator'] }));
      const refused = await send(ws, 'PUT', body);
      expect(refused.status).toBe(status);
      const error = refused.body.error as { code: string; message: string; details?: { field?: string } };
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details?.field).toBe(field);
      expect(error.message).toMatch(message);
      expect(ids((await send(ws, 'GET')).body)).toEqual(['calculator']);
    });

    it("answers 404 for a tool the workspace does not have, another workspace's included, and changes nothing", async () => {
      const ws = await workspace();
      const other = await workspace();
      await store.tools.createWorkspaceTool(other.id, {
        id: 'their_tool',
        description: 'Belongs to another workspace.',
        parametersSchema: { type: 'object', properties: {} },
        handlerKey: 'http',
      });
      await send(ws, 'PUT', JSON.stringify({ tool_ids: ['calculator'] }));
      for (const missing of ['their_tool', 'no_such_tool']) {
        const refused = await send(ws, 'PUT', JSON.stringify({ tool_ids: ['read_file', missing] }));
        expect(refused).toEqual({
          status: 404,
          body: { error: { code: 'NOT_FOUND', message: `Tool '${missing}' does not exist in workspace '${ws.id}'.` } },
        });
      }
      expect(ids((await send(ws, 'GET')).body)).toEqual(['calculator']);
    });
  },
);
