import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { ToolshedStore } from '../store/index.js';
import { ApiError } from './api-error.js';
import { authenticate, type RequestIdentity } from './authenticate.js';
import type { OAuthVerifier } from './oauth-tokens.js';
import { requestBase, wwwAuthenticate } from './protected-resource.js';

/**
 * Who may call a route, declared in its options as `config: { auth }`:
 *
 * - `'workspace'` — the REST API: `Authorization: Bearer <token>` and an `X-Workspace-Id` header naming
 *   the token's workspace;
 * - `'token'` — MCP: the bearer token alone picks the workspace (an `X-Workspace-Id`, when sent, must
 *   name the same one), since MCP clients often cannot add headers; with `server.oauth`, an OAuth
 *   access token of the configured authorization server is accepted too;
 * - `'none'` — public: `/health`, `/metrics` and the web catalog's files.
 *
 * @example
 * ```ts
 * app.get('/health', { config: { auth: 'none' satisfies RouteAuth } }, async () => ({ status: 'ok' }));
 * ```
 */
export type RouteAuth = 'workspace' | 'token' | 'none';

/**
 * One registered route and the auth it declared, as {@link routeAuthTable} lists them.
 *
 * @example
 * ```ts
 * const entry: RouteAuthEntry = { method: 'GET', url: '/api/tools', auth: 'workspace' };
 * ```
 */
export interface RouteAuthEntry {
  method: string;
  url: string;
  auth: RouteAuth;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; a route that does not say fails to register (see `registerRouteAuth`). */
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    /**
     * The workspace the request acts for, on a route declared `'workspace'` or `'token'`. Reading it
     * on a request that was not authenticated throws a 401 `ApiError`, so no handler can act for an
     * empty workspace id.
     */
    readonly workspaceId: string;
    /**
     * The verified token of the request (its id, workspace, and the agent an OAuth access token is bound
     * to); throws a 401 `ApiError` like `workspaceId`.
     */
    readonly tokenIdentity: RequestIdentity;
  }
}

const ROUTE_AUTHS: readonly RouteAuth[] = ['workspace', 'token', 'none'];

/** Path prefixes that can never be public: declaring `'none'` under them is refused. */
const PROTECTED_PREFIXES = ['/api', '/mcp'] as const;

const NO_TOKEN_MESSAGE = 'Send an API token as "Authorization: Bearer <token>".';

/** The identity each authenticated request was given by the hook. */
/**
 * Where a request keeps the identity its token was verified as: a slot every request object is built
 * with (`decorateRequest`), `null` until the route's auth hook fills it. A slot, not a `WeakMap` keyed
 * by the request: a `WeakMap.set` per request cost about half a microsecond (a loop of 2 million
 * short-lived keys on Node 20, its garbage collection included).
 */
const IDENTITY = Symbol('toolshed.identity');

type IdentitySlot = { [IDENTITY]: RequestIdentity | null };

/** The auth that routes of a plugin scope get when they declare none (see {@link setDefaultRouteAuth}). */
const scopeDefaults = new WeakMap<object, Exclude<RouteAuth, 'none'>>();

/** The routes of each app, with their auth, in registration order. */
const tables = new WeakMap<FastifyInstance, RouteAuthEntry[]>();

/**
 * Make every route of `app` declare who may call it, and authenticate each request by the route it
 * matched — never by its URL text, so an absolute-form target (`GET http://host/api/agents`), a
 * percent-encoded path or any other spelling that reaches a route is authenticated like the plain one.
 *
 * - Registering a route whose options have no `config.auth` (and whose plugin scope set no default
 *   with {@link setDefaultRouteAuth}) throws at startup, naming the route; so does an unknown value,
 *   and `'none'` on a path under `/api` or `/mcp`. A route can never be public by accident.
 * - An `onRequest` hook, added before any other, authenticates requests to `'workspace'` and `'token'`
 *   routes with {@link authenticate} (401 `UNAUTHORIZED`, 403 `FORBIDDEN`, 400 for a missing
 *   `X-Workspace-Id` on `'workspace'` routes). A request that matched no route goes on to the 404
 *   handler unauthenticated; it learns nothing but that there is no such route.
 * - `request.workspaceId` and `request.tokenIdentity` are getters that throw a 401 `ApiError` when the
 *   request was not authenticated (a public route reading them), never an empty id.
 *
 * - With `options.oauth`, `'token'` routes also accept that authorization server's access tokens (JWTs),
 *   their audience bound to the endpoint's resource URL (`<base>/mcp`, or `<base>/mcp/agents/:agentId`
 *   and `<base>/mcp`); a refused one is 401 with `error_description` in `WWW-Authenticate`.
 *
 * Call it on the root instance before registering any route.
 *
 * @example
 * ```ts
 * const app = Fastify();
 * registerRouteAuth(app, store);
 * app.get('/health', { config: { auth: 'none' } }, async () => ({ status: 'ok' }));
 * app.get('/api/agents', { config: { auth: 'workspace' } }, async (request) => store.agents.list(request.workspaceId));
 * ```
 */
export function registerRouteAuth(
  app: FastifyInstance,
  store: ToolshedStore,
  options: { oauth?: OAuthVerifier | undefined } = {},
): void {
  const table: RouteAuthEntry[] = [];
  tables.set(app, table);
  app.decorateRequest(IDENTITY, null);
  app.decorateRequest('tokenIdentity', {
    getter(this: FastifyRequest) {
      return identityOf(this);
    },
  });
  app.decorateRequest('workspaceId', {
    getter(this: FastifyRequest) {
      return identityOf(this).workspaceId;
    },
  });

  app.addHook('onRoute', function checkRouteAuth(this: FastifyInstance, route: RouteOptions) {
    const url = route.url;
    const methods = [route.method].flat().join(', ');
    const auth = route.config?.auth ?? scopeDefaultOf(this);
    if (auth === undefined) {
      throw new TypeError(
        `Route ${methods} ${url} declares no auth; add config: { auth: 'workspace' | 'token' | 'none' } to its options.`,
      );
    }
    if (!ROUTE_AUTHS.includes(auth)) {
      throw new TypeError(
        `Route ${methods} ${url} declares auth '${String(auth)}'; use 'workspace', 'token' or 'none'.`,
      );
    }
    if (auth === 'none' && isProtectedPath(url)) {
      throw new TypeError(
        `Route ${methods} ${url} is declared public (auth 'none'), but routes under ${PROTECTED_PREFIXES.join(' and ')} need a token; declare 'workspace' or 'token'.`,
      );
    }
    route.config = { ...route.config, auth };
    for (const method of [route.method].flat()) table.push({ method, url, auth });
  });

  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return;
    const auth = request.routeOptions.config.auth;
    switch (auth) {
      case 'none':
        return;
      case 'workspace':
        (request as unknown as IdentitySlot)[IDENTITY] = await authenticate(store, request, {
          requireWorkspaceHeader: true,
        });
        return;
      case 'token':
        try {
          const oauth =
            options.oauth === undefined
              ? undefined
              : { verifier: options.oauth, resources: resourcesOf(request, requestBase(request)) };
          (request as unknown as IdentitySlot)[IDENTITY] = await authenticate(store, request, {
            requireWorkspaceHeader: false,
            oauth,
          });
        } catch (error) {
          // MCP clients read this header to learn how to authenticate (RFC 9728); without it they assume OAuth.
          if (error instanceof ApiError && error.statusCode === 401) {
            const sent = request.headers.authorization !== undefined;
            reply.header(
              'www-authenticate',
              wwwAuthenticate(requestBase(request), sent, sent ? error.message : undefined),
            );
          }
          throw error;
        }
        return;
      case undefined:
        // Unreachable (registration refuses such routes), and refused rather than served if it were not.
        throw new ApiError(401, 'UNAUTHORIZED', NO_TOKEN_MESSAGE);
      default: {
        const unreachable: never = auth;
        throw new ApiError(401, 'UNAUTHORIZED', `Unknown route auth '${String(unreachable)}'.`);
      }
    }
  });
}

/**
 * Give the routes registered on `scope` (an encapsulated plugin scope) and its child scopes that
 * declare no `config.auth` this one: how a group of routes — the REST API — is declared in one place.
 * Only `'workspace'` and `'token'` can be a default; a public route always says so itself.
 *
 * @example
 * ```ts
 * await app.register(async (api) => {
 *   setDefaultRouteAuth(api, 'workspace');
 *   api.get('/api/agents', async (request) => store.agents.list(request.workspaceId));
 * });
 * ```
 */
export function setDefaultRouteAuth(scope: FastifyInstance, auth: Exclude<RouteAuth, 'none'>): void {
  if ((auth as RouteAuth) === 'none') {
    throw new TypeError("A scope's default route auth cannot be 'none'; declare public routes one by one.");
  }
  scopeDefaults.set(scope, auth);
}

/**
 * Every route registered on `app` (by {@link registerRouteAuth}'s hook, so also those of plugins), one
 * entry per method, with the auth it declared: for tests that try each route, and for reviewing what a
 * server leaves public. Complete once the app is ready.
 *
 * @example
 * ```ts
 * await app.ready();
 * const open = routeAuthTable(app).filter((route) => route.auth === 'none');
 * ```
 */
export function routeAuthTable(app: FastifyInstance): readonly RouteAuthEntry[] {
  return [...(tables.get(app) ?? [])];
}

/**
 * The resource URLs (RFC 8707) an OAuth access token sent to this MCP route may name as its audience:
 * the endpoint's own URL, and `<base>/mcp` (the whole server) for an agent's endpoint.
 */
function resourcesOf(request: FastifyRequest, base: string): string[] {
  const agentId = (request.params as { agentId?: unknown } | undefined)?.agentId;
  if (request.routeOptions.url === '/mcp/agents/:agentId' && typeof agentId === 'string') {
    return [`${base}/mcp/agents/${encodeURIComponent(agentId)}`, `${base}/mcp`];
  }
  return [`${base}/mcp`];
}

function identityOf(request: FastifyRequest): RequestIdentity {
  const identity = (request as unknown as IdentitySlot)[IDENTITY];
  if (identity === null || identity === undefined) throw new ApiError(401, 'UNAUTHORIZED', NO_TOKEN_MESSAGE);
  return identity;
}

/** The default of the nearest enclosing scope: plugin scopes inherit from their parent's prototype. */
function scopeDefaultOf(instance: object): Exclude<RouteAuth, 'none'> | undefined {
  for (let scope: object | null = instance; scope !== null; scope = Object.getPrototypeOf(scope)) {
    const auth = scopeDefaults.get(scope);
    if (auth !== undefined) return auth;
  }
  return undefined;
}

function isProtectedPath(url: string): boolean {
  const path = url.toLowerCase();
  return PROTECTED_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}
