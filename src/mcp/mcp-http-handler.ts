import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { checkJsonText, describeJsonLimitBreach, INPUT_LIMITS } from '../core/input-limits.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { checkHostAndOrigin, type HostPolicy } from './host-validation.js';
import { createMcpServer, type McpServerOptions } from './mcp-server.js';
import { nodeListener } from './node-http-bridge.js';

/**
 * A registry to serve, with server options for it (per-agent context, instructions): what an
 * {@link McpEndpointResolver} returns when a bare registry is not enough.
 *
 * @example
 * ```ts
 * const endpoint: McpEndpoint = {
 *   registry: registry.subset(['search_emails', 'send_email']),
 *   options: { context: { agentId: 'support-bot' }, instructions: 'Answer customer emails.' },
 * };
 * ```
 */
export interface McpEndpoint {
  registry: ToolRegistry;
  options?: McpServerOptions;
}

/**
 * Picks what a new session serves from its `initialize` request (its URL, headers): a registry, an
 * endpoint, or `undefined` for "no MCP endpoint here" (404). Called once per session.
 *
 * @example
 * ```ts
 * const resolve: McpEndpointResolver = (request) => {
 *   const match = /^\/mcp\/agents\/([^/]+)$/.exec(new URL(request.url).pathname);
 *   return match === null ? registry : agentRegistries.get(match[1]);
 * };
 * ```
 */
export type McpEndpointResolver = (
  request: Request,
) => ToolRegistry | McpEndpoint | undefined | Promise<ToolRegistry | McpEndpoint | undefined>;

/**
 * A limit on the sessions one caller may hold at once, as {@link McpHttpHandlerOptions.sessionQuotas}
 * returns them for a request: every session opened by a request with the same `key` counts against it.
 *
 * @example
 * ```ts
 * const quota: McpSessionQuota = {
 *   key: `token:${tokenId}`,
 *   limit: 100,
 *   holder: 'this API token',
 *   hint: 'end one with DELETE /mcp and its Mcp-Session-Id header',
 * };
 * ```
 */
export interface McpSessionQuota {
  /** Who the sessions count against: a token or workspace id (any text; keys are compared exactly). */
  key: string;
  /** Most sessions open at once under `key`. */
  limit: number;
  /** Who holds the sessions, as the 429 message names it: `'this API token'`. */
  holder: string;
  /** How the caller makes room, ending the 429 message (default: end a session with DELETE). */
  hint?: string;
}

/**
 * Settings of {@link createMcpHttpHandler}: the server's, the host policy, and the HTTP limits.
 *
 * @example
 * ```ts
 * const options: McpHttpHandlerOptions = {
 *   allowedHosts: ['tools.example.com'],
 *   maxBodyBytes: 1024 * 1024,
 *   sessionIdleMs: 10 * 60_000,
 *   sessionScope: (request) => request.headers.get('x-workspace-id') ?? undefined,
 *   sessionQuotas: (request) => [
 *     { key: request.headers.get('x-workspace-id') ?? '', limit: 50, holder: 'this workspace' },
 *   ],
 * };
 * ```
 */
export interface McpHttpHandlerOptions extends McpServerOptions, HostPolicy {
  /** Largest accepted POST body in bytes (default 1 MiB, `INPUT_LIMITS.bodyBytes`); larger ones get 413. */
  maxBodyBytes?: number;
  /** Most sessions open at once, all callers together (default 1 000); an `initialize` beyond it gets 503. */
  maxSessions?: number;
  /**
   * A session with no request and no open stream for this long is closed (default 30 minutes);
   * its client gets 404 and starts a new session.
   */
  sessionIdleMs?: number;
  /**
   * Who a request speaks for (a workspace or token id), when the server authenticates requests: a
   * session answers only requests with the same scope as its `initialize`, so a session id is useless
   * with another caller's credentials. Sessions are always bound to their path as well.
   */
  sessionScope?: (request: Request) => string | undefined;
  /**
   * The quotas a new session counts against, narrowest first (the caller's token, then its workspace):
   * called on each `initialize`. When one is full, its least recently used idle session (no request
   * under way, no open stream) is closed to make room, preferring the caller's own (those that share
   * the first quota's key); that session's next request gets the usual 404 and its client starts
   * over. When every session under the full quota is busy, the `initialize` gets 429 with a JSON-RPC
   * error naming the holder, the limit and `hint`. Quotas are checked before `maxSessions`, so with
   * quotas well below it one caller cannot fill the server.
   */
  sessionQuotas?: (request: Request) => readonly McpSessionQuota[];
}

/**
 * A Streamable HTTP endpoint: call it as a node:http request listener, or use `fetch` with a
 * web-standard `Request`.
 *
 * @example
 * ```ts
 * const mcp: McpHttpHandler = createMcpHttpHandler(registry);
 * createServer((request, response) => void mcp(request, response)).listen(4319, '127.0.0.1');
 * const response = await mcp.fetch(new Request('http://localhost:4319/mcp', { method: 'DELETE' }));
 * console.log(mcp.sessionCount);
 * await mcp.close();
 * ```
 */
export interface McpHttpHandler {
  (request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** The same endpoint for web-standard requests. */
  fetch(request: Request): Promise<Response>;
  /** How many sessions are open. */
  readonly sessionCount: number;
  /** How many sessions are open under a quota key (see {@link McpHttpHandlerOptions.sessionQuotas}). */
  sessionCountOf(key: string): number;
  /** Close every session and stop the idle sweep. */
  close(): Promise<void>;
}

interface Session {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** The path (and `sessionScope`) the session was opened with; it answers there only. */
  scope: string;
  lastSeen: number;
  /** Requests under way and streams open; a session with none is idle. */
  openStreams: number;
  /** The quota keys the session counts against. */
  quotaKeys: readonly string[];
}

const DEFAULT_MAX_BODY_BYTES = INPUT_LIMITS.bodyBytes;

/**
 * A Streamable HTTP handler serving a registry over MCP, with stateful sessions.
 *
 * - An `initialize` POST without a session id opens a session (its own {@link createMcpServer}) and
 *   answers with an `Mcp-Session-Id` header; every later request must carry that header: a missing one
 *   gets 400, an unknown or closed one 404 (the client then initializes again). `DELETE` ends a session.
 * - `Host` and `Origin` are checked first (DNS-rebinding protection): a non-local host gets 403 unless
 *   listed in `allowedHosts`.
 * - A body that is not JSON gets a JSON-RPC parse error (-32700) with 400; one over `maxBodyBytes`, 413.
 * - An `initialize` beyond a caller's `sessionQuotas` closes that caller's least recently used idle
 *   session, or gets 429 when none is idle; one beyond `maxSessions` gets 503.
 * - Pass a registry to serve it on every path the handler is mounted at, or a resolver to pick a
 *   registry per request path (per-agent endpoints); a session answers only on the path it was opened on.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createMcpHttpHandler } from 'toolshed/mcp';
 *
 * const mcp = createMcpHttpHandler(registry);
 * createServer((request, response) => {
 *   if (request.url?.startsWith('/mcp')) void mcp(request, response);
 *   else response.writeHead(404).end();
 * }).listen(4319, '127.0.0.1');
 * ```
 */
export function createMcpHttpHandler(
  registryOrResolver: ToolRegistry | McpEndpointResolver,
  options: McpHttpHandlerOptions = {},
): McpHttpHandler {
  const sessions = new Map<string, Session>();
  /** The open sessions under each quota key. */
  const byQuotaKey = new Map<string, Set<Session>>();
  /** `initialize` requests admitted but not yet a session, in total and per quota key. */
  let pendingTotal = 0;
  const pendingByKey = new Map<string, number>();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxSessions = options.maxSessions ?? 1000;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const report = options.onError ?? (() => {});
  const resolve: McpEndpointResolver =
    typeof registryOrResolver === 'function' ? registryOrResolver : () => registryOrResolver;

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const session of sessions.values()) {
        if (session.openStreams === 0 && now - session.lastSeen > idleMs) closeSession(session);
      }
    },
    Math.max(1000, Math.min(idleMs / 2, 60_000)),
  );
  sweep.unref();

  function closeSession(session: Session): void {
    forget(session);
    session.server.close().catch(report);
  }

  function remember(session: Session): void {
    sessions.set(session.id, session);
    for (const key of session.quotaKeys) {
      let open = byQuotaKey.get(key);
      if (open === undefined) {
        open = new Set();
        byQuotaKey.set(key, open);
      }
      open.add(session);
    }
  }

  function forget(session: Session): void {
    if (sessions.get(session.id) === session) sessions.delete(session.id);
    for (const key of session.quotaKeys) {
      const open = byQuotaKey.get(key);
      open?.delete(session);
      if (open?.size === 0) byQuotaKey.delete(key);
    }
  }

  function heldUnder(key: string): number {
    return (byQuotaKey.get(key)?.size ?? 0) + (pendingByKey.get(key) ?? 0);
  }

  /**
   * Close idle sessions until every quota has room for one more, least recently used first and the
   * caller's own (those under the first, narrowest quota) before others; the first quota that stays
   * full, or `undefined`.
   */
  function makeRoom(quotas: readonly McpSessionQuota[]): McpSessionQuota | undefined {
    const own = quotas[0]?.key;
    for (const quota of quotas) {
      while (heldUnder(quota.key) >= quota.limit) {
        let victim: Session | undefined;
        for (const session of byQuotaKey.get(quota.key) ?? []) {
          if (session.openStreams > 0) continue;
          if (victim === undefined || isBetterVictim(session, victim, own)) victim = session;
        }
        if (victim === undefined) return quota;
        closeSession(victim);
      }
    }
    return undefined;
  }

  function reserve(keys: readonly string[], delta: 1 | -1): void {
    pendingTotal += delta;
    for (const key of keys) {
      const count = (pendingByKey.get(key) ?? 0) + delta;
      if (count === 0) pendingByKey.delete(key);
      else pendingByKey.set(key, count);
    }
  }

  async function handle(request: Request): Promise<Response> {
    const refused = checkHostAndOrigin(request.headers, options);
    if (refused !== undefined) return jsonRpcError(403, -32000, `Forbidden: ${refused}`);
    const method = request.method;
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      return jsonRpcError(405, -32000, `Method ${method} is not allowed; use POST, GET or DELETE.`, {
        allow: 'POST, GET, DELETE',
      });
    }
    const path = new URL(request.url).pathname;
    const scope = `${path}\n${options.sessionScope?.(request) ?? ''}`;
    const sessionId = request.headers.get('mcp-session-id');

    if (method !== 'POST') {
      if (sessionId === null) return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required.');
      const session = findSession(sessionId, scope);
      if (session === undefined) return sessionNotFound();
      return serve(session, request, undefined);
    }

    const body = await readBody(request, maxBodyBytes);
    if (body === 'too large') {
      return jsonRpcError(413, -32000, `Payload Too Large: the request body exceeds ${maxBodyBytes} bytes.`, {
        connection: 'close',
      });
    }
    // Limits and refused keys before parsing (INPUT_LIMITS): never a stack overflow further on.
    const breach = checkJsonText(body);
    if (breach !== undefined) {
      return jsonRpcError(400, -32600, `Invalid Request: ${describeJsonLimitBreach('the request body', breach)}`);
    }
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch (error) {
      return jsonRpcError(
        400,
        -32700,
        `Parse error: the request body is not valid JSON (${(error as Error).message}).`,
      );
    }

    if (sessionId !== null) {
      const session = findSession(sessionId, scope);
      if (session === undefined) return sessionNotFound();
      return serve(session, request, message);
    }
    const initializing = Array.isArray(message) ? message.some(isInitializeRequest) : isInitializeRequest(message);
    if (!initializing) {
      return jsonRpcError(
        400,
        -32000,
        'Bad Request: Mcp-Session-Id header is required (send initialize first to get one).',
      );
    }
    const quotas = options.sessionQuotas?.(request) ?? [];
    const full = makeRoom(quotas);
    if (full !== undefined) {
      return jsonRpcError(
        429,
        -32000,
        `Too Many Requests: ${full.holder} has ${full.limit} MCP session${full.limit === 1 ? '' : 's'} open, its limit, and none is idle; ${full.hint ?? 'end one with DELETE and its Mcp-Session-Id header'}.`,
      );
    }
    if (sessions.size + pendingTotal >= maxSessions) {
      return jsonRpcError(503, -32000, `Service Unavailable: ${maxSessions} MCP sessions are open; try again later.`, {
        'retry-after': '60',
      });
    }
    // Held until the session exists (or failed), so concurrent initializes cannot overshoot a limit.
    const quotaKeys = quotas.map((quota) => quota.key);
    reserve(quotaKeys, 1);
    let held = true;
    const release = () => {
      if (held) reserve(quotaKeys, -1);
      held = false;
    };
    try {
      let endpoint: ToolRegistry | McpEndpoint | undefined;
      try {
        endpoint = await resolve(request);
      } catch (error) {
        report(error);
        return jsonRpcError(500, -32603, 'Internal error: could not resolve the tools to serve.');
      }
      if (endpoint === undefined) {
        return jsonRpcError(404, -32000, `Not Found: there is no MCP endpoint at '${path}'.`);
      }
      return await openSession(endpoint, scope, quotaKeys, release, request, message);
    } finally {
      release();
    }
  }

  function findSession(sessionId: string, scope: string): Session | undefined {
    const session = sessions.get(sessionId);
    return session !== undefined && session.scope === scope ? session : undefined;
  }

  async function openSession(
    endpoint: ToolRegistry | McpEndpoint,
    scope: string,
    quotaKeys: readonly string[],
    release: () => void,
    request: Request,
    message: unknown,
  ): Promise<Response> {
    const registry = isEndpoint(endpoint) ? endpoint.registry : endpoint;
    const serverOptions = isEndpoint(endpoint) ? { ...options, ...endpoint.options } : options;
    const server = createMcpServer(registry, serverOptions);
    let session: Session | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        // Busy until its initialize is answered, so no other initialize closes it in the meantime.
        session = { id, transport, server, scope, lastSeen: Date.now(), openStreams: 1, quotaKeys };
        remember(session);
        release();
      },
      onsessionclosed: (id) => {
        const closed = sessions.get(id);
        if (closed !== undefined) forget(closed);
      },
    });
    const previousOnClose = server.onclose;
    server.onclose = () => {
      if (session !== undefined) forget(session);
      previousOnClose?.();
    };
    await server.connect(transport);
    let response: Response;
    try {
      response = await transport.handleRequest(request, { parsedBody: message });
    } catch (error) {
      // Not kept half-open (busy, so never swept).
      if (session !== undefined) closeSession(session);
      else await server.close().catch(report);
      throw error;
    }
    if (session === undefined) {
      // The initialize was refused (a batch, a bad request): nothing to keep.
      await server.close().catch(report);
      return response;
    }
    const tracked = trackStream(session, response);
    // Answered: from here its stream, if it has one, is what keeps it busy.
    session.openStreams--;
    return tracked;
  }

  async function serve(session: Session, request: Request, message: unknown): Promise<Response> {
    session.lastSeen = Date.now();
    session.openStreams++;
    let response: Response;
    try {
      response = await session.transport.handleRequest(request, message === undefined ? {} : { parsedBody: message });
    } finally {
      session.openStreams--;
    }
    return trackStream(session, response);
  }

  const fetchHandler = async (request: Request): Promise<Response> => {
    try {
      return await handle(request);
    } catch (error) {
      report(error);
      return jsonRpcError(500, -32603, 'Internal error while handling the MCP request.');
    }
  };

  const nodeHandler = nodeListener(fetchHandler, malformedHttpRequest);

  const handler = Object.assign(nodeHandler, {
    fetch: fetchHandler,
    sessionCountOf: (key: string) => byQuotaKey.get(key)?.size ?? 0,
    async close() {
      clearInterval(sweep);
      const open = [...sessions.values()];
      sessions.clear();
      byQuotaKey.clear();
      await Promise.all(open.map((session) => session.server.close().catch(report)));
    },
  });
  // A getter, not a copied value: Object.assign would read it once.
  return Object.defineProperty(handler, 'sessionCount', {
    get: () => sessions.size,
    enumerable: true,
  }) as McpHttpHandler;
}

/** Idle sessions are closed least recently used first, the caller's own (under `own`) before others. */
function isBetterVictim(candidate: Session, current: Session, own: string | undefined): boolean {
  if (own !== undefined) {
    const candidateOwn = candidate.quotaKeys.includes(own);
    if (candidateOwn !== current.quotaKeys.includes(own)) return candidateOwn;
  }
  return candidate.lastSeen < current.lastSeen;
}

/** Count a streamed response as open until it ends, so an idle sweep never cuts a live stream. */
function trackStream(session: Session, response: Response): Response {
  const body = response.body;
  if (body === null) return response;
  session.openStreams++;
  let open = true;
  const done = () => {
    if (!open) return;
    open = false;
    session.openStreams--;
    session.lastSeen = Date.now();
  };
  const reader = body.getReader();
  const tracked = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: finished, value } = await reader.read();
        if (finished) {
          done();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(tracked, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Read a request body as text, stopping as soon as it grows past `maxBytes`. */
async function readBody(request: Request, maxBytes: number): Promise<string | 'too large'> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) return 'too large';
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      // Not cancelled: on node:http that would reset the socket before the 413 reaches the client.
      reader.releaseLock();
      return 'too large';
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function isEndpoint(value: ToolRegistry | McpEndpoint): value is McpEndpoint {
  // Structural, not instanceof: a registry from another copy of toolshed is still a registry.
  return typeof (value as Partial<ToolRegistry>).call !== 'function';
}

function sessionNotFound(): Response {
  return jsonRpcError(
    404,
    -32001,
    'Session not found: it was closed or never existed; send initialize to start a new one.',
  );
}

/**
 * The answer to an HTTP request that cannot be turned into a web `Request`: 400 with JSON-RPC error
 * -32600.
 *
 * @example
 * ```ts
 * const listener = nodeListener((request) => handler.fetch(request), malformedHttpRequest);
 * ```
 */
export function malformedHttpRequest(): Response {
  return jsonRpcError(400, -32600, 'Bad Request: the HTTP request is malformed.');
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}
