import type { FastifyInstance } from 'fastify';
import { isPlainObject } from '../core/json-schema.js';
import type { McpServerStatus } from '../mcp/import-mcp-server.js';
import { changedFields, describeDefinitionChange } from '../mcp/upstream-pins.js';
import { MCP_SERVER_NAME_PATTERN, type UpstreamPinRecord } from '../store/index.js';
import { notFound, validationError } from './api-error.js';
import type { UpstreamChangeView, UpstreamServerView } from './api-shapes.js';
import type { ServerContext } from './server-context.js';

/**
 * The configuration's MCP servers (`mcp_servers:`) as a running server sees them: which workspace
 * their tools are served to, how each is doing, and a way to re-read one's tools (after a change of
 * its tools was approved). `toolshed serve` gives them from its loaded configuration.
 *
 * @example
 * ```ts
 * const upstreams: UpstreamServers = {
 *   workspaceId: 'default',
 *   status: () => loaded.mcpStatus(),
 *   refresh: (name) => loaded.mcpServers.find((server) => server.name === name)?.refresh() ?? Promise.resolve(),
 * };
 * ```
 */
export interface UpstreamServers {
  readonly workspaceId: string;
  status(): McpServerStatus[];
  refresh(server: string): Promise<void>;
}

/**
 * The API view of a pending change.
 *
 * @example
 * ```ts
 * (await store.upstreamPins.list('default')).filter((pin) => pin.pending).map(upstreamChangeView);
 * ```
 */
export function upstreamChangeView(pin: UpstreamPinRecord): UpstreamChangeView {
  const current = pin.pending?.definition ?? pin.definition;
  return {
    server: pin.server,
    tool: pin.tool,
    changed: changedFields(pin.definition, current),
    approved_at: pin.approvedAt,
    pending_since: pin.pending?.since ?? pin.approvedAt,
    approved: JSON.parse(pin.definition) as unknown,
    current: JSON.parse(current) as unknown,
    diff: describeDefinitionChange(pin.definition, current),
  };
}

/**
 * The workspace's MCP servers and the approval of their changed tools:
 *
 * - `GET /api/mcp-servers`: each server of the served configuration (for the workspace it is served
 *   to) with its state, and every server with tools waiting for approval (`not_connected` when this
 *   process does not serve it), each change with its diff;
 * - `POST /api/mcp-servers/:name/approve` with no body, `{}` or `{"tool": "read_graph"}` (the server's
 *   name for the tool): approves the server's changes (that tool's only) and answers
 *   `{"approved": [...], "changes": [...]}`; the tools are served again at once. Nothing waiting is
 *   404; a malformed name or body is 400 naming the field, with nothing approved.
 *
 * @example
 * ```ts
 * registerUpstreamRoutes(app, context, upstreams);
 * await app.inject({ method: 'POST', url: '/api/mcp-servers/memory/approve', headers, payload: { tool: 'read_graph' } });
 * ```
 */
export function registerUpstreamRoutes(
  app: FastifyInstance,
  context: ServerContext,
  upstreams: UpstreamServers | undefined,
): void {
  const { store } = context;
  const statusFor = (workspaceId: string) => (upstreams?.workspaceId === workspaceId ? upstreams.status() : []);

  app.get('/api/mcp-servers', async (request) => {
    const pending = (await store.upstreamPins.list(request.workspaceId)).filter((pin) => pin.pending !== undefined);
    const servers: UpstreamServerView[] = statusFor(request.workspaceId).map((status) => ({
      name: status.name,
      state: status.state,
      since: status.since,
      ...(status.lastError === undefined ? {} : { last_error: status.lastError }),
      tools: status.tools,
      reconnects: status.reconnects,
      changes: [],
    }));
    for (const pin of pending) {
      let server = servers.find((each) => each.name === pin.server);
      if (server === undefined) {
        server = { name: pin.server, state: 'not_connected', changes: [] };
        servers.push(server);
      }
      server.changes.push(upstreamChangeView(pin));
    }
    return { servers };
  });

  app.post<{ Params: { name: string } }>('/api/mcp-servers/:name/approve', async (request) => {
    const server = request.params.name;
    if (!MCP_SERVER_NAME_PATTERN.test(server)) {
      throw validationError(
        'name',
        "The MCP server name must be a letter, then up to 31 letters, digits, '_' or '-' (its name in mcp_servers:).",
      );
    }
    const tool = approvedTool(request.body);
    const workspaceId = request.workspaceId;
    const pending = (await store.upstreamPins.list(workspaceId, server)).filter(
      (pin) => pin.pending !== undefined && (tool === undefined || pin.tool === tool),
    );
    const approved = await store.upstreamPins.approve(workspaceId, server, tool);
    if (approved.length === 0) {
      throw notFound(
        tool === undefined
          ? `MCP server '${server}' has no changed tool waiting for approval.`
          : `MCP server '${server}' has no change of tool '${tool}' waiting for approval.`,
      );
    }
    if (upstreams?.workspaceId === workspaceId && upstreams.status().some((status) => status.name === server)) {
      // Served again now (and listed over MCP), not at the tool's next call.
      await upstreams.refresh(server).catch((error: unknown) => context.report(error));
    }
    return {
      approved,
      changes: pending.filter((pin) => approved.includes(pin.tool)).map(upstreamChangeView),
    };
  });
}

/** The tool of an approval's body: none (every change of the server) or `{"tool": "NAME"}`. */
function approvedTool(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  if (!isPlainObject(body)) {
    throw validationError('body', 'The request body must be a JSON object like {"tool": "read_graph"}, or empty.');
  }
  for (const key of Object.keys(body)) {
    if (key !== 'tool') throw validationError(key, `Unknown field '${key}'; the body has one field, 'tool'.`);
  }
  const tool = body.tool;
  if (tool === undefined) return undefined;
  if (typeof tool !== 'string' || tool.length === 0 || tool.length > 256) {
    throw validationError('tool', "'tool' must be the tool's name as its MCP server lists it (1-256 characters).");
  }
  return tool;
}
