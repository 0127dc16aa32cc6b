import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type ToolshedStore } from '../store/index.js';
import { ApiError } from './api-error.js';
import { createServer } from './create-server.js';
import { type RouteAuth, registerRouteAuth, routeAuthTable, setDefaultRouteAuth } from './route-auth.js';

let store: ToolshedStore;
let token: string;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  store = await createStore(':memory:');
  await store.migrate();
  await store.workspaces.create({ id: 'acme', name: 'Acme' });
  token = (await store.tokens.create('acme', { name: 'test' })).token;
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await store.close();
});

function bareApp(): FastifyInstance {
  const app = Fastify();
  apps.push(app);
  registerRouteAuth(app, store);
  app.setErrorHandler((error, _request, reply) =>
    ApiError.isInstance(error) ? reply.code(error.statusCode).send(error.toBody()) : reply.code(500).send('bug'),
  );
  return app;
}

describe('registerRouteAuth', () => {
  it('refuses at registration a route that declares no auth, naming it and the way out', () => {
    const app = bareApp();
    expect(() => app.get('/api/reports', async () => ({}))).toThrow(
      new TypeError(
        "Route GET /api/reports declares no auth; add config: { auth: 'workspace' | 'token' | 'none' } to its options.",
      ),
    );
    expect(() => app.route({ method: ['GET', 'POST'], url: '/status', handler: async () => ({}) })).toThrow(
      "Route GET, POST /status declares no auth; add config: { auth: 'workspace' | 'token' | 'none' } to its options.",
    );
  });

  it('fails createServer at startup when a plugin adds a route without auth', async () => {
    const app = createServer({ store, mcp: false, webCatalog: false, builtins: false });
    apps.push(app);
    void app.register(async (scope) => {
      scope.post('/admin/reindex', async () => ({ done: true }));
    });
    await expect(app.ready()).rejects.toThrow(
      "Route POST /admin/reindex declares no auth; add config: { auth: 'workspace' | 'token' | 'none' } to its options.",
    );
  });

  it("refuses 'none' under /api and /mcp, and unknown values", () => {
    const app = bareApp();
    expect(() => app.get('/api/open', { config: { auth: 'none' } }, async () => ({}))).toThrow(
      "Route GET /api/open is declared public (auth 'none'), but routes under /api and /mcp need a token; declare 'workspace' or 'token'.",
    );
    expect(() => app.get('/MCP/open', { config: { auth: 'none' } }, async () => ({}))).toThrow(
      "Route GET /MCP/open is declared public (auth 'none'), but routes under /api and /mcp need a token; declare 'workspace' or 'token'.",
    );
    expect(() => app.get('/api/typo', { config: { auth: 'workspaces' as RouteAuth } }, async () => ({}))).toThrow(
      "Route GET /api/typo declares auth 'workspaces'; use 'workspace', 'token' or 'none'.",
    );
    expect(() => setDefaultRouteAuth(app, 'none' as 'token')).toThrow(
      "A scope's default route auth cannot be 'none'; declare public routes one by one.",
    );
  });

  it("gives a scope's routes, their HEAD routes and nested scopes the scope's default", async () => {
    const app = bareApp();
    app.get('/health', { config: { auth: 'none' } }, async () => ({ status: 'ok' }));
    void app.register(async (api) => {
      setDefaultRouteAuth(api, 'workspace');
      api.get('/api/whoami', async (request) => ({ workspace: request.workspaceId }));
      void api.register(async (nested) => {
        nested.get('/api/nested', async (request) => ({ workspace: request.workspaceId }));
        nested.get('/mcp/custom', { config: { auth: 'token' } }, async (request) => ({
          token: request.tokenIdentity.workspaceId,
        }));
      });
    });
    await app.ready();
    expect(routeAuthTable(app).map((route) => `${route.method} ${route.url} ${route.auth}`)).toEqual([
      'GET /health none',
      'HEAD /health none',
      'GET /api/whoami workspace',
      'HEAD /api/whoami workspace',
      'GET /api/nested workspace',
      'HEAD /api/nested workspace',
      'GET /mcp/custom token',
      'HEAD /mcp/custom token',
    ]);
    const noToken = {
      error: { code: 'UNAUTHORIZED', message: 'Send an API token as "Authorization: Bearer <token>".' },
    };
    for (const url of ['/api/whoami', '/api/nested', '/mcp/custom']) {
      const refused = await app.inject({ method: 'GET', url });
      expect([url, refused.statusCode, refused.json()]).toEqual([url, 401, noToken]);
      expect((await app.inject({ method: 'HEAD', url })).statusCode).toBe(401);
    }
    const bearer = { authorization: `Bearer ${token}` };
    const withoutHeader = await app.inject({ method: 'GET', url: '/api/nested', headers: bearer });
    expect(withoutHeader.statusCode).toBe(400);
    expect(withoutHeader.json()).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: 'Send the workspace id in the X-Workspace-Id header.',
        details: { field: 'X-Workspace-Id' },
      },
    });
    const own = await app.inject({
      method: 'GET',
      url: '/api/nested',
      headers: { ...bearer, 'x-workspace-id': 'acme' },
    });
    expect(own.json()).toEqual({ workspace: 'acme' });
    expect((await app.inject({ method: 'GET', url: '/mcp/custom', headers: bearer })).json()).toEqual({
      token: 'acme',
    });
  });

  it('answers 401 instead of an empty workspace id when a public route reads request.workspaceId', async () => {
    const app = bareApp();
    app.get('/leaky', { config: { auth: 'none' } }, async (request) => ({ workspace: request.workspaceId }));
    app.get('/leaky-identity', { config: { auth: 'none' } }, async (request) => request.tokenIdentity);
    for (const url of ['/leaky', '/leaky-identity']) {
      const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        error: { code: 'UNAUTHORIZED', message: 'Send an API token as "Authorization: Bearer <token>".' },
      });
    }
  });

  it('lets a request that matches no route through to the 404 handler without authenticating it', async () => {
    const app = bareApp();
    app.get('/api/known', { config: { auth: 'workspace' } }, async () => ({}));
    const response = await app.inject({ method: 'GET', url: '/api/unknown' });
    expect(response.statusCode).toBe(404);
  });
});
