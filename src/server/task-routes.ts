import type { FastifyInstance } from 'fastify';
import { describeValue } from '../core/define-tool.js';
import { type McpTaskRecord, StoreValidationError } from '../store/index.js';
import { notFound, refuseUnknownQuery, validationError } from './api-error.js';
import type { TaskView } from './api-shapes.js';
import type { ServerContext } from './server-context.js';

const TASK_QUERY_KEYS = ['agent_id', 'cursor', 'limit'];
const DEFAULT_TASKS_PAGE = 50;
const MAX_TASKS_PAGE = 100;

/**
 * `GET /api/tasks/:id` and `GET /api/tasks`: the workspace's MCP tasks (tool calls run as tasks over
 * `/mcp` and `/mcp/agents/:agentId`), from any server on the database. A task of another workspace,
 * an expired one and a malformed id all get the same 404. The listing is newest first, `limit` (1-100,
 * default 50) at a time, `agent_id` narrows it to one agent view (`agent_id=` with nothing: the
 * workspace's `/mcp`), and `next` is the cursor of the next page (`null` on the last).
 *
 * @example
 * ```ts
 * registerTaskRoutes(api, context); // inside the workspace-authenticated API scope
 * ```
 */
export function registerTaskRoutes(app: FastifyInstance, context: ServerContext): void {
  const tasks = context.store.mcpTasks;

  app.get<{ Params: { id: string } }>('/api/tasks/:id', async (request) => {
    const id = request.params.id;
    const task = await tasks.get(request.workspaceId, id);
    if (task === undefined) throw notFound(`Task '${shown(id)}' does not exist in this workspace (or it expired).`);
    return taskView(task, true);
  });

  app.get<{ Querystring: Record<string, unknown> }>('/api/tasks', async (request) => {
    const query = request.query;
    refuseUnknownQuery(query, TASK_QUERY_KEYS);
    const once = (key: string): string | undefined => {
      const value = query[key];
      if (value === undefined) return undefined;
      if (typeof value !== 'string' || value.length > 200) {
        throw validationError(
          key,
          `'${key}' must be given once, as at most 200 characters, got ${describeValue(value)}.`,
        );
      }
      return value;
    };
    const agentText = once('agent_id');
    const cursor = once('cursor');
    const limitText = once('limit');
    let limit = DEFAULT_TASKS_PAGE;
    if (limitText !== undefined) {
      limit = /^\d{1,3}$/.test(limitText) ? Number(limitText) : Number.NaN;
      if (!(limit >= 1 && limit <= MAX_TASKS_PAGE)) {
        throw validationError(
          'limit',
          `'limit' must be a whole number from 1 to ${MAX_TASKS_PAGE}, got '${shown(limitText)}'.`,
        );
      }
    }
    try {
      const page = await tasks.list(request.workspaceId, {
        limit,
        ...(agentText === undefined ? {} : { agentId: agentText === '' ? null : agentText }),
        ...(cursor === undefined || cursor === '' ? {} : { cursor }),
      });
      return { tasks: page.tasks.map((task) => taskView(task, false)), next: page.nextCursor ?? null };
    } catch (error) {
      if (StoreValidationError.isInstance(error) && error.field === 'cursor') {
        throw validationError('cursor', `'cursor' was not handed out by this listing; start again without it.`);
      }
      throw error;
    }
  });
}

/** A task as the API shows it: MCP's task fields in snake_case, and its result on the task's own page. */
function taskView(task: McpTaskRecord, withResult: boolean): TaskView {
  return {
    id: task.id,
    tool: task.tool,
    agent_id: task.agentId,
    status: task.status,
    status_message: task.statusMessage,
    created_at: new Date(task.createdAt).toISOString(),
    updated_at: new Date(task.updatedAt).toISOString(),
    expires_at: new Date(task.expiresAt).toISOString(),
    ttl_ms: task.ttlMs,
    poll_interval_ms: task.pollIntervalMs,
    ...(withResult ? { result: task.result } : {}),
  };
}

function shown(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
