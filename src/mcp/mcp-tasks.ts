import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';
import { INVALID_PARAMS, requestError } from './mcp-request-error.js';
import type { McpTaskEntry, McpTaskStore } from './mcp-task-store.js';

/**
 * Settings of the MCP tasks a server runs (`McpServerOptions.tasks`).
 *
 * @example
 * ```ts
 * const tasks: McpTaskOptions = { store: createMemoryTaskStore(), defaultTtlMs: 10 * 60_000, pollIntervalMs: 500 };
 * ```
 */
export interface McpTaskOptions {
  /** Where tasks are kept (default: a {@link createMemoryTaskStore} of this server alone). */
  store?: McpTaskStore;
  /** A task's life when the client asks for none (default one hour), counted from its creation. */
  defaultTtlMs?: number;
  /** The longest life a client may ask for (default 24 hours); a longer `ttl` is cut to it. */
  maxTtlMs?: number;
  /** The `pollInterval` suggested to clients (default 1 000 ms); `tasks/result` waits in the same steps. */
  pollIntervalMs?: number;
}

/** The shortest life a task gets, whatever the client asks: enough to read its result once. */
const MIN_TTL_MS = 1000;

/**
 * Task settings with their defaults, checked.
 *
 * @example
 * ```ts
 * resolveTaskOptions({}).defaultTtlMs; // 3_600_000
 * ```
 */
export function resolveTaskOptions(options: McpTaskOptions): Required<Omit<McpTaskOptions, 'store'>> {
  const resolved = {
    defaultTtlMs: options.defaultTtlMs ?? 3_600_000,
    maxTtlMs: options.maxTtlMs ?? 86_400_000,
    pollIntervalMs: options.pollIntervalMs ?? 1000,
  };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(`tasks.${name} must be a whole number of milliseconds of at least 1, got ${String(value)}.`);
    }
  }
  if (resolved.defaultTtlMs > resolved.maxTtlMs) {
    throw new TypeError(
      `tasks.defaultTtlMs (${resolved.defaultTtlMs}) is above tasks.maxTtlMs (${resolved.maxTtlMs}); lower it or raise maxTtlMs.`,
    );
  }
  return resolved;
}

/**
 * The life a task gets: what the client asked (`ttl` in `params.task`), kept between one second and
 * `maxTtlMs`; the default when it asked for none or for an unlimited one (`null`).
 *
 * @example
 * ```ts
 * taskTtl(5_000, { defaultTtlMs: 60_000, maxTtlMs: 120_000 }); // 5_000
 * ```
 */
export function taskTtl(requested: unknown, limits: { defaultTtlMs: number; maxTtlMs: number }): number {
  if (typeof requested !== 'number' || !Number.isFinite(requested)) return limits.defaultTtlMs;
  return Math.min(limits.maxTtlMs, Math.max(MIN_TTL_MS, Math.floor(requested)));
}

/**
 * A stored task as MCP's `Task`: ISO-8601 times, the ttl it got and the poll interval.
 *
 * @example
 * ```ts
 * const { taskId, status } = toMcpTask(await tasks.get(id));
 * ```
 */
export function toMcpTask(entry: McpTaskEntry): Task {
  return {
    taskId: entry.id,
    status: entry.status,
    ...(entry.statusMessage === null ? {} : { statusMessage: entry.statusMessage }),
    createdAt: new Date(entry.createdAt).toISOString(),
    lastUpdatedAt: new Date(entry.updatedAt).toISOString(),
    ttl: entry.ttlMs,
    pollInterval: entry.pollIntervalMs,
  };
}

/** Runs of tasks in this process, by task id: `tasks/cancel` (on any session) stops them here. */
const localRuns = new Map<string, AbortController>();

/**
 * Note that a task runs in this process until the returned function is called, so that a
 * `tasks/cancel` heard by any server of the process aborts `controller`.
 *
 * @example
 * ```ts
 * const done = runLocally(task.id, controller);
 * try { await work(controller.signal); } finally { done(); }
 * ```
 */
export function runLocally(id: string, controller: AbortController): () => void {
  localRuns.set(id, controller);
  return () => {
    if (localRuns.get(id) === controller) localRuns.delete(id);
  };
}

/**
 * The SDK's `TaskStore` over a {@link McpTaskStore}: the SDK answers `tasks/get`, `tasks/result`
 * (waiting for the end in steps of the task's poll interval), `tasks/list` and `tasks/cancel` from it.
 * Its session argument is ignored: the store is already one caller's (a workspace's view), so a task
 * outlives the session that started it and any session of that caller can poll it. A cancellation
 * stops the run if it is in this process; a shared store's `hold` stops it elsewhere.
 *
 * @example
 * ```ts
 * const server = new Server(info, { capabilities, taskStore: toSdkTaskStore(createMemoryTaskStore(), 1000) });
 * ```
 */
export function toSdkTaskStore(store: McpTaskStore, pollIntervalMs: number): TaskStore {
  return {
    async createTask(taskParams, _requestId, request) {
      const params = request.params as { name?: unknown } | undefined;
      const entry = await store.create({
        tool: typeof params?.name === 'string' ? params.name : request.method,
        ttlMs: typeof taskParams.ttl === 'number' ? taskParams.ttl : 3_600_000,
        pollIntervalMs: taskParams.pollInterval ?? pollIntervalMs,
      });
      return toMcpTask(entry);
    },
    async getTask(taskId) {
      const entry = await store.get(taskId);
      return entry === undefined ? null : toMcpTask(entry);
    },
    async storeTaskResult(taskId, status, result) {
      await store.finish(taskId, { status, result: result as Record<string, unknown> });
    },
    async getTaskResult(taskId): Promise<Result> {
      const entry = await store.get(taskId);
      if (entry === undefined) throw requestError(INVALID_PARAMS, `Task not found: ${taskId}`);
      return (entry.result ?? resultOfEnd(entry)) as Result;
    },
    async updateTaskStatus(taskId, status, statusMessage) {
      if (status === 'working' || status === 'input_required') return;
      const entry = await store.get(taskId);
      const ended = await store.finish(taskId, {
        status,
        statusMessage: statusMessage ?? null,
        result: entry === undefined ? null : resultOfEnd({ ...entry, status }),
      });
      if (ended && status === 'cancelled') localRuns.get(taskId)?.abort(new Error('The client cancelled the task.'));
    },
    async listTasks(cursor) {
      const page = await store.list(cursor);
      return {
        tasks: page.tasks.map(toMcpTask),
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      };
    },
  };
}

/**
 * What `tasks/result` answers for a task that ended without a result (cancelled, or failed with a
 * result the store could not keep): a tool error saying so.
 */
function resultOfEnd(entry: McpTaskEntry): Record<string, unknown> {
  const cancelled = entry.status === 'cancelled';
  const code = cancelled ? 'CANCELLED' : 'EXECUTION_FAILED';
  const message = cancelled
    ? `The task calling '${entry.tool}' was cancelled before it finished.`
    : (entry.statusMessage ?? `The task calling '${entry.tool}' ended without a result.`);
  return {
    content: [{ type: 'text', text: `Error [${code}]: ${message}` }],
    isError: true,
    _meta: { error_code: code, retryable: false },
  };
}
