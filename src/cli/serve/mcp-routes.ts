import { closestNames } from '../../core/did-you-mean.js';
import { createMcpHttpHandler, type McpHttpHandlerOptions } from '../../mcp/mcp-http-handler.js';
import type { ToolRegistry } from '../../registry/tool-registry.js';
import { errorResponse, type HttpRoute } from './http-route.js';

/** Settings of {@link createMcpRoutes}. */
export interface McpRoutesOptions {
  /** What `/mcp` serves. */
  registry: ToolRegistry;
  /** The agents served at `/mcp/agents/:id`, by id. */
  agentIds: readonly string[];
  /** An agent's view of the tools (its tools, with its per-tool config); called with known ids only. */
  agent(id: string): ToolRegistry;
  /** Told about problems that do not fail a request. */
  onError?: (error: unknown) => void;
  /** Settings of the Streamable HTTP handler (allowed hosts, body limit, session idle time). */
  handler?: McpHttpHandlerOptions;
}

/** The MCP endpoints of `toolshed serve`, and what shutting them down needs. */
export interface McpRoutes {
  route: HttpRoute;
  /** How many MCP sessions are open. */
  readonly sessionCount: number;
  /** Close every session. */
  close(): Promise<void>;
}

/** The path of the whole registry's MCP endpoint. */
export const MCP_PATH = '/mcp';

/** The prefix of the per-agent MCP endpoints: `/mcp/agents/:id`. */
export const MCP_AGENTS_PATH = '/mcp/agents/';

/**
 * MCP over Streamable HTTP (SPEC §7.1): `/mcp` serves `registry`, `/mcp/agents/:id` serves one agent's
 * view with `agentId` in each call's context. One handler serves both; a session answers only on the
 * path it was opened on. An unknown agent id gets 404 `NOT_FOUND` naming the closest ids; other paths
 * are left to the next route.
 *
 * @example
 * ```ts
 * const mcp = createMcpRoutes({ registry, agentIds: ['assistant'], agent: (id) => loaded.agent(id) });
 * const app = createHttpApp([mcp.route]);
 * // later
 * await mcp.close();
 * ```
 */
export function createMcpRoutes(options: McpRoutesOptions): McpRoutes {
  const agentIds = new Set(options.agentIds);
  const handler = createMcpHttpHandler(
    (request) => {
      const target = mcpTarget(new URL(request.url).pathname);
      if (target === undefined) return undefined;
      if (target.kind === 'registry') return options.registry;
      if (!agentIds.has(target.id)) return undefined;
      return { registry: options.agent(target.id), options: { context: { agentId: target.id } } };
    },
    { ...options.handler, ...(options.onError === undefined ? {} : { onError: options.onError }) },
  );
  const route: HttpRoute = (request, url) => {
    const target = mcpTarget(url.pathname);
    if (target === undefined) return undefined;
    if (target.kind === 'agent' && !agentIds.has(target.id)) {
      return errorResponse(404, 'NOT_FOUND', unknownAgentMessage(target.id, [...agentIds]));
    }
    return handler.fetch(request);
  };
  return {
    route,
    get sessionCount() {
      return handler.sessionCount;
    },
    close: () => handler.close(),
  };
}

type McpTarget = { kind: 'registry' } | { kind: 'agent'; id: string };

function mcpTarget(pathname: string): McpTarget | undefined {
  if (pathname === MCP_PATH || pathname === `${MCP_PATH}/`) return { kind: 'registry' };
  if (!pathname.startsWith(MCP_AGENTS_PATH)) return undefined;
  const segment = pathname.slice(MCP_AGENTS_PATH.length).replace(/\/$/, '');
  if (segment === '' || segment.includes('/')) return undefined;
  try {
    return { kind: 'agent', id: decodeURIComponent(segment) };
  } catch {
    return undefined;
  }
}

function unknownAgentMessage(id: string, ids: string[]): string {
  const shown = id.length > 80 ? `${id.slice(0, 79)}…` : id;
  const suggestions = closestNames(id, ids, 3);
  const didYouMean =
    suggestions.length === 0 ? '' : ` Did you mean ${suggestions.map((name) => `'${name}'`).join(' or ')}?`;
  return `No agent '${shown}'.${didYouMean} Agents: ${ids.length === 0 ? 'none' : ids.join(', ')}.`;
}
