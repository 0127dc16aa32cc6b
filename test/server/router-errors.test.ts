import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/server/index.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';

const TOO_LONG = {
  error: {
    code: 'VALIDATION_ERROR',
    message: 'A path segment of the URL is longer than 100 characters; no id is that long.',
    details: { field: 'path' },
  },
};
const BAD_ENCODING = {
  error: {
    code: 'VALIDATION_ERROR',
    message: 'The URL path has a malformed percent-encoding.',
    details: { field: 'path' },
  },
};

describe.each([
  ['without', false],
  ['with', true],
] as const)('URLs the router cannot take apart, %s the web catalog', (_with, webCatalog) => {
  let store: ToolshedStore;
  let app: FastifyInstance;

  beforeAll(async () => {
    store = await createStore(':memory:');
    await store.migrate();
    app = createServer({ store, builtins: false, ...(webCatalog ? {} : { webCatalog: false }) });
  });

  afterAll(async () => {
    await app.close();
    await store.close();
  });

  it.each([
    ['GET', `/api/tools/${'a'.repeat(101)}`],
    ['POST', `/api/tools/${'a'.repeat(5000)}/call`],
    ['DELETE', `/api/agents/${'b'.repeat(300)}`],
    ['POST', `/mcp/agents/${'c'.repeat(101)}`],
    ['GET', `/api/tasks/${'d'.repeat(101)}`],
    ['GET', `/api/nothing/${'e'.repeat(5000)}`],
    ['GET', `/api/tools/${'%61'.repeat(101)}`],
  ] as const)(
    'answers %s with a path segment over 100 characters 414 in the API error shape, echoing nothing',
    async (method, url) => {
      const response = await app.inject({
        method,
        url,
        headers: { authorization: 'Bearer tsk_x', 'x-workspace-id': 'w' },
      });
      expect(response.statusCode).toBe(414);
      expect(response.json()).toEqual(TOO_LONG);
      expect(response.body).not.toMatch(/([a-e])\1{9}/);
    },
  );

  it.each(['/api/tools/%zz', '/api/agents/%E0%A4%A', '/mcp/agents/%'])(
    'answers %s 400 in the API error shape',
    async (url) => {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(BAD_ENCODING);
    },
  );

  it('still answers a 100-character id through the route (401 without a token)', async () => {
    for (const id of ['a'.repeat(100), '%61'.repeat(100)]) {
      const response = await app.inject({ method: 'GET', url: `/api/tools/${id}` });
      expect(response.statusCode, id).toBe(401);
    }
  });

  it('repeats at most 200 characters of an unknown path in its 404', async () => {
    const path = `/api/nothing/${'f'.repeat(90)}/${'g'.repeat(90)}/${'h'.repeat(90)}`;
    const response = await app.inject({ method: 'GET', url: path });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      error: { code: 'NOT_FOUND', message: `No route GET ${path.slice(0, 199)}….` },
    });
  });
});

describe('a failure on the server side', () => {
  it('answers 500 INTERNAL saying nothing of the cause, and hands the error to onError', async () => {
    const store = await createStore(':memory:');
    await store.migrate();
    await store.workspaces.create({ id: 'acme', name: 'Acme' });
    const { token } = await store.tokens.create('acme', { name: 't' });
    // A bug in a store method: the API must not pass its text on.
    Object.assign(store.agents, {
      list: () => {
        throw new TypeError('Cannot read properties of undefined (reading /srv/toolshed/secret)');
      },
    });
    const reported: unknown[] = [];
    const app = createServer({
      store,
      builtins: false,
      webCatalog: false,
      onError: (error) => reported.push(error),
    });
    try {
      const response = await app.inject({
        method: 'GET',
        url: '/api/agents',
        headers: { authorization: `Bearer ${token}`, 'x-workspace-id': 'acme' },
      });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({
        error: {
          code: 'INTERNAL',
          message: 'Something went wrong on the server.',
          request_id: response.headers['x-request-id'],
        },
      });
      expect(reported.map((error) => (error as Error).message)).toEqual([
        'Cannot read properties of undefined (reading /srv/toolshed/secret)',
      ]);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
