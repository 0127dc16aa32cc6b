import { randomBytes } from 'node:crypto';
import type { McpTaskEntry, McpTaskOutcome, McpTaskStore } from './mcp-task-store.js';

/** Options of {@link createMemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /** Most tasks kept; creating one more forgets the oldest ended one, else the oldest (default 1 000). */
  maxTasks?: number;
  /** Most tasks in one page of `list` (default 100). */
  pageSize?: number;
  /** The clock, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
}

const RUNNING = new Set(['working', 'input_required']);

/**
 * A {@link McpTaskStore} in this process's memory: what `createMcpServer` uses when given none (stdio,
 * or a plain HTTP handler). Tasks last their ttl or until the process ends. Pass one store to
 * several servers (or to `createMcpHttpHandler`'s options) for their sessions to share tasks.
 *
 * @example
 * ```ts
 * const tasks = createMemoryTaskStore();
 * const server = createMcpServer(registry, { tasks: { store: tasks } });
 * ```
 */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): McpTaskStore {
  const maxTasks = options.maxTasks ?? 1000;
  const pageSize = options.pageSize ?? 100;
  const now = options.now ?? Date.now;
  // Insertion order is creation order: newest last.
  const tasks = new Map<string, McpTaskEntry>();
  const stops = new Map<string, () => void>();

  const live = (id: string): McpTaskEntry | undefined => {
    const task = typeof id === 'string' ? tasks.get(id) : undefined;
    if (task === undefined) return undefined;
    if (task.createdAt + task.ttlMs <= now()) {
      tasks.delete(id);
      return undefined;
    }
    return task;
  };

  const makeRoom = () => {
    if (tasks.size < maxTasks) return;
    let victim: string | undefined;
    for (const [id, task] of tasks) {
      if (!RUNNING.has(task.status)) {
        victim = id;
        break;
      }
    }
    victim ??= tasks.keys().next().value;
    if (victim !== undefined) tasks.delete(victim);
  };

  return {
    async create(input) {
      makeRoom();
      const at = now();
      const task: McpTaskEntry = {
        id: `task_${randomBytes(12).toString('hex')}`,
        tool: input.tool,
        status: 'working',
        statusMessage: null,
        result: null,
        ttlMs: input.ttlMs,
        pollIntervalMs: input.pollIntervalMs,
        createdAt: at,
        updatedAt: at,
      };
      tasks.set(task.id, task);
      return { ...task };
    },
    async get(id) {
      const task = live(id);
      return task === undefined ? undefined : { ...task };
    },
    async list(cursor) {
      const newestFirst = [...tasks.keys()].reverse().filter((id) => live(id) !== undefined);
      let start = 0;
      if (cursor !== undefined) {
        const index = newestFirst.indexOf(cursor);
        if (index < 0) throw new Error(`The cursor '${String(cursor).slice(0, 80)}' was not handed out by this list.`);
        start = index;
      }
      const page = newestFirst.slice(start, start + pageSize);
      const next = newestFirst[start + pageSize];
      return {
        tasks: page.map((id) => ({ ...(tasks.get(id) as McpTaskEntry) })),
        ...(next === undefined ? {} : { nextCursor: next }),
      };
    },
    async finish(id, outcome: McpTaskOutcome) {
      const task = live(id);
      if (task === undefined || !RUNNING.has(task.status)) return false;
      task.status = outcome.status;
      task.statusMessage = outcome.statusMessage ?? null;
      task.result = outcome.result ?? null;
      task.updatedAt = now();
      const stop = stops.get(id);
      stops.delete(id);
      if (outcome.status === 'cancelled') stop?.();
      return true;
    },
    hold(id, stop) {
      stops.set(id, stop);
      return () => {
        if (stops.get(id) === stop) stops.delete(id);
      };
    },
  };
}
