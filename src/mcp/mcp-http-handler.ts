import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  isInitializeRequest,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { checkJsonText, describeJsonLimitBreach, INPUT_LIMITS } from '../core/input-limits.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { checkHostAndOrigin, type HostPolicy } from './host-validation.js';
import {
  createModernMcpHandler,
  isModernMcpRequest,
  MODERN_PROTOCOL_VERSION,
  type ModernMcpServerOptions,
} from './mcp-modern.js';
import { createMcpServer } from './mcp-server.js';
import { nodeListener, readRequestText, type WriteWebResponseOptions, withClientSignal } from './node-http-bridge.js';
import {
  MAX_EVENT_ID_CHARS,
  type McpEventLimits,
  type McpReplayEvent,
  type McpSharedEvent,
  SessionEventStore,
} from './session-event-store.js';
import { alreadyInitializedMessage, invalidParamsAnswer, SessionRequests } from './session-requests.js';
import { eraOf } from './stdio-modern-lane.js';
import { unsafeRequestIdMessage } from './unsafe-request-id.js';

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
  options?: ModernMcpServerOptions;
  /**
   * Awaited before each request of a session is served: lets a registry that is being brought up to
   * date (after a change made by another server) finish first, so what the client lists is current.
   */
  settle?: () => Promise<void>;
}

/**
 * What a session shares with the other servers answering it (see {@link McpSessionSharing}): enough
 * of its `initialize` to open it again anywhere.
 *
 * @example
 * ```ts
 * const session: McpSharedSession = {
 *   id: '5f0c…', scope: '/mcp\nacme', protocolVersion: '2025-11-25',
 *   clientInfo: { name: 'inspector', version: '1.0.0' }, clientCapabilities: { elicitation: {} },
 * };
 * ```
 */
export interface McpSharedSession {
  id: string;
  /** The path (and `sessionScope`) it answers on. */
  scope: string;
  protocolVersion: string;
  clientInfo: Record<string, unknown>;
  clientCapabilities: Record<string, unknown>;
}

/**
 * A message between the servers sharing sessions: client messages for whichever server runs the
 * request they concern (`notifications/cancelled`, answers to elicitation and sampling), word that
 * a session was closed, or (kind `events`) a request to keep the events of the streams named in
 * `messages` (stream keys) with `storeEvents`, for a client resuming one elsewhere. `origin` names the
 * sender, which ignores its own.
 *
 * @example
 * ```ts
 * const signal: McpSessionSignalMessage = { sessionId: '5f0c…', origin: 'b2e1…', kind: 'closed' };
 * ```
 */
export interface McpSessionSignalMessage {
  sessionId: string;
  origin: string;
  kind: 'messages' | 'closed' | 'events';
  messages?: unknown[];
}

/**
 * Where sessions live when several servers answer them (behind a load balancer, on one database):
 * any server can then serve a request of a session another one opened, by opening it again from what
 * its `initialize` said, and the servers pass each other the client messages and closings of the
 * sessions through `signal`.
 *
 * @example
 * ```ts
 * const sharing: McpSessionSharing = {
 *   create: (session, expiresAt) => db.insert({ ...session, expiresAt }),
 *   get: (id) => db.find(id),
 *   touch: (id, expiresAt) => db.extend(id, expiresAt),
 *   delete: (id) => db.remove(id),
 *   pruneExpired: () => db.removeExpired(),
 *   signal: (message) => bus.publish(message),
 *   onSignal: (listener) => bus.subscribe(listener),
 * };
 * const mcp = createMcpHttpHandler(registry, { sessions: sharing });
 * ```
 */
export interface McpSessionSharing {
  /** Keep a new session, until `expiresAt` (epoch milliseconds); `request` is its `initialize`. */
  create(session: McpSharedSession, expiresAt: number, request: Request): Promise<void>;
  /** The session, unless it is unknown or expired. */
  get(id: string): Promise<McpSharedSession | undefined>;
  /** Push its expiry to `expiresAt`; false when it is gone. */
  touch(id: string, expiresAt: number): Promise<boolean>;
  delete(id: string): Promise<boolean>;
  /** Forget expired sessions (called by the idle sweep). */
  pruneExpired(): Promise<number>;
  /** Tell every server sharing the sessions, this one included. */
  signal(message: McpSessionSignalMessage): Promise<void>;
  onSignal(listener: (message: McpSessionSignalMessage) => void): () => void;
  /**
   * Called when signals may have been lost (say, the connection that hears them dropped and came
   * back): each server then checks the sessions it holds and lets go of those that ended meanwhile.
   */
  onResync?(listener: () => void): () => void;
  /**
   * Keep events of a session's streams for the other servers (with resumable streams): those of the
   * streams a client dropped before their answer. Without it, a stream resumes only on the server
   * that wrote it.
   */
  storeEvents?(sessionId: string, events: readonly McpSharedEvent[]): Promise<void>;
  /**
   * The kept events of a session's stream from sequence number `seq` on, oldest first, at most
   * `limit`: an empty list, or one that does not start with `seq`, when that event is not kept.
   */
  eventsFrom?(sessionId: string, streamKey: string, seq: number, limit: number): Promise<McpSharedEvent[]>;
  /** Forget a stream's events up to `throughSeq` (they fell out of the limits of the server writing it). */
  dropEvents?(sessionId: string, streamKey: string, throughSeq: number): Promise<void>;
}

/**
 * How {@link createMcpHttpHandler} keeps SSE events for clients that reconnect with `Last-Event-ID`
 * (see {@link McpHttpHandlerOptions.resumableStreams}).
 *
 * @example
 * ```ts
 * const resumable: McpResumableStreamsOptions = { retryMs: 2000, maxEventsPerSession: 500, eventTtlMs: 5 * 60_000 };
 * ```
 */
export interface McpResumableStreamsOptions {
  /** The `retry` field of a stream's first event: how long a client waits before it reconnects (default 1000 ms). */
  retryMs?: number;
  /** Most events kept per session (default 1 000); the oldest go first. */
  maxEventsPerSession?: number;
  /** Most bytes of events kept per session (default 1 MiB); the oldest go first. */
  maxBytesPerSession?: number;
  /** How long an event is kept (default 5 minutes). */
  eventTtlMs?: number;
  /**
   * Close a POST stream whose answer has not come after this long (default: never): its client
   * reconnects with `Last-Event-ID` after `retryMs` and gets the rest, so no connection stays open
   * through a long call (proxies with idle timeouts). Only for clients of protocol 2025-11-25 or
   * later, which expect it.
   */
  pollAfterMs?: number;
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
export interface McpHttpHandlerOptions extends ModernMcpServerOptions, HostPolicy {
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
  /**
   * Share sessions with other servers (default: sessions live in this process only). With it, a
   * request for a session this process does not hold is answered after opening the session again
   * from the shared record, `DELETE` ends the session everywhere, a client's cancellation or answer to
   * an elicitation reaches the server running the request it concerns, and an idle session is only
   * let go here (it stays open until no server has seen it for `sessionIdleMs`). `maxSessions` counts
   * the sessions this process holds; the quotas count those it opened.
   */
  sessions?: McpSessionSharing;
  /**
   * Resumable streams (on by default; `false` turns them off): every event on a session's SSE
   * streams carries an id, each POST stream opens with an empty priming event and a `retry` field
   * (clients of protocol 2025-11-25 or later), and a client that reconnects with `GET` and
   * `Last-Event-ID` gets the events it missed, in order, once. Events are kept per session within
   * limits; with `sessions` that can keep events, a reconnection may reach any server. A
   * `Last-Event-ID` that is malformed, too long, of another session or no longer kept gets 400.
   */
  resumableStreams?: false | McpResumableStreamsOptions;
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
  endpoint: ToolRegistry | McpEndpoint;
  /** When the shared record's expiry was last pushed forward. */
  touchedAt: number;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** The path (and `sessionScope`) the session was opened with; it answers there only. */
  scope: string;
  lastSeen: number;
  /** Requests under way and streams open; a session with none is idle. */
  openStreams: number;
  /** The quota keys the session counts against. */
  quotaKeys: readonly string[];
  /** The protocol version its `initialize` asked for. */
  protocolVersion: string;
  /** Its events, when streams are resumable. */
  events: SessionEventStore | undefined;
  /** The ids of its client's requests under way. */
  requests: SessionRequests;
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
 * - A body that is not JSON gets a JSON-RPC parse error (-32700) with 400; one over `maxBodyBytes`, 413
 *   (sent once the client has sent the rest, which is dropped). A numeric request id too large to be read
 *   exactly (past 2^53) gets 400 with -32600.
 * - An `initialize` whose params are wrong gets 400 with -32602 naming the field, and opens no session;
 *   one naming a protocol version this server does not know is answered with the latest it supports;
 *   one sent in a session gets 400 with -32600. An `MCP-Protocol-Version` header naming a version it
 *   does not serve gets 400, on every request.
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
  const shared = options.sessions;
  const resumable = resumableSettings(options.resumableStreams);
  /** This handler among those sharing sessions: it ignores its own signals. */
  const origin = randomUUID();
  /** Sessions being opened again from their shared record, so two requests open one. */
  const reviving = new Map<string, Promise<Session | undefined>>();
  /** Sessions ended elsewhere while being opened again here: not to be kept once opened. */
  const endedWhileReviving = new Set<string>();
  /** How often a busy session's shared expiry is pushed forward: a tenth of the idle time, 1 s to 1 min. */
  const touchEveryMs = Math.max(1000, Math.min(idleMs / 10, 60_000));
  /** 2026-07-28 requests: no session, a server of their own each (see mcp-modern.ts). */
  const modern = createModernMcpHandler({ onError: report });
  const stopSignals = shared?.onSignal((signal) => {
    if (signal.origin === origin) return;
    const session = sessions.get(signal.sessionId);
    if (session === undefined) {
      // Its record may have been read before it was deleted: the revival must not keep it.
      if (signal.kind === 'closed' && reviving.has(signal.sessionId)) endedWhileReviving.add(signal.sessionId);
      return;
    }
    if (signal.kind === 'closed') {
      closeSession(session, 'here');
      return;
    }
    if (signal.kind === 'events') {
      for (const streamKey of signal.messages ?? []) {
        if (typeof streamKey === 'string') session.events?.keep(streamKey);
      }
      return;
    }
    // Into the session's own server, as if this process had received them: a cancellation aborts the
    // request it names, an answer settles the elicitation or sampling request waiting for it.
    for (const message of signal.messages ?? []) session.transport.onmessage?.(message as JSONRPCMessage);
  });

  const stopResync = shared?.onResync?.(() => {
    // Closings sent while this server could not hear them: ask for each session it holds.
    for (const session of sessions.values()) {
      shared.get(session.id).then((record) => {
        if (record === undefined && sessions.get(session.id) === session) closeSession(session, 'here');
      }, report);
    }
  });

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const session of sessions.values()) {
        // Shared: let go here only; the record expires by itself once no server has seen it for idleMs.
        if (session.openStreams === 0 && now - session.lastSeen > idleMs) closeSession(session, 'here');
      }
      shared?.pruneExpired().catch(report);
    },
    Math.max(1000, Math.min(idleMs / 2, 60_000)),
  );
  sweep.unref();

  /** Close a session in this process, or (`everywhere`) end it for every server sharing it. */
  function closeSession(session: Session, where: 'here' | 'everywhere'): void {
    forget(session);
    session.events?.clear();
    session.server.close().catch(report);
    if (where === 'everywhere') endShared(session.id);
  }

  function endShared(id: string): void {
    if (shared === undefined) return;
    shared
      .delete(id)
      .then(() => shared.signal({ sessionId: id, origin, kind: 'closed' }))
      .catch(report);
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
        closeSession(victim, 'everywhere');
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
    const version = request.headers.get('mcp-protocol-version');
    const versionUnknown = version !== null && !SERVED_PROTOCOL_VERSIONS.includes(version);
    if (versionUnknown && method !== 'POST') return unsupportedProtocolVersion(version, SERVED_PROTOCOL_VERSIONS);
    const path = new URL(request.url).pathname;
    const scope = `${path}\n${options.sessionScope?.(request) ?? ''}`;
    const sessionId = request.headers.get('mcp-session-id');

    if (method !== 'POST') {
      if (sessionId === null) return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required.');
      const session = await findSession(sessionId, scope, request);
      if (session === undefined) return sessionNotFound();
      const lastEventId =
        method === 'GET' && session.events !== undefined ? request.headers.get('last-event-id') : null;
      if (lastEventId !== null && lastEventId !== '') return resume(session, request, lastEventId);
      return serve(session, request, undefined);
    }

    const body = await readRequestText(request, maxBodyBytes);
    if (body === 'too large') {
      return jsonRpcError(413, -32000, `Payload Too Large: the request body exceeds ${maxBodyBytes} bytes.`, {
        connection: 'close',
      });
    }
    if (body === 'not utf-8') return jsonRpcError(400, -32700, 'Parse error: the request body is not valid UTF-8.');
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
    // Before the eras are told apart: a version this server does not know is no era's (not newer or
    // older than the ones it knows, whatever its text sorts after). A request with the 2026-07-28
    // envelope is the exception: that side answers an unknown version itself (-32022, with the list).
    if (versionUnknown && eraOf(message) !== 'modern') {
      return unsupportedProtocolVersion(version, SERVED_PROTOCOL_VERSIONS);
    }
    const unsafeId = unsafeRequestIdMessage(message);
    if (unsafeId !== undefined) return jsonRpcError(400, -32600, `Invalid Request: ${unsafeId}`);

    if (await isModernMcpRequest(request, message)) return serveModern(request, path, message);
    if (sessionId !== null) {
      const session = await findSession(sessionId, scope, request);
      if (session === undefined) return sessionNotFound();
      if (shared !== undefined) passOn(session, message);
      return serve(session, request, message);
    }
    const refusedInitialize = invalidInitialize(message);
    if (refusedInitialize !== undefined) {
      return new Response(JSON.stringify(refusedInitialize), {
        status: 400,
        headers: { 'content-type': 'application/json' },
      });
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

  /** A 2026-07-28 request: the endpoint is resolved for it alone, and it is answered without a session. */
  async function serveModern(request: Request, path: string, message: unknown): Promise<Response> {
    let endpoint: ToolRegistry | McpEndpoint | undefined;
    try {
      endpoint = await resolve(request);
    } catch (error) {
      report(error);
      return jsonRpcError(500, -32603, 'Internal error: could not resolve the tools to serve.');
    }
    if (endpoint === undefined) return jsonRpcError(404, -32000, `Not Found: there is no MCP endpoint at '${path}'.`);
    // Its calls stop when the client goes away: the SDK reads that from the request's signal.
    const live = withClientSignal(request);
    if (!isEndpoint(endpoint)) return modern.fetch(live, { registry: endpoint, options }, message);
    await endpoint.settle?.();
    return modern.fetch(live, { registry: endpoint.registry, options: { ...options, ...endpoint.options } }, message);
  }

  async function findSession(sessionId: string, scope: string, request: Request): Promise<Session | undefined> {
    const session = sessions.get(sessionId);
    if (session !== undefined) return session.scope === scope ? session : undefined;
    if (shared === undefined) return undefined;
    let opening = reviving.get(sessionId);
    if (opening === undefined) {
      opening = revive(sessionId, scope, request).finally(() => {
        reviving.delete(sessionId);
        endedWhileReviving.delete(sessionId);
      });
      reviving.set(sessionId, opening);
    }
    const revived = await opening;
    return revived !== undefined && revived.scope === scope ? revived : undefined;
  }

  /**
   * Open here a session another server opened: a server and transport of its own, given the session's
   * `initialize` and `notifications/initialized` again (their answers go nowhere), so the SDK's state —
   * the session id, the negotiated version, the client's capabilities — is what the client set up.
   */
  async function revive(sessionId: string, scope: string, request: Request): Promise<Session | undefined> {
    const record = await (shared as McpSessionSharing).get(sessionId);
    if (record === undefined || record.scope !== scope) return undefined;
    const endpoint = await resolve(request);
    if (endpoint === undefined) return undefined;
    const { server, transport, events, requests } = await connectSession(endpoint, () => record.id, undefined);
    // Counted against the quotas where it was opened only: a quota here never closes a session that
    // another server opened and may be serving right now.
    const quotaKeys: readonly string[] = [];
    const session: Session = {
      id: record.id,
      endpoint,
      touchedAt: Date.now(),
      transport,
      server,
      scope,
      lastSeen: Date.now(),
      openStreams: 0,
      quotaKeys,
      protocolVersion: record.protocolVersion,
      events,
      requests,
    };
    hookClose(session);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const initialize = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: record.protocolVersion,
        capabilities: record.clientCapabilities,
        clientInfo: record.clientInfo,
      },
    };
    try {
      const answer = await transport.handleRequest(
        new Request(request.url, { method: 'POST', headers, body: JSON.stringify(initialize) }),
        { parsedBody: initialize },
      );
      const text = await answer.text();
      if (!text.includes('"result"')) throw new Error(`the stored initialize was refused: ${text.slice(0, 300)}`);
      const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
      await transport.handleRequest(
        new Request(request.url, {
          method: 'POST',
          headers: { ...headers, 'mcp-session-id': record.id },
          body: JSON.stringify(initialized),
        }),
        { parsedBody: initialized },
      );
    } catch (error) {
      await server.close().catch(() => undefined);
      report(new Error(`MCP session ${record.id} could not be opened again here: ${(error as Error).message}`));
      return undefined;
    }
    if (endedWhileReviving.has(record.id)) {
      await server.close().catch(report);
      return undefined;
    }
    remember(session);
    return session;
  }

  async function connectSession(
    endpoint: ToolRegistry | McpEndpoint,
    sessionIdGenerator: () => string,
    onsessioninitialized: ((id: string) => void | Promise<void>) | undefined,
  ): Promise<{
    server: Server;
    transport: WebStandardStreamableHTTPServerTransport;
    events: SessionEventStore | undefined;
    requests: SessionRequests;
  }> {
    const registry = isEndpoint(endpoint) ? endpoint.registry : endpoint;
    const serverOptions = isEndpoint(endpoint) ? { ...options, ...endpoint.options } : options;
    const server = createMcpServer(registry, serverOptions);
    let sessionId: string | undefined;
    const events = resumable === undefined ? undefined : createEventStore(() => sessionId);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => {
        sessionId = sessionIdGenerator();
        return sessionId;
      },
      ...(events === undefined ? {} : { eventStore: events, retryInterval: resumable?.retryMs }),
      ...(onsessioninitialized === undefined ? {} : { onsessioninitialized }),
      // A DELETE: the client ended the session, for every server, before it is told so.
      onsessionclosed: async (id) => {
        const closed = sessions.get(id);
        if (closed !== undefined) forget(closed);
        if (shared === undefined) return;
        await shared.delete(id);
        await shared.signal({ sessionId: id, origin, kind: 'closed' });
      },
    });
    await server.connect(transport);
    return { server, transport, events, requests: new SessionRequests(transport) };
  }

  function createEventStore(sessionId: () => string | undefined): SessionEventStore {
    const settings = resumable as ResumableSettings;
    const sharing = shared;
    const persistence =
      sharing?.storeEvents === undefined || sharing.eventsFrom === undefined
        ? undefined
        : {
            store: (events: readonly McpSharedEvent[]) =>
              sharing.storeEvents?.(sessionId() as string, events) ?? Promise.resolve(),
            drop: (streamKey: string, throughSeq: number) =>
              sharing.dropEvents?.(sessionId() as string, streamKey, throughSeq) ?? Promise.resolve(),
          };
    return new SessionEventStore(settings.limits, persistence, report);
  }

  /**
   * The events of a stream another server wrote, from `seq` on. When they are not in the shared store
   * yet (the server writing the stream has not seen its client go, or finished it first), every
   * server is asked to keep that stream there, and the store is read again a few times meanwhile.
   */
  async function keptElsewhere(
    sessionId: string,
    streamKey: string,
    seq: number,
    limit: number,
  ): Promise<McpSharedEvent[]> {
    const sharing = shared as McpSessionSharing;
    const read = () => sharing.eventsFrom?.(sessionId, streamKey, seq, limit) ?? Promise.resolve([]);
    let stored = await read();
    if (stored[0]?.seq === seq) return stored;
    await sharing.signal({ sessionId, origin, kind: 'events', messages: [streamKey] });
    for (let attempt = 0; attempt < KEEP_ATTEMPTS && stored[0]?.seq !== seq; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, KEEP_WAIT_MS));
      stored = await read();
    }
    return stored;
  }

  /**
   * A `GET` with `Last-Event-ID`: the events the client missed on the stream it names. A stream this
   * server is still writing is replayed and continued by the transport; one it finished, or one kept
   * by another server (with `sessions`), is replayed and ended, and the client reconnects again after
   * `retryMs` if its answer has not come yet.
   */
  async function resume(session: Session, request: Request, lastEventId: string): Promise<Response> {
    const events = session.events as SessionEventStore;
    const settings = resumable as ResumableSettings;
    if (lastEventId.length > MAX_EVENT_ID_CHARS) {
      return jsonRpcError(
        400,
        -32000,
        `Bad Request: the Last-Event-ID header is ${lastEventId.length} characters long; this server's event ids have at most ${MAX_EVENT_ID_CHARS}. Reconnect without it to open a new stream.`,
      );
    }
    const found = events.locate(lastEventId);
    switch (found.kind) {
      case 'malformed':
        return jsonRpcError(
          400,
          -32000,
          `Bad Request: Last-Event-ID '${lastEventId}' is not an event id of this server (<stream>.<number>, as its events carry); reconnect without it to open a new stream.`,
        );
      case 'gone':
        return eventNotKept(lastEventId);
      case 'live':
        return serve(session, request, undefined);
      case 'ended':
        return replayed(session, lastEventId, found.events, settings.retryMs);
      case 'elsewhere': {
        if (shared?.eventsFrom === undefined) return eventNotKept(lastEventId);
        const stored = await keptElsewhere(session.id, found.streamKey, found.seq, settings.limits.maxEvents + 1);
        if (stored[0]?.seq !== found.seq) return eventNotKept(lastEventId);
        const missed: McpReplayEvent[] = [];
        for (const event of stored.slice(1)) {
          if (event.message !== null) missed.push({ id: `${event.streamKey}.${event.seq}`, data: event.message });
        }
        if (found.standalone && missed.length === 0) {
          // Caught up with another server's GET stream: this server's own from here.
          const headers = new Headers(request.headers);
          headers.delete('last-event-id');
          return serve(session, new Request(request.url, { method: 'GET', headers }), undefined);
        }
        return replayed(session, lastEventId, missed, settings.retryMs);
      }
      default: {
        const unreachable: never = found;
        return unreachable;
      }
    }
  }

  function hookClose(session: Session): void {
    const previousOnClose = session.server.onclose;
    session.server.onclose = () => {
      forget(session);
      previousOnClose?.();
    };
  }

  /**
   * Hand the client's notifications and answers in `message` to the other servers too: the request a
   * cancellation names, or the elicitation an answer settles, may run on any of them.
   */
  function passOn(session: Session, message: unknown): void {
    const passed = (Array.isArray(message) ? message : [message]).filter(isPassedOn);
    if (passed.length === 0) return;
    (shared as McpSessionSharing)
      .signal({ sessionId: session.id, origin, kind: 'messages', messages: passed })
      .catch(report);
  }

  async function openSession(
    endpoint: ToolRegistry | McpEndpoint,
    scope: string,
    quotaKeys: readonly string[],
    release: () => void,
    request: Request,
    message: unknown,
  ): Promise<Response> {
    let session: Session | undefined;
    const { server, transport, events, requests } = await connectSession(endpoint, randomUUID, async (id) => {
      const now = Date.now();
      // Busy until its initialize is answered, so no other initialize closes it in the meantime.
      session = {
        id,
        endpoint,
        touchedAt: now,
        transport,
        server,
        scope,
        lastSeen: now,
        openStreams: 1,
        quotaKeys,
        protocolVersion: sharedRecordOf(id, scope, message).protocolVersion,
        events,
        requests,
      };
      remember(session);
      release();
      // Kept before the client learns the id, so its next request may go to any server.
      if (shared !== undefined) await shared.create(sharedRecordOf(id, scope, message), now + idleMs, request);
    });
    const previousOnClose = server.onclose;
    server.onclose = () => {
      if (session !== undefined) forget(session);
      previousOnClose?.();
    };
    let response: Response;
    try {
      response = await transport.handleRequest(request, { parsedBody: message });
    } catch (error) {
      // Not kept half-open (busy, so never swept).
      if (session !== undefined) closeSession(session, 'everywhere');
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
    // Checked here, not only by the transport: a primed session's header is replaced before it sees it.
    const version = request.headers.get('mcp-protocol-version');
    if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return unsupportedProtocolVersion(version, SUPPORTED_PROTOCOL_VERSIONS);
    }
    if (isInitializeMethod(message)) {
      return jsonRpcError(400, -32600, alreadyInitializedMessage('send it without an Mcp-Session-Id header'));
    }
    // An id under way taken again would take over the first request's stream, which would never end.
    const taken = message === undefined ? undefined : session.requests.refuseTaken(message);
    if (taken !== undefined) return jsonRpcError(400, -32600, taken);
    const now = Date.now();
    session.lastSeen = now;
    session.openStreams++;
    if (shared !== undefined && now - session.touchedAt >= touchEveryMs) {
      session.touchedAt = now;
      shared.touch(session.id, now + idleMs).then((known) => {
        // Ended or expired meanwhile, through another server: gone here too.
        if (!known) closeSession(session, 'here');
      }, report);
    }
    let response: Response;
    const primed = message !== undefined && session.events !== undefined && primes(session.protocolVersion);
    try {
      if (isEndpoint(session.endpoint)) await session.endpoint.settle?.();
      response = await session.transport.handleRequest(
        primed ? withProtocolVersion(request, session.protocolVersion) : request,
        message === undefined ? {} : { parsedBody: message },
      );
    } catch (error) {
      session.requests.release(message, 500);
      throw error;
    } finally {
      session.openStreams--;
    }
    session.requests.release(message, response.status);
    if (!primed || !isEventStream(response)) return trackStream(session, response);
    return trackStream(session, response, resumable?.pollAfterMs, PRIMING_HOLD_MS);
  }

  const answer = async (request: Request): Promise<Response> => {
    try {
      return await handle(request);
    } catch (error) {
      report(error);
      return jsonRpcError(500, -32603, 'Internal error while handling the MCP request.');
    }
  };
  const fetchHandler = async (request: Request): Promise<Response> => asWebResponse(await answer(request));

  // Written straight from the transport's body, as trackStream says: no second stream in between.
  const nodeHandler = nodeListener(answer, malformedHttpRequest, (response) => streamWriting.get(response));

  const handler = Object.assign(nodeHandler, {
    fetch: fetchHandler,
    sessionCountOf: (key: string) => byQuotaKey.get(key)?.size ?? 0,
    async close() {
      clearInterval(sweep);
      stopSignals?.();
      stopResync?.();
      const open = [...sessions.values()];
      sessions.clear();
      byQuotaKey.clear();
      await Promise.all(open.map((session) => session.server.close().catch(report)));
      // The 2026-07-28 side: its open subscriptions/listen streams.
      await modern.close();
    },
  });
  // A getter, not a copied value: Object.assign would read it once.
  return Object.defineProperty(handler, 'sessionCount', {
    get: () => sessions.size,
    enumerable: true,
  }) as McpHttpHandler;
}

/** Client notifications and answers other servers may need: cancellations, answers to server requests. */
function isPassedOn(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const fields = message as Record<string, unknown>;
  if (fields.method === 'notifications/cancelled') return true;
  return fields.method === undefined && 'id' in fields && ('result' in fields || 'error' in fields);
}

/** What a session's `initialize` said, to keep for the other servers. */
function sharedRecordOf(id: string, scope: string, message: unknown): McpSharedSession {
  const initialize = (Array.isArray(message) ? message : [message]).find(isInitializeRequest);
  const params = (initialize?.params ?? {}) as Record<string, unknown>;
  return {
    id,
    scope,
    protocolVersion: negotiatedVersion(params.protocolVersion),
    clientInfo: isObject(params.clientInfo) ? params.clientInfo : {},
    clientCapabilities: isObject(params.capabilities) ? params.capabilities : {},
  };
}

/**
 * The version a session opened by an `initialize` asking for `requested` speaks, as the SDK's server
 * answers it: the one asked for when this server supports it, else the latest it supports (MCP
 * lifecycle: the client then decides whether it can go on).
 */
function negotiatedVersion(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

/** The messages of `message` (one, or a batch) that call `initialize`, well formed or not. */
function initializeCalls(message: unknown): JSONRPCMessage[] {
  return (Array.isArray(message) ? message : [message]).filter(
    (item) => typeof item === 'object' && item !== null && (item as { method?: unknown }).method === 'initialize',
  );
}

/** Whether `message`, or a message of the batch, calls `initialize` (well formed or not). */
function isInitializeMethod(message: unknown): boolean {
  return initializeCalls(message).length > 0;
}

/**
 * The `-32602` answer to an `initialize` (alone or in a batch) whose params its schema refuses, naming
 * the field; `undefined` when there is none. The SDK's transport would not take it as an `initialize`
 * and answer that a session id is required.
 */
function invalidInitialize(message: unknown) {
  for (const call of initializeCalls(message)) {
    const answer = invalidParamsAnswer(call);
    if (answer !== undefined) return answer;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Idle sessions are closed least recently used first, the caller's own (under `own`) before others. */
function isBetterVictim(candidate: Session, current: Session, own: string | undefined): boolean {
  if (own !== undefined) {
    const candidateOwn = candidate.quotaKeys.includes(own);
    if (candidateOwn !== current.quotaKeys.includes(own)) return candidateOwn;
  }
  return candidate.lastSeen < current.lastSeen;
}

/** How each streamed response of a session is to be written: its hold, its end, whom its end tells. */
const streamWriting = new WeakMap<Response, WriteWebResponseOptions>();

/**
 * Count a streamed response as open until it ends, so an idle sweep never cuts a live stream. A
 * client that drops it before its end may reconnect to another server: the session's events are then
 * kept for the others. With `closeAfterMs`, the stream is ended then if it is still open (polling);
 * with `holdFirstMs`, its first event waits that long for the next, to leave in one write.
 *
 * The response is returned as it is: this server's node:http listener writes it as said here, and
 * {@link asWebResponse} makes a body that does the same for the web-standard `fetch`.
 */
function trackStream(session: Session, response: Response, closeAfterMs?: number, holdFirstMs?: number): Response {
  if (response.body === null) return response;
  session.openStreams++;
  let open = true;
  streamWriting.set(response, {
    ...(closeAfterMs === undefined ? {} : { endAfterMs: closeAfterMs }),
    ...(holdFirstMs === undefined ? {} : { holdFirstChunkMs: holdFirstMs }),
    onEnd: (cut) => {
      if (!open) return;
      open = false;
      // The transport sees its stream cancelled: what it writes from here is kept for the replay.
      if (cut) session.events?.detach();
      session.openStreams--;
      session.lastSeen = Date.now();
    },
  });
  return response;
}

/** A response of {@link trackStream} as a web-standard one whose body holds, ends and tells as it says. */
function asWebResponse(response: Response): Response {
  const writing = streamWriting.get(response);
  if (writing === undefined || response.body === null) return response;
  const { endAfterMs, holdFirstChunkMs, onEnd } = writing;
  let open = true;
  const end = (cut: boolean) => {
    if (!open) return;
    open = false;
    if (timer !== undefined) clearTimeout(timer);
    onEnd?.(cut);
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let holdFirst = holdFirstChunkMs !== undefined;
  /** A read started while the first chunk was held, and not yet passed on. */
  let pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']> | undefined;
  const reader = response.body.getReader();
  const tracked = new ReadableStream<Uint8Array>({
    start(controller) {
      if (endAfterMs === undefined) return;
      timer = setTimeout(() => {
        if (!open) return;
        end(true);
        controller.close();
        reader.cancel().catch(() => undefined);
      }, endAfterMs);
    },
    async pull(controller) {
      try {
        if (holdFirst) {
          holdFirst = false;
          const first = await reader.read();
          if (!open) return;
          if (!first.done) {
            const next = reader.read();
            let wait: ReturnType<typeof setTimeout> | undefined;
            const waited = await Promise.race([
              next,
              new Promise<undefined>((resolve) => {
                wait = setTimeout(() => resolve(undefined), holdFirstChunkMs);
              }),
            ]);
            clearTimeout(wait);
            if (!open) return;
            if (waited === undefined || waited.done) {
              controller.enqueue(first.value);
              if (waited === undefined) pending = next;
              else {
                end(false);
                controller.close();
              }
              return;
            }
            const joined = new Uint8Array(first.value.byteLength + waited.value.byteLength);
            joined.set(first.value);
            joined.set(waited.value, first.value.byteLength);
            controller.enqueue(joined);
            return;
          }
        }
        const read = pending ?? reader.read();
        pending = undefined;
        const { done: finished, value } = await read;
        if (!open) return;
        if (finished) {
          end(false);
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        if (!open) return;
        end(false);
        controller.error(error);
      }
    },
    cancel(reason) {
      end(true);
      return reader.cancel(reason);
    },
  });
  return new Response(tracked, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
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

/** The protocol versions served: 2026-07-28 without sessions, the SDK's list with them. */
const SERVED_PROTOCOL_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];

function unsupportedProtocolVersion(version: string, supported: readonly string[]): Response {
  return jsonRpcError(
    400,
    -32000,
    `Bad Request: Unsupported protocol version: ${JSON.stringify(version).slice(1, -1).slice(0, 64)} (supported versions: ${supported.join(', ')})`,
  );
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * How long a POST stream's priming event waits for the next event before it is sent alone: a call
 * answered within it leaves in one write (decision 011).
 */
const PRIMING_HOLD_MS = 5;

/** How often, and how long apart, the shared store is read again after asking for a stream's events. */
const KEEP_ATTEMPTS = 5;
const KEEP_WAIT_MS = 40;

/** The first protocol version whose clients read an SSE event with empty data (the priming event). */
const PRIMING_VERSION = '2025-11-25';

/** Whether a session that negotiated `version` gets priming events and `retry` fields. */
function primes(version: string): boolean {
  return version >= PRIMING_VERSION && SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

/**
 * The request with its `MCP-Protocol-Version` header set to the version its session negotiated, when it
 * names an older one or none: the transport primes a stream by that header, while what the client can
 * read was settled by its `initialize` (decision 011).
 */
function withProtocolVersion(request: Request, negotiated: string): Request {
  const header = request.headers.get('mcp-protocol-version');
  if (header !== null && header >= PRIMING_VERSION) return request;
  const headers = new Headers(request.headers);
  headers.set('mcp-protocol-version', negotiated);
  return new Request(request.url, { method: request.method, headers, signal: request.signal });
}

function isEventStream(response: Response): boolean {
  return response.headers.get('content-type')?.startsWith('text/event-stream') === true;
}

interface ResumableSettings {
  retryMs: number;
  limits: McpEventLimits;
  pollAfterMs: number | undefined;
}

function resumableSettings(options: false | McpResumableStreamsOptions | undefined): ResumableSettings | undefined {
  if (options === false) return undefined;
  const settings = options ?? {};
  return {
    retryMs: positiveSetting('retryMs', settings.retryMs, 1000),
    limits: {
      maxEvents: positiveSetting('maxEventsPerSession', settings.maxEventsPerSession, 1000),
      maxBytes: positiveSetting('maxBytesPerSession', settings.maxBytesPerSession, 1024 * 1024),
      ttlMs: positiveSetting('eventTtlMs', settings.eventTtlMs, 5 * 60_000),
    },
    pollAfterMs:
      settings.pollAfterMs === undefined ? undefined : positiveSetting('pollAfterMs', settings.pollAfterMs, 0),
  };
}

function positiveSetting(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (Number.isSafeInteger(value) && value > 0) return value;
  throw new TypeError(`resumableStreams.${name} must be a whole number above 0, got ${String(value)}.`);
}

/**
 * The replay of a stream this server does not go on writing: a priming event holding the client's
 * cursor (so it reconnects with it, after `retryMs`, if its answer is not among `events`), then the
 * events it missed; then the stream ends.
 */
function replayed(session: Session, lastEventId: string, events: readonly McpReplayEvent[], retryMs: number): Response {
  session.lastSeen = Date.now();
  let text = primes(session.protocolVersion)
    ? `id: ${lastEventId}\nretry: ${retryMs}\ndata: \n\n`
    : `retry: ${retryMs}\n\n`;
  for (const event of events) text += `event: message\nid: ${event.id}\ndata: ${event.data}\n\n`;
  return new Response(text, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'mcp-session-id': session.id,
    },
  });
}

function eventNotKept(lastEventId: string): Response {
  return jsonRpcError(
    400,
    -32000,
    `Bad Request: event '${lastEventId}' is not one this session keeps (unknown, of another session, or older than the events kept); reconnect without Last-Event-ID to open a new stream, and send again any request still waiting for its answer.`,
  );
}
