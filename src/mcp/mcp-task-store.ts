/**
 * The status of an MCP task: `working` (or `input_required`) until it ends as `completed`, `failed`
 * or `cancelled`.
 *
 * @example
 * ```ts
 * const status: McpTaskStatus = 'completed';
 * ```
 */
export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * One task as a {@link McpTaskStore} keeps it (times in milliseconds since the epoch).
 *
 * @example
 * ```ts
 * const task: McpTaskEntry = {
 *   id: 'task_3f9c0a5b7e21d4c86a0f1b2c', tool: 'build_report', status: 'working', statusMessage: null,
 *   result: null, ttlMs: 3_600_000, pollIntervalMs: 1000, createdAt: Date.now(), updatedAt: Date.now(),
 * };
 * ```
 */
export interface McpTaskEntry {
  id: string;
  /** The tool the task calls. */
  tool: string;
  status: McpTaskStatus;
  statusMessage: string | null;
  /** The `tools/call` result `tasks/result` answers with; `null` until the task ends. */
  result: Record<string, unknown> | null;
  ttlMs: number;
  pollIntervalMs: number;
  createdAt: number;
  updatedAt: number;
}

/**
 * How a task ended, for {@link McpTaskStore.finish}.
 *
 * @example
 * ```ts
 * const outcome: McpTaskOutcome = { status: 'failed', statusMessage: 'Timed out.', result: { content: [], isError: true } };
 * ```
 */
export interface McpTaskOutcome {
  status: 'completed' | 'failed' | 'cancelled';
  statusMessage?: string | null;
  result?: Record<string, unknown> | null;
}

/**
 * Where an MCP server keeps its tasks: one caller's tasks (a workspace's view, a process), whatever
 * session asks. `createMemoryTaskStore` keeps them in this process; `toolshed serve` keeps them in
 * its database, so that they outlive a restart and any server on the database answers for them.
 * Every method but `create` and `finish` must treat an unknown, malformed or expired id as absent.
 *
 * @example
 * ```ts
 * const tasks: McpTaskStore = createMemoryTaskStore();
 * const task = await tasks.create({ tool: 'build_report', ttlMs: 60_000, pollIntervalMs: 1000 });
 * await tasks.finish(task.id, { status: 'completed', result: { content: [] } });
 * ```
 */
export interface McpTaskStore {
  /** Keep a new `working` task. */
  create(input: { tool: string; ttlMs: number; pollIntervalMs: number }): Promise<McpTaskEntry>;
  get(id: string): Promise<McpTaskEntry | undefined>;
  /** A page of tasks (newest first) and the cursor of the next one; throws for a cursor it did not hand out. */
  list(cursor?: string): Promise<{ tasks: McpTaskEntry[]; nextCursor?: string }>;
  /**
   * End a running task; false (and nothing written) when it had already ended or is gone, so a
   * cancelled task stays cancelled. May throw for a result too large to keep.
   */
  finish(id: string, outcome: McpTaskOutcome): Promise<boolean>;
  /**
   * Told that this process runs the task until the returned function is called; `stop` is called if
   * the task is cancelled or ended by someone else meanwhile (another server, for a shared store).
   */
  hold?(id: string, stop: () => void): () => void;
}
