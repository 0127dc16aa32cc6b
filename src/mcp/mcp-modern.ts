import type { Server as LegacyServer } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type CacheScope,
  CLIENT_CAPABILITIES_META_KEY,
  createMcpHandler,
  inputRequired,
  isLegacyRequest,
  LOG_LEVEL_META_KEY,
  type McpHttpHandler as ModernHttpHandler,
  Server as ModernServer,
  ProtocolError,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallContextOptions } from '../core/call-context.js';
import type { ElicitationResult, LogLevel, SamplingResult } from '../core/tool-spec.js';
import { inTraceContext } from '../core/tracing.js';
import { ContentCatalog } from '../registry/content-catalog.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { answerToolCall, unpreparedCallResult } from './answer-tool-call.js';
import { serveCatalog } from './mcp-catalog-handlers.js';
import { pageOf } from './mcp-cursor.js';
import { paramHeaderMismatch } from './mcp-param-headers.js';
import { INVALID_PARAMS, requestError } from './mcp-request-error.js';
import type { McpServerOptions } from './mcp-server.js';
import { listMcpTools } from './mcp-tool-list.js';
import { DEFAULT_PAGE_SIZE, LOG_LEVELS, servedCapabilities, serverInfoOf } from './served-server.js';

/**
 * The protocol revision served without a session, beside the `initialize`-based ones: every request
 * carries its version, client identity and capabilities in `_meta`.
 *
 * @example
 * ```ts
 * console.log(MODERN_PROTOCOL_VERSION); // '2026-07-28'
 * ```
 */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * Default freshness of list results (`ttlMs`) for 2026-07-28 clients: one minute.
 *
 * @example
 * ```ts
 * const handler = createMcpHttpHandler(registry, { listTtlMs: DEFAULT_LIST_TTL_MS / 2 });
 * ```
 */
export const DEFAULT_LIST_TTL_MS = 60_000;

/**
 * Settings of {@link createModernMcpServer}: those of the 2025-11-25 server, and the cache hints of
 * the 2026-07-28 results.
 *
 * @example
 * ```ts
 * const options: ModernMcpServerOptions = { name: 'support-tools', cacheScope: 'private', listTtlMs: 30_000 };
 * ```
 */
export interface ModernMcpServerOptions extends McpServerOptions {
  /**
   * Who may cache the lists, `resources/read` and `server/discover`: `'public'` (any client or shared
   * cache, for every caller) or `'private'` (only for the same credentials). Default `'public'`;
   * serve a view that depends on who asks (a workspace's tools, an agent's) as `'private'`.
   */
  cacheScope?: CacheScope;
  /**
   * How long (ms) a client may use `tools/list`, `prompts/list`, `resources/list`,
   * `resources/templates/list` and `server/discover` results without asking again (default
   * {@link DEFAULT_LIST_TTL_MS}). `resources/read` is always `0`: a resource may change at any time.
   */
  listTtlMs?: number;
}

/**
 * A server for one 2026-07-28 request (`@modelcontextprotocol/server`'s low-level `Server`) that
 * serves a registry's tools and a catalog's prompts and resources, as {@link createMcpServer} does
 * for 2025-11-25 sessions:
 *
 * - `tools/list` is the same listing (the registry's JSON Schemas as they are, `_meta.tools_hash`),
 *   paged by `pageSize` with the same cursors; `prompts/*`, `resources/list`, `resources/read`,
 *   `resources/templates/list` and `completion/complete` are the same handlers.
 * - Lists, `resources/read` and `server/discover` carry `ttlMs` and `cacheScope` (see
 *   {@link ModernMcpServerOptions}).
 * - `tools/call` runs `registry.call` with the request's signal, which aborts when the client closes
 *   the response stream (2026-07-28's cancellation). Progress goes to the call's own stream when the
 *   request carries a `progressToken`; tool logs only when it carries
 *   `_meta["io.modelcontextprotocol/logLevel"]`, at that level or above. The trace context is the
 *   request's `_meta.traceparent`, else its HTTP headers. Failures are `isError: true` results.
 * - A tool's `ctx.elicit` and `ctx.sample` (offered when the request's client capabilities include
 *   `elicitation` / `sampling`) end the round: the call is answered with an `input_required` result
 *   asking the client for them, and a `requestState` holding the answers so far. The client's retry
 *   runs the tool again from the start, its earlier questions answered from the state and the new one
 *   from `inputResponses`, until it finishes. Only the finished round reaches `onCallResult`.
 *
 * Serve it with {@link createModernMcpHandler}, or the SDK's `createMcpHandler`.
 *
 * @example
 * ```ts
 * import { createMcpHandler } from '@modelcontextprotocol/server';
 *
 * const handler = createMcpHandler(() => createModernMcpServer(registry, { name: 'my-tools' }), {
 *   legacy: 'reject',
 * });
 * ```
 */
export function createModernMcpServer(registry: ToolRegistry, options: ModernMcpServerOptions = {}): ModernServer {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
    throw new TypeError(`pageSize must be a whole number of at least 1, got ${String(pageSize)}.`);
  }
  const listTtlMs = options.listTtlMs ?? DEFAULT_LIST_TTL_MS;
  if (!Number.isSafeInteger(listTtlMs) || listTtlMs < 0) {
    throw new TypeError(`listTtlMs must be a whole number of milliseconds, 0 or more, got ${String(listTtlMs)}.`);
  }
  const cacheScope: CacheScope = options.cacheScope ?? 'public';
  if (cacheScope !== 'public' && cacheScope !== 'private') {
    throw new TypeError(`cacheScope must be 'public' or 'private', got ${String(cacheScope)}.`);
  }
  const listHint = { ttlMs: listTtlMs, cacheScope };
  const server = new ModernServer(serverInfoOf(options), {
    capabilities: servedCapabilities(),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    cacheHints: {
      'tools/list': listHint,
      'prompts/list': listHint,
      'resources/list': listHint,
      'resources/templates/list': listHint,
      'server/discover': listHint,
      'resources/read': { ttlMs: 0, cacheScope },
    },
  });
  const report = options.onError ?? (() => {});
  const catalog = options.catalog ?? new ContentCatalog();
  serveCatalog(legacyFacade(server), registry, catalog, { pageSize, report });

  server.setRequestHandler('tools/list', (request) => {
    const listing = listMcpTools(registry);
    const page = pageOf('tools', listing.tools, request.params?.cursor, pageSize);
    if (request.params?.cursor === undefined) for (const skipped of listing.skipped) report(skipped.error);
    return {
      tools: page.items,
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      _meta: { tools_hash: listing.toolsHash },
    } as never;
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const name = request.params.name;
    try {
      return (await callTool(registry, options, name, request.params, ctx, report)) as never;
    } catch (error) {
      // A refused request (a requestState this server did not make) is a JSON-RPC error.
      if (typeof (error as { code?: unknown }).code === 'number') throw error;
      // Otherwise only a throwing `context` option gets here (`registry.call` never throws); still a result.
      return unpreparedCallResult(name, error) as never;
    }
  });
  return server;
}

async function callTool(
  registry: ToolRegistry,
  options: ModernMcpServerOptions,
  name: string,
  params: { arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
  ctx: ServerContext,
  report: (error: unknown) => void,
) {
  // Notifications are sent without blocking the tool, but must reach the client before the result.
  const sending: Promise<void>[] = [];
  const send = (notification: { method: string; params: Record<string, unknown> }) => {
    sending.push(ctx.mcpReq.notify(notification).catch(report));
  };
  const base = typeof options.context === 'function' ? options.context(name) : options.context;
  // Object.assign, not a spread: on Node 20 new keys on a spread copy take V8's slow path (decision 019).
  const context: CallContextOptions = Object.assign({}, base);
  const meta = params._meta;
  const progressToken = meta?.progressToken;
  if (typeof progressToken === 'string' || typeof progressToken === 'number') {
    context.onProgress = (event) => send({ method: 'notifications/progress', params: { progressToken, ...event } });
  }
  // 2026-07-28: logs only for a request that names a level, and at that level or above.
  const requested = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY];
  const threshold = LOG_LEVELS.indexOf(requested as LogLevel);
  if (threshold !== -1) {
    context.onLog = (level, data) => {
      if (LOG_LEVELS.indexOf(level) < threshold) return;
      send({ method: 'notifications/message', params: { level, logger: name, data } });
    };
  }
  const rounds = new InputRounds(name, ctx);
  const capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    | Record<string, unknown>
    | undefined;
  if (capabilities?.elicitation !== undefined) {
    context.elicit = (message, requestedSchema) =>
      rounds.ask<ElicitationResult>({
        method: 'elicitation/create',
        params: { mode: 'form', message, requestedSchema },
      });
  }
  if (capabilities?.sampling !== undefined) {
    context.sample = (sampling) =>
      rounds.ask<SamplingResult>({ method: 'sampling/createMessage', params: { ...sampling } });
  }
  const carrier =
    meta !== undefined && typeof meta.traceparent === 'string' ? meta : headerRecord(ctx.http?.req?.headers);
  const admitCall = options.admitCall;
  let release: (() => void) | undefined;
  const admit =
    admitCall === undefined
      ? undefined
      : async () => {
          const admission = await admitCall(name);
          if (typeof admission === 'function') {
            release = admission;
            return undefined;
          }
          return admission;
        };
  let result: Awaited<ReturnType<ToolRegistry['call']>>;
  try {
    result = await inTraceContext(carrier, () =>
      registry.call(name, params.arguments ?? {}, {
        signal: rounds.signal,
        toolCallId: String(ctx.mcpReq.id),
        context,
        ...(admit === undefined ? {} : { admit }),
      }),
    );
  } finally {
    release?.();
  }
  await Promise.all(sending);
  const asking = rounds.pending();
  if (asking !== undefined) return asking;
  return answerToolCall(registry, name, params.arguments ?? {}, result, options.onCallResult, report);
}

/** Thrown by a question of a round that has no answer yet: the round ends with `input_required`. */
function inputPending(): Error {
  return new Error('The client was asked for input; the call goes on when it retries with the answer.');
}

/** The most questions one call may ask over all its rounds. */
const MAX_QUESTIONS = 64;

/**
 * The questions (`elicitation/create`, `sampling/createMessage`) of one call served by multi
 * round-trip requests: each run of the tool asks them in the same order, so the n-th question is
 * answered by the n-th answer, from the `requestState` of earlier rounds or this round's
 * `inputResponses` (key `input-<n>`). The first question without an answer ends the run.
 */
class InputRounds {
  readonly #tool: string;
  readonly #answers: unknown[];
  readonly #questions = new Map<string, { method: string; params: Record<string, unknown> }>();
  readonly #suspend = new AbortController();
  readonly signal: AbortSignal;
  #asked = 0;

  constructor(tool: string, ctx: ServerContext) {
    this.#tool = tool;
    this.#answers = decodeState(ctx.mcpReq.requestState(), tool);
    const responses = ctx.mcpReq.inputResponses ?? {};
    while (Object.hasOwn(responses, `input-${this.#answers.length}`) && this.#answers.length < MAX_QUESTIONS) {
      this.#answers.push(responses[`input-${this.#answers.length}`]);
    }
    this.signal = AbortSignal.any([ctx.mcpReq.signal, this.#suspend.signal]);
  }

  /** The answer to the next question, or (none yet) the end of this run. */
  async ask<T>(question: { method: string; params: Record<string, unknown> }): Promise<T> {
    const index = this.#asked++;
    if (index < this.#answers.length) return checkedAnswer(question.method, this.#answers[index], index) as T;
    if (index >= MAX_QUESTIONS) throw new Error(`A call may ask the client at most ${MAX_QUESTIONS} questions.`);
    this.#questions.set(`input-${index}`, question);
    // A tool that catches the error and goes on is stopped by its signal.
    queueMicrotask(() => this.#suspend.abort(inputPending()));
    throw inputPending();
  }

  /** The `input_required` result when the run ended on questions without an answer. */
  pending() {
    if (this.#questions.size === 0) return undefined;
    return inputRequired({
      inputRequests: Object.fromEntries(this.#questions) as never,
      requestState: Buffer.from(JSON.stringify({ tool: this.#tool, answers: this.#answers })).toString('base64url'),
    });
  }
}

/** The client's answer to question `index`, when it has the shape of the answer to `method`. */
function checkedAnswer(method: string, answer: unknown, index: number): unknown {
  const fields = (typeof answer === 'object' && answer !== null && !Array.isArray(answer) ? answer : {}) as Record<
    string,
    unknown
  >;
  const fits =
    method === 'elicitation/create'
      ? ['accept', 'decline', 'cancel'].includes(fields.action as string) &&
        (fields.content === undefined || (typeof fields.content === 'object' && fields.content !== null))
      : typeof fields.role === 'string' && typeof fields.content === 'object' && fields.content !== null;
  if (!fits) {
    throw new TypeError(
      `The client's answer 'input-${index}' is not a result of ${method}: ${JSON.stringify(answer)?.slice(0, 200)}.`,
    );
  }
  if (method !== 'elicitation/create') return fields;
  return fields.content === undefined ? { action: fields.action } : { action: fields.action, content: fields.content };
}

/** The answers a `requestState` of this server carries; a state it did not make for `tool` is -32602. */
function decodeState(state: unknown, tool: string): unknown[] {
  if (state === undefined) return [];
  const refuse = () =>
    requestError(
      INVALID_PARAMS,
      `Invalid requestState for '${tool}': send back the requestState of this call's input_required result unchanged, or none to start over.`,
    );
  if (typeof state !== 'string' || !/^[A-Za-z0-9_-]*$/.test(state)) throw refuse();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(state, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  const fields = decoded as { tool?: unknown; answers?: unknown };
  if (typeof decoded !== 'object' || decoded === null || fields.tool !== tool || !Array.isArray(fields.answers)) {
    throw refuse();
  }
  if (fields.answers.length > MAX_QUESTIONS) throw refuse();
  return [...fields.answers];
}

/**
 * The catalog's handlers are written against the 2025-11-25 SDK's `setRequestHandler(schema, …)`:
 * this facade registers each on the 2026-07-28 server under the schema's method, leaving out
 * `resources/subscribe` and `resources/unsubscribe` (2026-07-28 subscribes with `subscriptions/listen`).
 */
function legacyFacade(server: ModernServer): LegacyServer {
  const facade = {
    setRequestHandler(schema: unknown, handler: (request: unknown, extra: unknown) => unknown) {
      const method = (schema as { shape?: { method?: { value?: unknown } } }).shape?.method?.value;
      if (typeof method !== 'string') throw new TypeError('A catalog handler was registered without its method.');
      if (method === 'resources/subscribe' || method === 'resources/unsubscribe') return;
      server.setRequestHandler(method as 'prompts/list', (request, ctx) => handler(request, ctx) as never);
    },
    // Updates reach 2026-07-28 clients through subscriptions/listen, not through this server.
    transport: undefined,
  };
  return facade as unknown as LegacyServer;
}

function headerRecord(headers: Headers | undefined): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  const record: Record<string, string> = {};
  headers.forEach((value, key) => {
    record[key] = value;
  });
  return record;
}

/**
 * What {@link createModernMcpHandler} serves a request with: the registry, and the server options for
 * this request (its caller's context, call log and admission).
 *
 * @example
 * ```ts
 * const endpoint: ModernMcpEndpoint = { registry, options: { cacheScope: 'private' } };
 * ```
 */
export interface ModernMcpEndpoint {
  registry: ToolRegistry;
  options?: ModernMcpServerOptions;
}

/**
 * Settings of {@link createModernMcpHandler}.
 *
 * @example
 * ```ts
 * const options: ModernMcpHandlerOptions = { onError: (error) => console.error(error) };
 * ```
 */
export interface ModernMcpHandlerOptions {
  /**
   * Told about problems on the server's side: a failing server factory, a lost notification. Requests
   * refused for the client's own mistake (a header that does not match the body, an unsupported
   * version) are answered with their error and not reported.
   */
  onError?: (error: unknown) => void;
  /** Most `subscriptions/listen` streams open at once for one registry (default 1 024). */
  maxSubscriptions?: number;
}

/**
 * Serves 2026-07-28 requests (no session) for any number of registries: `fetch` answers one
 * request with a fresh {@link createModernMcpServer} for the endpoint given. `subscriptions/listen`
 * streams are kept per registry, and get `notifications/tools/list_changed` when the registry's tools
 * change and the prompt and resource notifications of the endpoint's catalog.
 *
 * @example
 * ```ts
 * const modern = createModernMcpHandler();
 * const response = await modern.fetch(request, { registry }, JSON.parse(body));
 * await modern.close();
 * ```
 */
export interface ModernMcpHandler {
  /** Answer one 2026-07-28 request (its body already parsed) for `endpoint`. */
  fetch(request: Request, endpoint: ModernMcpEndpoint, parsedBody: unknown): Promise<Response>;
  /** End every open `subscriptions/listen` stream and stop listening to the registries. */
  close(): Promise<void>;
}

/**
 * A {@link ModernMcpHandler}: 2026-07-28 served by `@modelcontextprotocol/server`'s
 * `createMcpHandler`, one per registry, strict (a request without the 2026-07-28 `_meta` is refused:
 * route those to the 2025-11-25 handler first, see {@link isModernMcpRequest}).
 *
 * @example
 * ```ts
 * const modern = createModernMcpHandler({ onError: console.error });
 * if (await isModernMcpRequest(request, message)) return modern.fetch(request, { registry }, message);
 * ```
 */
export function createModernMcpHandler(options: ModernMcpHandlerOptions = {}): ModernMcpHandler {
  const onError = options.onError ?? (() => {});
  const report = (error: unknown) => {
    if (!isClientRefusal(error)) onError(error);
  };
  /** The endpoint each request in flight is served with, for the SDK's per-request server factory. */
  const endpoints = new WeakMap<Request, ModernMcpEndpoint>();
  interface Served {
    handler: ModernHttpHandler;
    stop: () => void;
  }
  /** One SDK handler per registry, kept as long as the registry is (a closed view lets go of its own). */
  const handlers = new WeakMap<ToolRegistry, Served>();
  const open = new Set<WeakRef<Served>>();

  function handlerFor(endpoint: ModernMcpEndpoint): ModernHttpHandler {
    const known = handlers.get(endpoint.registry);
    if (known !== undefined) return known.handler;
    const handler = createMcpHandler(
      ({ requestInfo }) => {
        const served = requestInfo === undefined ? undefined : endpoints.get(requestInfo);
        if (served === undefined) throw new Error('A 2026-07-28 request reached the server without its endpoint.');
        return createModernMcpServer(served.registry, served.options);
      },
      {
        legacy: 'reject',
        onerror: report,
        ...(options.maxSubscriptions === undefined ? {} : { maxSubscriptions: options.maxSubscriptions }),
      },
    );
    const notify = handler.notify;
    const stopTools = endpoint.registry.on('change', () => notify.toolsChanged());
    const stopCatalog = endpoint.options?.catalog?.on((change) => {
      if (change.type === 'prompts') notify.promptsChanged();
      else if (change.type === 'resources') notify.resourcesChanged();
      else notify.resourceUpdated(change.uri);
    });
    const served: Served = {
      handler,
      stop: () => {
        stopTools();
        stopCatalog?.();
      },
    };
    handlers.set(endpoint.registry, served);
    for (const ref of open) if (ref.deref() === undefined) open.delete(ref);
    open.add(new WeakRef(served));
    return handler;
  }

  return {
    async fetch(request, endpoint, parsedBody) {
      const mismatch = toolHeaderMismatch(endpoint.registry, request, parsedBody);
      if (mismatch !== undefined) return mismatch;
      endpoints.set(request, endpoint);
      return handlerFor(endpoint).fetch(request, { parsedBody });
    },
    async close() {
      const closing = [...open].flatMap((ref) => ref.deref() ?? []);
      open.clear();
      for (const entry of closing) entry.stop();
      await Promise.all(closing.map((entry) => entry.handler.close().catch(report)));
    },
  };
}

/** Each listing's tools by name, to find a called tool's input schema. */
const toolsByName = new WeakMap<object, Map<string, { inputSchema?: unknown }>>();

/**
 * The 400 (`-32020`, HeaderMismatch) for a `tools/call` whose `Mcp-Param-*` headers disagree with its
 * arguments, as the tool's `x-mcp-header` properties declare them; `undefined` otherwise (the SDK checks
 * these headers only for tools of its high-level `McpServer`).
 */
function toolHeaderMismatch(registry: ToolRegistry, request: Request, body: unknown): Response | undefined {
  const message = body as { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown } };
  if (typeof message !== 'object' || message === null || message.method !== 'tools/call') return undefined;
  const name = message.params?.name;
  if (typeof name !== 'string') return undefined;
  const listing = listMcpTools(registry).tools;
  let byName = toolsByName.get(listing);
  if (byName === undefined) {
    byName = new Map(listing.map((tool) => [tool.name, tool]));
    toolsByName.set(listing, byName);
  }
  const mismatch = paramHeaderMismatch(byName.get(name)?.inputSchema, message.params?.arguments, request.headers);
  if (mismatch === undefined) return undefined;
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      error: { code: -32020, message: `Bad Request: the request headers and body disagree: ${mismatch}.` },
    }),
    { status: 400, headers: { 'content-type': 'application/json' } },
  );
}

/**
 * Whether a request speaks 2026-07-28 (or a later revision): it carries the per-request `_meta`
 * envelope or a modern `MCP-Protocol-Version` header. An `initialize`, a request of a 2025-11-25
 * session, a `GET` or `DELETE`, and a body that is not JSON-RPC are not.
 *
 * @example
 * ```ts
 * if (await isModernMcpRequest(request, JSON.parse(body))) console.log('2026-07-28');
 * ```
 */
export async function isModernMcpRequest(request: Request, parsedBody: unknown): Promise<boolean> {
  if (request.method !== 'POST') return false;
  if (isPlainLegacyMessage(request.headers.get('mcp-protocol-version'), parsedBody)) return false;
  return !(await isLegacyRequest(request, parsedBody));
}

/** The first protocol revision served without a session. */
const FIRST_MODERN_VERSION = '2026-07-28';

/**
 * The common case decided without the SDK's full classification: one well-formed JSON-RPC request or
 * notification whose params carry no `_meta` (so no 2026-07-28 envelope can be in them), under no
 * `MCP-Protocol-Version` header of 2026-07-28 or later. The SDK classifies exactly these as legacy;
 * anything else (batches, responses, `_meta`, odd shapes) is left to it.
 */
function isPlainLegacyMessage(versionHeader: string | null, body: unknown): boolean {
  if (versionHeader !== null && versionHeader >= FIRST_MODERN_VERSION) return false;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const message = body as Record<string, unknown>;
  for (const key in message) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return false;
  }
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string') return false;
  const id = message.id;
  if (Object.hasOwn(message, 'id') && typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  const params = message.params;
  if (params === undefined) return true;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
  return !Object.hasOwn(params, '_meta');
}

/** A request the SDK refused for the client's mistake: its JSON-RPC error already says why. */
function isClientRefusal(error: unknown): boolean {
  if (error instanceof ProtocolError) return true;
  // The SDK reports the requests it refuses for the client's mistake as plain errors too.
  return (
    error instanceof Error &&
    (error.message.startsWith('Rejected inbound request') || error.message.startsWith('Unsupported Media Type'))
  );
}
