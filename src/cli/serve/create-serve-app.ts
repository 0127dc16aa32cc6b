import type { ToolRegistry } from '../../registry/tool-registry.js';
import { createHttpApp, type HttpApp } from './create-http-app.js';
import { createHealthRoute } from './health-route.js';
import { createMcpRoutes } from './mcp-routes.js';

/** What `toolshed serve` serves. */
export interface ServeAppOptions {
  /** The tools at `/mcp` (and counted by `/health`). */
  registry: ToolRegistry;
  /** The agents served at `/mcp/agents/:id`. */
  agentIds: readonly string[];
  /** An agent's view of the tools. */
  agent(id: string): ToolRegistry;
  /** Told about failures no client should see (a route that threw, a lost notification). */
  onError?: (error: unknown) => void;
}

/** The app of `toolshed serve` and what shutting it down needs. */
export interface ServeApp extends HttpApp {
  /** How many MCP sessions are open. */
  readonly sessionCount: number;
  /** Close every MCP session. */
  close(): Promise<void>;
}

/**
 * The HTTP app of `toolshed serve`, as a list of routes tried in order: `GET /health`, then MCP at
 * `/mcp` and `/mcp/agents/:id`. Anything else is 404 `{"error": {"code": "NOT_FOUND", ...}}`. The REST
 * API and the web catalog (SPEC §9) join as further routes.
 *
 * @example
 * ```ts
 * const app = createServeApp({ registry, agentIds: ['assistant'], agent: (id) => loaded.agent(id) });
 * const health = await app.fetch(new Request('http://127.0.0.1:4319/health'));
 * await app.close();
 * ```
 */
export function createServeApp(options: ServeAppOptions): ServeApp {
  const mcp = createMcpRoutes({
    registry: options.registry,
    agentIds: options.agentIds,
    agent: (id) => options.agent(id),
    ...(options.onError === undefined ? {} : { onError: options.onError }),
  });
  const app = createHttpApp([createHealthRoute(() => options.registry.size), mcp.route], options.onError);
  return {
    fetch: (request) => app.fetch(request),
    get sessionCount() {
      return mcp.sessionCount;
    },
    close: () => mcp.close(),
  };
}
