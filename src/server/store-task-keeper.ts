import { randomBytes } from 'node:crypto';
import type { McpTaskEntry, McpTaskStore } from '../mcp/mcp-task-store.js';
import type { McpTaskRecord, StoreMcpTasks } from '../store/index.js';

/** Options of {@link StoreTaskKeeper}. */
export interface StoreTaskKeeperOptions {
  /**
   * How long a running task's lease lasts (default 30 s): renewed every third of it while this server
   * runs the task. When this server dies, its tasks end as failed once the lease lapses.
   */
  leaseMs?: number;
  /** Told about a renewal that failed (the database was unreachable); the next one tries again. */
  onError?: (error: unknown) => void;
}

/** What a server that shuts down says of the tasks it was running. */
const SHUTDOWN_MESSAGE = 'The server running this task shut down before it finished; call the tool again.';

/**
 * The tasks this server runs, kept in the store's `mcp_tasks`: it holds each running task's lease
 * (one renewal for all of them every `leaseMs / 3`), stops a run whose task was cancelled or ended on
 * another server, prunes expired tasks, and on `close` ends its running tasks as failed — so a task
 * never stays `working` after its server is gone: at once on a clean shutdown, when its lease lapses
 * after a crash. {@link StoreTaskKeeper.forView} gives the `McpTaskStore` of one workspace view.
 *
 * @example
 * ```ts
 * const keeper = new StoreTaskKeeper(store.mcpTasks);
 * const tasks = keeper.forView('acme', undefined);
 * await keeper.close();
 * ```
 */
export class StoreTaskKeeper {
  /** This server, as the `owner` of the tasks it runs. */
  readonly owner = `srv_${randomBytes(8).toString('hex')}`;
  readonly #tasks: StoreMcpTasks;
  readonly #leaseMs: number;
  readonly #report: (error: unknown) => void;
  readonly #held = new Map<string, () => void>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(tasks: StoreMcpTasks, options: StoreTaskKeeperOptions = {}) {
    this.#tasks = tasks;
    this.#leaseMs = options.leaseMs ?? 30_000;
    if (!Number.isSafeInteger(this.#leaseMs) || this.#leaseMs < 3) {
      throw new TypeError(
        `leaseMs must be a whole number of milliseconds of at least 3, got ${String(options.leaseMs)}.`,
      );
    }
    this.#report = options.onError ?? (() => {});
  }

  /**
   * The tasks of one workspace view (`agentId` undefined: the workspace's `/mcp`), for
   * `createMcpServer`'s `tasks.store`.
   */
  forView(workspaceId: string, agentId: string | undefined): McpTaskStore {
    const view = { agentId: agentId ?? null };
    return {
      create: async (input) => {
        const task = await this.#tasks.create({
          workspaceId,
          agentId: agentId ?? null,
          tool: input.tool,
          ttlMs: input.ttlMs,
          pollIntervalMs: input.pollIntervalMs,
          owner: this.owner,
          leaseExpiresAt: Date.now() + this.#leaseMs,
        });
        this.#tasks.pruneExpired().catch(this.#report);
        return entryOf(task);
      },
      get: async (id) => {
        const task = await this.#tasks.get(workspaceId, id, view);
        return task === undefined ? undefined : entryOf(task);
      },
      list: async (cursor) => {
        const page = await this.#tasks.list(workspaceId, { ...view, ...(cursor === undefined ? {} : { cursor }) });
        return {
          tasks: page.tasks.map(entryOf),
          ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
        };
      },
      finish: async (id, outcome) => {
        // Only a task of this view: a cancellation names the task through the view that asks.
        if ((await this.#tasks.get(workspaceId, id, view)) === undefined) return false;
        return this.#tasks.finish(workspaceId, id, outcome);
      },
      hold: (id, stop) => this.#hold(id, stop),
    };
  }

  /** End this server's running tasks as failed and stop renewing. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#held.clear();
    await this.#tasks.release(this.owner, SHUTDOWN_MESSAGE);
  }

  #hold(id: string, stop: () => void): () => void {
    if (this.#closed) {
      stop();
      return () => {};
    }
    this.#held.set(id, stop);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => void this.#renew(), Math.floor(this.#leaseMs / 3));
      this.#timer.unref();
    }
    return () => {
      if (this.#held.get(id) !== stop) return;
      this.#held.delete(id);
      if (this.#held.size === 0 && this.#timer !== undefined) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  async #renew(): Promise<void> {
    const ids = [...this.#held.keys()];
    try {
      const gone = await this.#tasks.renew(this.owner, ids, Date.now() + this.#leaseMs);
      for (const id of gone) {
        const stop = this.#held.get(id);
        this.#held.delete(id);
        stop?.();
      }
      await this.#tasks.pruneExpired();
    } catch (error) {
      this.#report(error);
    }
  }
}

function entryOf(task: McpTaskRecord): McpTaskEntry {
  return {
    id: task.id,
    tool: task.tool,
    status: task.status,
    statusMessage: task.statusMessage,
    result: task.result,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
    createdAt: task.createdAt,
    updatedAt: task.updatedAt,
  };
}
