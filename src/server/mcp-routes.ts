import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { closestNames } from '../core/did-you-mean.js';
import {
  createMcpHttpHandler,
  type McpEndpoint,
  type McpHttpHandlerOptions,
  type McpSessionSharing,
} from '../mcp/mcp-http-handler.js';
import { incomingOf } from '../mcp/node-http-bridge.js';
import { STORE_LIMITS, StoreNotFoundError, StoreValidationError, type TokenIdentity } from '../store/index.js';
import { ApiError } from './api-error.js';
import { admitCall, recordCall } from './call-tool.js';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_TOKEN,
  DEFAULT_MAX_SESSIONS_PER_WORKSPACE,
} from './mcp-session-limits.js';
import { McpViews } from './mcp-views.js';
import type { ServerContext } from './server-context.js';
import { StoreTaskKeeper } from './store-task-keeper.js';

/**
 * Settings of the service's MCP endpoints: those of the Streamable HTTP handler (allowed hosts, body
 * limit, session limits) and the session quotas of each token and workspace.
 *
 * @example
 * ```ts
 * const mcp: ServerMcpOptions = {
 *   allowedHosts: ['tools.example.com'],
 *   sessionIdleMs: 10 * 60_000,
 *   maxSessionsPerToken: 20,
 *   maxSessionsPerWorkspace: 50,
 * };
 * ```
 */
export interface ServerMcpOptions
  extends Omit<McpHttpHandlerOptions, 'sessionScope' | 'sessionQuotas' | 'context' | 'onCallResult' | 'sessions'> {
  /**
   * Most MCP sessions one API token may hold open (default 100). At the limit, the token's least
   * recently used idle session is closed to make room for its next `initialize`; when all of them
   * have an open stream, the `initialize` gets 429.
   */
  maxSessionsPerToken?: number;
  /**
   * Most MCP sessions one workspace may hold open, all its tokens together (default 200, a fifth of
   * `maxSessions`), so one workspace never holds more than that share of the server's sessions. At the
   * limit, the least recently used idle session of the workspace is closed (the caller's own first),
   * else 429. At most `maxSessions`.
   */
  maxSessionsPerWorkspace?: number;
  /**
   * Keep MCP sessions in the store's `mcp_sessions` table so that any server on the same database can
   * answer any request of a session, with client cancellations and elicitation answers passed between
   * the servers by `NOTIFY` (default: true on PostgreSQL, false on SQLite, where one process serves).
   */
  sharedSessions?: boolean;
  /**
   * How long the lease of a running MCP task lasts (default 30 s, renewed every third of it): when a
   * server dies mid-task, the task ends as failed once its lease lapses (at once on a clean shutdown).
   */
  taskLeaseMs?: number;
}

interface McpTarget {
  identity: TokenIdentity;
  agentId: string | undefined;
}

/**
 * MCP over Streamable HTTP from the store (SPEC §7.1, §9.2): `/mcp` serves the workspace's default
 * view, `/mcp/agents/:agentId` one agent's view with its attachment config as `ctx.config`. Both routes
 * declare `auth: 'token'` (`registerRouteAuth`): every request needs `Authorization: Bearer <token>`,
 * and the token picks the workspace (an `X-Workspace-Id` header, when sent, must name the same one). A session answers only the token that opened it, on its
 * path. Attaching or detaching a tool sends `notifications/tools/list_changed` to that agent's sessions,
 * also when another server process on the same PostgreSQL made the change. Every call is logged in
 * `tool_calls` and counted in the metrics.
 *
 * @example
 * ```ts
 * registerMcpRoutes(app, context, { allowedHosts: ['tools.example.com'] });
 * ```
 */
export function registerMcpRoutes(app: FastifyInstance, context: ServerContext, options: ServerMcpOptions = {}): void {
  const { maxSessionsPerToken, maxSessionsPerWorkspace, sharedSessions, taskLeaseMs, ...handlerOptions } = options;
  const perToken = sessionLimit('maxSessionsPerToken', maxSessionsPerToken, DEFAULT_MAX_SESSIONS_PER_TOKEN);
  const perWorkspace = sessionLimit(
    'maxSessionsPerWorkspace',
    maxSessionsPerWorkspace,
    DEFAULT_MAX_SESSIONS_PER_WORKSPACE,
  );
  const maxSessions = sessionLimit('maxSessions', handlerOptions.maxSessions, DEFAULT_MAX_SESSIONS);
  if (perWorkspace > maxSessions) {
    throw new TypeError(
      `maxSessionsPerWorkspace (${perWorkspace}) is above maxSessions (${maxSessions}); lower it or raise maxSessions.`,
    );
  }
  const report = options.onError ?? ((error: unknown) => app.log.error(error));
  const views = new McpViews(context, report);
  const tasks = new StoreTaskKeeper(context.store.mcpTasks, {
    onError: report,
    ...(taskLeaseMs === undefined ? {} : { leaseMs: taskLeaseMs }),
  });
  const taskOptions = handlerOptions.tasks === false ? undefined : (handlerOptions.tasks ?? {});
  if (taskOptions?.maxTtlMs !== undefined && taskOptions.maxTtlMs > STORE_LIMITS.taskTtlMs) {
    throw new TypeError(
      `tasks.maxTtlMs (${taskOptions.maxTtlMs}) is above the ${STORE_LIMITS.taskTtlMs} ms the store keeps a task; lower it.`,
    );
  }
  const targets = new McpTargets();
  const sessions =
    (sharedSessions ?? context.store.sharedAcrossInstances) ? storeSessions(context, targets) : undefined;

  const handler = createMcpHttpHandler(
    async (request): Promise<McpEndpoint | undefined> => {
      const target = targets.get(request);
      if (target === undefined) return undefined;
      const { workspaceId } = target.identity;
      const { agentId } = target;
      const onCallResult = (tool: string, result: Parameters<typeof recordCall>[3], args: unknown) =>
        recordCall(context, workspaceId, tool, result, agentId, { tokenId: target.identity.tokenId, args });
      const admit = async (tool: string) => {
        const admission = await admitCall(context, target.identity, tool, agentId);
        return admission.admitted ? admission.release : admission.result;
      };
      const view = await views.open(workspaceId, agentId);
      return {
        registry: view.registry,
        options: {
          context: (tool) => {
            const config = Object.hasOwn(view.config, tool) ? view.config[tool] : undefined;
            return {
              ...(agentId === undefined ? {} : { agentId }),
              ...(config === undefined ? {} : { config }),
            };
          },
          tasks: taskOptions === undefined ? false : { ...taskOptions, store: tasks.forView(workspaceId, agentId) },
          onCallResult,
          admitCall: admit,
          catalog: view.catalog,
          // A view depends on the token that asks (its workspace, its agent): 2026-07-28 clients and
          // shared caches must not hand its lists to other credentials.
          cacheScope: 'private',
        },
        settle: () => views.settled(view),
      };
    },
    {
      ...handlerOptions,
      maxSessions,
      onError: report,
      ...(sessions === undefined ? {} : { sessions }),
      sessionScope: (request) => {
        const identity = targets.get(request)?.identity;
        return identity === undefined ? undefined : `${identity.workspaceId}\n${identity.tokenId}`;
      },
      sessionQuotas: (request) => {
        const identity = targets.get(request)?.identity;
        if (identity === undefined) return [];
        const close =
          'end one with DELETE on the path it was opened on (/mcp or /mcp/agents/:agentId) and its Mcp-Session-Id header';
        return [
          {
            key: `token\n${identity.tokenId}`,
            limit: perToken,
            holder: 'this API token',
            hint: `${close}, or have the operator raise maxSessionsPerToken (toolshed serve --mcp-max-sessions-per-token)`,
          },
          {
            key: `workspace\n${identity.workspaceId}`,
            limit: perWorkspace,
            holder: 'this workspace',
            hint: `${close}, or have the operator raise maxSessionsPerWorkspace (toolshed serve --mcp-max-sessions-per-workspace)`,
          },
        ];
      },
    },
  );

  const serve = async (request: FastifyRequest, reply: FastifyReply, requestedAgentId: string | undefined) => {
    let agentId = requestedAgentId;
    // Authenticated by the route's `auth: 'token'` before the handler runs.
    const identity = request.tokenIdentity;
    // An OAuth access token bound to one agent by its agent claim: /mcp is that agent's view, and no other agent's.
    if (identity.agentId !== undefined) {
      if (agentId !== undefined && agentId !== identity.agentId) {
        throw new ApiError(
          403,
          'FORBIDDEN',
          `The access token is for agent '${identity.agentId}' only; use /mcp/agents/${encodeURIComponent(identity.agentId)} or /mcp.`,
        );
      }
      agentId = identity.agentId;
    }
    if (agentId !== undefined && !(await hasAgent(context, identity.workspaceId, agentId))) {
      const ids = (await context.store.agents.list(identity.workspaceId)).map((agent) => agent.id);
      throw new ApiError(404, 'NOT_FOUND', unknownAgentMessage(agentId, ids));
    }
    const target: McpTarget = { identity, agentId };
    reply.hijack();
    targets.set(request.raw, target);
    await handler(request.raw, reply.raw);
  };

  void app.register(async (scope) => {
    // The MCP handler reads the body itself (with its own size limit and JSON-RPC errors).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    const methods = ['GET', 'POST', 'DELETE'] as const;
    // The token alone picks the workspace: MCP clients often cannot add an X-Workspace-Id header.
    const config = { auth: 'token' } as const;
    scope.route({
      method: [...methods],
      url: '/mcp',
      config,
      handler: (request, reply) => serve(request, reply, undefined),
    });
    scope.route<{ Params: { agentId: string } }>({
      method: [...methods],
      url: '/mcp/agents/:agentId',
      config,
      handler: (request, reply) => serve(request, reply, request.params.agentId),
    });
  });
  app.addHook('onClose', async () => {
    views.close();
    await tasks.close().catch(report);
    await handler.close();
  });
}

/** MCP sessions in the store's `mcp_sessions` table, the events of their dropped streams in `mcp_stream_events`, with the store's signals between servers. */
function storeSessions(context: ServerContext, targets: McpTargets): McpSessionSharing {
  const sessions = context.store.mcpSessions;
  const events = context.store.mcpStreamEvents;
  return {
    async create(session, expiresAt, request) {
      const target = targets.get(request);
      if (target === undefined) throw new TypeError('An MCP session was opened outside its route.');
      await sessions.create({
        ...session,
        workspaceId: target.identity.workspaceId,
        agentId: target.agentId ?? null,
        tokenId: target.identity.tokenId,
        expiresAt,
      });
    },
    get: (id) => sessions.get(id),
    touch: (id, expiresAt) => sessions.touch(id, expiresAt),
    delete: (id) => sessions.delete(id),
    async pruneExpired() {
      const [pruned] = await Promise.all([sessions.pruneExpired(), events.pruneExpired()]);
      return pruned;
    },
    signal: (message) => sessions.signal(message),
    onSignal: (listener) => sessions.onSignal(listener),
    onResync: (listener) =>
      context.store.onChange((change) => {
        if (change.kind === 'resync') listener();
      }),
    async storeEvents(sessionId, stored) {
      await events.append(sessionId, stored);
    },
    eventsFrom: (sessionId, streamKey, seq, limit) => events.from(sessionId, streamKey, seq, limit),
    async dropEvents(sessionId, streamKey, throughSeq) {
      await events.drop(sessionId, streamKey, throughSeq);
    },
  };
}

function sessionLimit(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a whole number of at least 1, got ${String(value)}.`);
  }
  return value;
}

async function hasAgent(context: ServerContext, workspaceId: string, agentId: string): Promise<boolean> {
  try {
    return (await context.store.agents.get(workspaceId, agentId)) !== undefined;
  } catch (error) {
    // A malformed id is simply not an agent of the workspace.
    if (StoreNotFoundError.isInstance(error) || StoreValidationError.isInstance(error)) return false;
    throw error;
  }
}

function unknownAgentMessage(id: string, ids: string[]): string {
  const shown = id.length > 80 ? `${id.slice(0, 79)}…` : id;
  const suggestions = closestNames(id, ids, 3);
  const didYouMean =
    suggestions.length === 0 ? '' : ` Did you mean ${suggestions.map((name) => `'${name}'`).join(' or ')}?`;
  return `No agent '${shown}' in this workspace.${didYouMean}`;
}

/** Who each MCP request in flight is for (its token's identity, its agent), by the node request it came in as. */
class McpTargets {
  readonly #byIncoming = new WeakMap<IncomingMessage, McpTarget>();

  set(incoming: IncomingMessage, target: McpTarget): void {
    this.#byIncoming.set(incoming, target);
  }

  get(request: Request): McpTarget | undefined {
    const incoming = incomingOf(request);
    return incoming === undefined ? undefined : this.#byIncoming.get(incoming);
  }
}
