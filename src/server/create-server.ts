import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { RestToolOptions } from '../builtins/web/rest-tool.js';
import type { OAuthConfig } from '../config/index.js';
import { checkJsonText, describeJsonLimitBreach, INPUT_LIMITS } from '../core/input-limits.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { discardRequestBody } from '../mcp/node-http-bridge.js';
import type { ToolRegistryOptions } from '../registry/tool-registry.js';
import {
  StoreConflictError,
  StoreError,
  StoreNotFoundError,
  StoreReadOnlyError,
  StoreValidationError,
  type ToolshedStore,
} from '../store/index.js';
import { registerActivityRoutes } from './activity-routes.js';
import { registerAgentRoutes } from './agent-routes.js';
import { answerClientError } from './answer-client-error.js';
import { ApiError, type ApiErrorBody } from './api-error.js';
import { CallLimits, type CallLimitsOptions } from './call-limits.js';
import { type CallQuotaOptions, CallQuotas } from './call-quotas.js';
import { registerCatalogRoutes } from './catalog-routes.js';
import { codeToolFactories } from './code-tool.js';
import { registerEmailRoutes } from './email-routes.js';
import { registerLimitRoutes } from './limit-routes.js';
import { registerMcpRoutes, type ServerMcpOptions } from './mcp-routes.js';
import { createOAuthVerifier } from './oauth-tokens.js';
import { registerProtectedResourceRoutes } from './protected-resource.js';
import { registerRouteAuth, setDefaultRouteAuth } from './route-auth.js';
import { registerSecretRoutes } from './secret-routes.js';
import { type ServedConfig, type ServedConfigSync, syncServedConfig } from './served-config.js';
import type { ServerContext } from './server-context.js';
import { ServerMetrics } from './server-metrics.js';
import { createServiceBuiltins, type ServiceBuiltins, type ServiceBuiltinsOptions } from './service-builtins.js';
import { registerTaskRoutes } from './task-routes.js';
import { CALL_ROUTE, registerToolRoutes } from './tool-routes.js';
import { registerUpstreamRoutes, type UpstreamServers } from './upstream-routes.js';
import { registerWebCatalog } from './web-catalog.js';
import { WorkspaceRegistries } from './workspace-registries.js';
import { registerWorkspaceRoutes } from './workspace-routes.js';

/** The default body limit: 1 MiB ({@link INPUT_LIMITS}.bodyBytes). */
export const DEFAULT_BODY_LIMIT = INPUT_LIMITS.bodyBytes;

/**
 * Where the server's log lines go: Fastify's logger (pino) writing one JSON line per entry to
 * `stream`, at `level` and above (default `error`).
 *
 * @example
 * ```ts
 * createServer({ store, logger: { stream: process.stderr } }); // each 5xx: one JSON line on stderr
 * ```
 */
export interface ServerLogOptions {
  stream: { write(line: string): unknown };
  level?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
}

/** Options of {@link createServer}. */
export interface ServerOptions {
  store: ToolshedStore;
  /**
   * A configuration served to one workspace (`toolshed serve --config`): its tools and agents are
   * synced into that workspace's rows when the server gets ready, and its handlers join that
   * workspace's registry only.
   */
  config?: ServedConfig;
  /**
   * Tools defined in code for every workspace: upserted as global rows of source `module` when the
   * server gets ready (rows of that source it no longer lists are deleted), with their handlers in
   * every workspace's registry.
   */
  tools?: readonly ToolSpec[];
  /** Told what syncing `config` into the store changed (conflicts, agents' missing tools) when the server got ready. */
  onConfigSync?: (sync: ServedConfigSync) => void;
  /** Largest accepted body in bytes (default 1 MiB); larger ones get 413. */
  bodyLimit?: number;
  /** Options of every workspace registry (approvals always go to the store). */
  registryOptions?: Omit<ToolRegistryOptions, 'approvals'>;
  /** Passed to `createRestTool` for workspace REST tools (tests exempt a loopback fake server). */
  restTool?: RestToolOptions;
  /**
   * The server's log (default off): `true` for Fastify's logger on stdout, or where to write it.
   * Every 5xx answer is logged as one line with the route, the request id and the error (its type,
   * code and message; never the request's body or headers).
   */
  logger?: boolean | ServerLogOptions;
  /**
   * Told about every request that failed on the server's side (a 500 `INTERNAL`, whose body says
   * nothing about the cause) and every unusable secret key (503), with the error itself — for the
   * operator's log. Default: Fastify's logger (`logger`).
   */
  onError?: (error: unknown) => void;
  /**
   * The built-ins shared by every workspace: `execute_python` / `execute_javascript` (one sandbox pool
   * each, started on the first call and stopped when the server closes) and `email_search` /
   * `email_get` over the store's corpus. `false` leaves them all out.
   */
  builtins?: ServiceBuiltinsOptions | false;
  /**
   * MCP over Streamable HTTP at `/mcp` and `/mcp/agents/:agentId` from the store (on by default):
   * handler settings and `--config` agents, or `false` for no MCP endpoints.
   */
  mcp?: ServerMcpOptions | false;
  /**
   * How many tool calls may run at once per API token and per workspace, over REST, MCP and approved
   * calls together; a call past either limit is answered `RATE_LIMITED` without running.
   */
  calls?: CallQuotaOptions;
  /**
   * The call limits' settings: the lease of a concurrency slot and the clock (tests). The limits
   * themselves are rows (`PUT /api/limits`) and the configuration's `server.limits` (`config.limits`).
   */
  limits?: Omit<CallLimitsOptions, 'configured'>;
  /**
   * The call log's retention: calls older than `retentionMs` are deleted when the server gets ready
   * and every `pruneIntervalMs` after (default {@link DEFAULT_PRUNE_INTERVAL_MS}). Absent: kept for ever.
   */
  callLog?: { retentionMs?: number; pruneIntervalMs?: number };
  /** The folder of the built web catalog served at `/` (default `dist/web` of this package), or `false` for none. */
  webCatalog?: string | false;
  /**
   * The served configuration's MCP servers: their state in `/health`, `/metrics` and
   * `GET /api/mcp-servers`, and re-read when a change of their tools is approved over the API.
   */
  upstreams?: UpstreamServers;
  /**
   * An external OAuth 2.1 authorization server (`server.oauth` of `toolshed.yaml`) whose access tokens
   * (JWTs) the MCP endpoints accept beside API tokens; named in the protected resource metadata.
   */
  oauth?: OAuthConfig;
}

/**
 * The toolshed REST API (SPEC §9.2) on Fastify: tools, agents and their attachments, provider exports,
 * prompt docs, the call log and approvals, plus `GET /health` and `GET /metrics` (Prometheus).
 *
 * Every `/api` request needs `Authorization: Bearer <token>` and `X-Workspace-Id`, and the token must
 * belong to that workspace: no, a malformed, unknown or revoked token is 401 `UNAUTHORIZED`, a token of
 * another workspace 403 `FORBIDDEN`. Another workspace's resources answer 404 like missing ones.
 * Errors are `{"error": {"code", "message", "details"?}}`; bodies over `bodyLimit` are 413.
 * Authentication follows the route a request matched, never its URL text: every route declares its
 * `config.auth` (`registerRouteAuth`), and `/health`, `/metrics` and the web catalog are the only public
 * ones.
 * The instance is not listening: call `listen` or use `inject`. Closing it does not close the store.
 *
 * @example
 * ```ts
 * const store = await createStore(':memory:');
 * await store.migrate();
 * const server = createServer({ store });
 * const response = await server.inject({ method: 'GET', url: '/health' });
 * ```
 */
export function createServer(options: ServerOptions): FastifyInstance {
  const { store } = options;
  const app = Fastify({
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    logger: loggerOption(options.logger),
    // The request id is the server's own (a client's X-Request-Id is not trusted, nor echoed).
    genReqId: () => randomUUID(),
    // Requests Node's parser refuses (huge headers, broken framing) in the API's error shape too.
    clientErrorHandler: answerClientError,
    requestIdHeader: false,
    // Errors the router raises before any route matched: the API's error shape, never the URL echoed.
    frameworkErrors: (error, request, reply) => {
      const apiError = routerError(error);
      void (reply as FastifyReply).header('x-request-id', request.id).code(apiError.statusCode).send(apiError.toBody());
    },
  });
  const routes: ServerRoute[] = [];
  routeLists.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') routes.push({ method, url: route.url });
    }
  });
  // Every answer carries its request id, also one the MCP handler writes itself (a hijacked reply).
  // Hooks of every request take Fastify's callback form: no promise per request for work that never waits.
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader('x-request-id', request.id);
    done();
  });
  acceptEmptyJsonBodies(app);
  const report = options.onError ?? ((error: unknown) => app.log.error(error));
  const shared = options.builtins === false ? undefined : createServiceBuiltins(store, options.builtins);
  const moduleTools = options.tools;
  const served =
    options.config === undefined
      ? undefined
      : { ...options.config, tools: options.config.tools.filter((tool) => !replacedByService(tool, shared)) };
  // Code tools (rows of `python` / `javascript` code) run on the same pools, each workspace on its own.
  const codeSandboxes = shared?.sandboxTimeoutMs === undefined ? undefined : shared;
  const retentionMs = positiveWhole('callLog.retentionMs', options.callLog?.retentionMs);
  const pruneIntervalMs =
    positiveWhole('callLog.pruneIntervalMs', options.callLog?.pruneIntervalMs) ?? DEFAULT_PRUNE_INTERVAL_MS;
  const registries = new WorkspaceRegistries({
    store,
    ...(shared === undefined
      ? {}
      : { sharedBuiltins: shared.tools, sharedBuiltinsFor: (workspaceId) => shared.forWorkspace(workspaceId) }),
    ...(served === undefined ? {} : { config: served }),
    ...(moduleTools === undefined ? {} : { everyWorkspace: moduleTools }),
    ...(options.registryOptions === undefined ? {} : { registryOptions: options.registryOptions }),
    ...(options.restTool === undefined ? {} : { restTool: options.restTool }),
    ...(codeSandboxes === undefined ? {} : { rowTools: codeToolFactories(codeSandboxes) }),
  });
  const context: ServerContext = {
    store,
    registries,
    // /metrics is public: only the server's own tools are named, a workspace's are counted together.
    metrics: new ServerMetrics({
      namedTool: (tool) => registries.serverToolNames.has(tool),
      ...(options.upstreams === undefined ? {} : { upstreams: () => options.upstreams?.status() ?? [] }),
      ...(codeSandboxes === undefined ? {} : { sandboxes: () => codeSandboxes.sandboxStats() }),
    }),
    calls: new CallQuotas(options.calls),
    limits: new CallLimits(store, {
      ...options.limits,
      configured: served === undefined ? {} : { [served.workspaceId]: served.limits ?? [] },
    }),
    report,
    env: options.registryOptions?.env ?? process.env,
    ...(codeSandboxes === undefined ? {} : { codeSandboxes }),
  };
  // First, so every route registered below declares its auth and no other hook runs before it.
  const oauth = options.oauth === undefined ? undefined : createOAuthVerifier(options.oauth);
  registerRouteAuth(app, store, { oauth });
  if (shared !== undefined) app.addHook('onClose', () => shared.close());
  app.addHook('onClose', async () => context.limits.close());
  if (retentionMs !== undefined) {
    const prune = async () => {
      try {
        await store.toolCalls.pruneBefore(new Date(Date.now() - retentionMs).toISOString());
      } catch (error) {
        report(error);
      }
    };
    let timer: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      await prune();
      timer = setInterval(() => void prune(), pruneIntervalMs);
      timer.unref();
    });
    app.addHook('onClose', async () => clearInterval(timer));
  }
  if (moduleTools !== undefined) {
    app.addHook('onReady', async () => {
      await store.tools.upsertBuiltins(moduleTools, { source: 'module', prune: true });
    });
  }
  // The configuration's tools and agents become rows of its workspace before the first request.
  if (options.config !== undefined) {
    const config = options.config;
    app.addHook('onReady', async () => {
      const sync = await syncServedConfig(store, config);
      options.onConfigSync?.(sync);
    });
  }
  reloaders.set(app, async (config) => {
    const next = { ...config, tools: config.tools.filter((tool) => !replacedByService(tool, shared)) };
    context.limits.setConfigured(next.workspaceId, next.limits ?? []);
    const sync = await syncServedConfig(store, next);
    registries.setConfig(next);
    return sync;
  });

  // A 5xx the error handler did not answer (the MCP handler writes its own replies): logged and
  // counted once it is sent, without an error to describe.
  const answeredErrors = new WeakSet<FastifyRequest>();
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.raw.statusCode;
    if (status >= 500 && !answeredErrors.has(request)) {
      logServerError(request, status, undefined);
      context.metrics.countServerError(routeOf(request), status);
    }
    done();
  });
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.statusCode === 413) {
      // Answered once the client has sent the rest: closing on a body still arriving would reset the
      // connection, and a client reading only after its upload would never see the 413.
      return discardRequestBody(request.raw).then(() => reply.code(413).send(apiError.toBody()));
    }
    if (apiError.statusCode < 500) return reply.code(apiError.statusCode).send(apiError.toBody());
    answeredErrors.add(request);
    logServerError(request, apiError.statusCode, { error, code: apiError.code });
    context.metrics.countServerError(routeOf(request), apiError.statusCode);
    // An ApiError is an answer chosen on purpose (and reported where it was chosen); the rest are news
    // for `onError` too (the log line above is the default's).
    if (!ApiError.isInstance(error)) options.onError?.(error);
    const body = apiError.toBody();
    return reply.code(apiError.statusCode).send({ error: { ...body.error, request_id: request.id } });
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    // A wildcard route (the web catalog's) matches before the router would refuse a long segment.
    if (path.split('/').some((segment) => segment.replace(/%[0-9a-f]{2}/gi, '%').length > MAX_PATH_SEGMENT)) {
      const apiError = pathSegmentTooLong();
      return reply.code(apiError.statusCode).send(apiError.toBody());
    }
    const shown = path.length > MAX_SHOWN_PATH ? `${path.slice(0, MAX_SHOWN_PATH - 1)}…` : path;
    const body: ApiErrorBody = { error: { code: 'NOT_FOUND', message: `No route ${request.method} ${shown}.` } };
    return reply.code(404).send(body);
  });

  app.get('/health', { config: { auth: 'none' } }, async () => healthOf(options.upstreams));
  registerProtectedResourceRoutes(app, oauth === undefined ? [] : [oauth.issuer]);
  // Public, as Prometheus scrapers expect; it names no workspace's tools (see ServerMetrics).
  app.get('/metrics', { config: { auth: 'none' } }, async (_request, reply) => {
    reply.type(context.metrics.contentType);
    return context.metrics.render();
  });
  void app.register(async (api) => {
    // The REST API: each route here acts for one workspace (token and X-Workspace-Id) unless it says otherwise.
    setDefaultRouteAuth(api, 'workspace');
    registerToolRoutes(api, context);
    registerAgentRoutes(api, context);
    registerCatalogRoutes(api, context);
    registerActivityRoutes(api, context);
    registerTaskRoutes(api, context);
    registerSecretRoutes(api, context);
    registerLimitRoutes(api, context);
    registerWorkspaceRoutes(api, context);
    registerEmailRoutes(api, context);
    registerUpstreamRoutes(api, context, options.upstreams);
  });
  if (options.mcp !== false) registerMcpRoutes(app, context, options.mcp ?? {});
  if (options.webCatalog !== false) registerWebCatalog(app, { dir: options.webCatalog });
  return app;
}

/**
 * The body of `GET /health`: `ok`, and with MCP servers each one's state, since when and (while down)
 * why; `degraded` while one is not up. Always 200: the server itself answers.
 */
function healthOf(upstreams: UpstreamServers | undefined) {
  const servers = upstreams?.status() ?? [];
  if (servers.length === 0) return { status: 'ok' };
  return {
    status: servers.every((server) => server.state === 'up') ? 'ok' : 'degraded',
    mcp_servers: servers.map((server) => ({
      name: server.name,
      state: server.state,
      since: server.since,
      ...(server.lastError === undefined ? {} : { last_error: server.lastError }),
    })),
  };
}

/**
 * A route of the server: its method and URL pattern.
 *
 * @example
 * ```ts
 * const route: ServerRoute = { method: 'POST', url: '/api/tools/:id/call' };
 * ```
 */
export interface ServerRoute {
  method: string;
  url: string;
}

const routeLists = new WeakMap<FastifyInstance, readonly ServerRoute[]>();

/**
 * Every route of a server made by {@link createServer} (HEAD routes Fastify adds left out), in the
 * order they were registered — for tests that must cover each route, including ones added later.
 *
 * @example
 * ```ts
 * const app = createServer({ store });
 * await app.ready();
 * serverRoutes(app).some((route) => route.url === '/health'); // true
 * ```
 */
export function serverRoutes(app: FastifyInstance): readonly ServerRoute[] {
  const routes = routeLists.get(app);
  if (routes === undefined) throw new TypeError('serverRoutes needs a server made by createServer.');
  return routes;
}

/** How often a server with a call log retention deletes old calls: hourly. */
export const DEFAULT_PRUNE_INTERVAL_MS = 3_600_000;

function positiveWhole(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a whole number of at least 1, got ${String(value)}.`);
  }
  return value;
}

const reloaders = new WeakMap<FastifyInstance, (config: ServedConfig) => Promise<ServedConfigSync>>();

/**
 * Serve another configuration on a running server (`toolshed serve` does it on SIGHUP): sync it into
 * the store (rows added, updated and pruned as at start) and give its workspace the new handlers. Open
 * MCP sessions of that workspace are told when their tools changed. Resolves with what the sync did.
 *
 * @example
 * ```ts
 * const sync = await reloadServedConfig(app, servedConfigOf(await loadTools(setup, io), 'default', []));
 * console.log(sync.tools.removed);
 * ```
 */
export async function reloadServedConfig(app: FastifyInstance, config: ServedConfig): Promise<ServedConfigSync> {
  const reload = reloaders.get(app);
  if (reload === undefined) throw new TypeError('reloadServedConfig needs a server made by createServer.');
  return reload(config);
}

/**
 * JSON bodies are checked against {@link INPUT_LIMITS} before they are parsed: nesting depth, string,
 * list and object sizes, refused keys (`__proto__`, `constructor.prototype`) and duplicate keys, each
 * a 400 naming the limit and where in the body it was broken. Clients that always send
 * `Content-Type: application/json` send it on a `DELETE` or a bodiless `POST` too: an empty body is no
 * body (`request.body` undefined, which each route answers as it answers a request without the
 * header), never a JSON syntax error. The rest goes to Fastify's own JSON parser for its syntax
 * errors; the prototype keys it can look for are already refused here, so it does not look again.
 */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('ignore', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) {
      done(null, undefined);
      return;
    }
    // Decoded as it is, never with bad bytes replaced: what is stored is what was sent.
    if (!isUtf8(bytes)) {
      done(new ApiError(400, 'VALIDATION_ERROR', 'The request body is not valid UTF-8.', { field: 'body' }));
      return;
    }
    const text = bytes.toString('utf8');
    const breach = checkJsonText(text);
    if (breach !== undefined) {
      const details: Record<string, unknown> = {
        field: breach.path === '' ? 'body' : breach.path,
        limit: breach.limit,
      };
      if ('max' in breach) details.max = breach.max;
      else details.key = breach.key;
      done(new ApiError(400, 'VALIDATION_ERROR', describeJsonLimitBreach('The request body', breach), details));
      return;
    }
    // A call's arguments reach its handler as sent (nothing stores them); any other body may be stored.
    if (!LONE_SURROGATE_ESCAPE.test(text) || request.routeOptions.url === CALL_ROUTE) {
      parseJson(request, text, done);
      return;
    }
    parseJson(request, text, (error, value) => {
      const path = error === null ? lonelySurrogateAt(value, '') : undefined;
      if (path === undefined) done(error, value);
      else {
        done(
          new ApiError(
            400,
            'VALIDATION_ERROR',
            `The request body has a lone UTF-16 surrogate (a \\ud800–\\udfff escape without its pair) at '${path === '' ? 'body' : path}', which no text can hold; send valid Unicode.`,
            { field: path === '' ? 'body' : path },
          ),
        );
      }
    });
  });
}

/** A `\uD800`–`\uDFFF` escape: only JSON text with one can hold a lone surrogate. */
const LONE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** A high surrogate without its low one after it, or a low one without its high one before it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Where in a parsed body a string (or a key) holds a lone surrogate: its path, `undefined` when none. */
function lonelySurrogateAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = lonelySurrogateAt(value[index], `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, child] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (LONE_SURROGATE.test(key)) return at;
    const found = lonelySurrogateAt(child, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

function loggerOption(logger: ServerOptions['logger']): boolean | Record<string, unknown> {
  if (logger === undefined || typeof logger === 'boolean') return logger ?? false;
  return { level: logger.level ?? 'error', stream: logger.stream };
}

/** The route a request matched (its pattern, never the URL with its ids), or `(none)`. */
function routeOf(request: FastifyRequest): string {
  const url = request.routeOptions.url;
  return url === undefined ? '(none)' : `${request.method} ${url}`;
}

/**
 * One log line for a 5xx answer: the route, the request id, the status and, when there is one, the
 * error's type, code and message (cut at 300 characters) — never the body, headers or arguments.
 */
function logServerError(
  request: FastifyRequest,
  status: number,
  failure: { error: unknown; code: string } | undefined,
): void {
  const fields: Record<string, unknown> = { request_id: request.id, route: routeOf(request), status };
  if (failure !== undefined) {
    const { error } = failure;
    const cause = error instanceof Error ? error : undefined;
    const message = cause?.message ?? String(error);
    fields.error = {
      type: cause?.name ?? typeof error,
      code: (error as { code?: unknown } | null)?.code ?? failure.code,
      message: message.length > 300 ? `${message.slice(0, 299)}…` : message,
    };
  }
  request.log.error(fields, 'request failed on the server side');
}

/**
 * A `--config` built-in the service also has takes the service's tool: the code-execution ones
 * (`execute_python` named under `builtins:`) run on one pool for every caller, where the service's run
 * each workspace's code in processes of its own; the email tools search the corpus of the store the
 * service has open.
 */
function replacedByService(tool: ServedConfig['tools'][number], shared: ServiceBuiltins | undefined): boolean {
  return (
    shared !== undefined && tool.source === 'builtin' && shared.tools.some((builtin) => builtin.name === tool.spec.name)
  );
}

const STORE_FIELD_NAMES: Readonly<Record<string, string>> = {
  toolId: 'tool_id',
  agentId: 'agent_id',
  parametersSchema: 'parameters',
  whenToUse: 'when_to_use',
};

/** The router's limit on one path segment (find-my-way's `maxParamLength` default), which no id reaches. */
const MAX_PATH_SEGMENT = 100;
/** How much of an unknown path a 404 repeats. */
const MAX_SHOWN_PATH = 200;

function pathSegmentTooLong(): ApiError {
  return new ApiError(
    414,
    'VALIDATION_ERROR',
    `A path segment of the URL is longer than ${MAX_PATH_SEGMENT} characters; no id is that long.`,
    { field: 'path' },
  );
}

/** A URL the router cannot take apart: a malformed percent-encoding, or a path segment over the limit. */
function routerError(error: FastifyError): ApiError {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return pathSegmentTooLong();
  if (error.code === 'FST_ERR_BAD_URL') {
    return new ApiError(400, 'VALIDATION_ERROR', 'The URL path has a malformed percent-encoding.', { field: 'path' });
  }
  return toApiError(error);
}

function toApiError(error: unknown): ApiError {
  if (ApiError.isInstance(error)) return error;
  if (StoreValidationError.isInstance(error)) {
    const field = Object.hasOwn(STORE_FIELD_NAMES, error.field) ? STORE_FIELD_NAMES[error.field] : error.field;
    return new ApiError(400, 'VALIDATION_ERROR', error.message, { field: field ?? error.field });
  }
  if (StoreNotFoundError.isInstance(error)) return new ApiError(404, 'NOT_FOUND', error.message);
  if (StoreConflictError.isInstance(error)) return new ApiError(409, 'ALREADY_EXISTS', error.message);
  if (StoreReadOnlyError.isInstance(error)) {
    return new ApiError(409, 'READ_ONLY', error.message, { source: error.source, origin: error.origin });
  }
  if (StoreError.isInstance(error) && error.code === 'UNAVAILABLE') {
    return new ApiError(503, 'UNAVAILABLE', 'The database is unavailable; try again shortly.');
  }
  const fastifyError = error as Partial<FastifyError>;
  const code = typeof fastifyError.code === 'string' ? fastifyError.code : '';
  if (fastifyError.statusCode === 413 || code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new ApiError(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than the limit.');
  }
  if (fastifyError.statusCode === 415 || code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
  }
  if (code.startsWith('FST_ERR_CTP') || fastifyError.statusCode === 400) {
    return new ApiError(400, 'VALIDATION_ERROR', `The request body is not valid JSON: ${fastifyError.message ?? ''}`, {
      field: 'body',
    });
  }
  return new ApiError(500, 'INTERNAL', 'Something went wrong on the server.');
}
