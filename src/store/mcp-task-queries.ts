import type { Selectable } from 'kysely';
import { describeValue } from '../core/define-tool.js';
import type { McpTasksTable } from './database.js';
import { randomId } from './random-id.js';
import { type StoreContext, workspaceNotFoundOn } from './store-context.js';
import type { McpTaskInput, McpTaskOutcome, McpTaskRecord, McpTaskStatus } from './store-records.js';
import {
  isPlainObject,
  isWellFormedId,
  requireId,
  requireText,
  STORE_LIMITS,
  serializeJsonObject,
} from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { StoreMcpTasks } from './toolshed-store.js';

/** Task ids as the store hands them out: `task_` and 24 hex digits. */
const TASK_ID_PATTERN = /^task_[0-9a-f]{24}$/;
const RUNNING: readonly McpTaskStatus[] = ['working', 'input_required'];
const TERMINAL = new Set<McpTaskStatus>(['completed', 'failed', 'cancelled']);
const STATUSES = new Set<string>(['working', 'input_required', 'completed', 'failed', 'cancelled']);
/** Most tasks in one page of `list`. */
const MAX_PAGE = 100;
/** The longest a task may be kept: a ttl beyond it is refused. */
const MAX_TTL_MS = STORE_LIMITS.taskTtlMs;

/**
 * What a task whose server died says: it cannot be resumed, so the caller is told to call again.
 *
 * @example
 * ```ts
 * LAPSED_TASK_MESSAGE; // 'The server running this task stopped before it finished; call the tool again.'
 * ```
 */
export const LAPSED_TASK_MESSAGE = 'The server running this task stopped before it finished; call the tool again.';

/**
 * The `mcp_tasks` part of a store. Reads are one primary-key lookup (or one index range for a page);
 * a `working` task whose owner's lease lapsed is ended as `failed` by the read that finds it, with a
 * result that says so, written only if it is still running (so a concurrent finish wins).
 *
 * @example
 * ```ts
 * const task = await store.mcpTasks.create({ workspaceId: 'acme', tool: 'build_report', ttlMs: 60_000, pollIntervalMs: 1000, owner: 'srv_1', leaseExpiresAt: Date.now() + 30_000 });
 * (await store.mcpTasks.get('acme', task.id))?.status; // 'working'
 * ```
 */
export class McpTaskQueries implements StoreMcpTasks {
  readonly #context: StoreContext;

  constructor(context: StoreContext) {
    this.#context = context;
  }

  async create(input: McpTaskInput, now: number = Date.now()): Promise<McpTaskRecord> {
    if (!isPlainObject(input)) throw new StoreValidationError('task', 'An MCP task must be an object.');
    const workspaceId = requireId(input.workspaceId, 'workspaceId');
    const agentId = input.agentId === undefined || input.agentId === null ? null : requireId(input.agentId, 'agentId');
    const tool = requireText(input.tool, 'tool', STORE_LIMITS.nameChars);
    const ttlMs = requireWhole(input.ttlMs, 'ttlMs', 1, MAX_TTL_MS);
    const pollIntervalMs = requireWhole(input.pollIntervalMs, 'pollIntervalMs', 1, 3_600_000);
    const owner = requireText(input.owner, 'owner', STORE_LIMITS.nameChars);
    const leaseExpiresAt = requireWhole(input.leaseExpiresAt, 'leaseExpiresAt', 1, Number.MAX_SAFE_INTEGER);
    try {
      const row = await this.#context.dialect.db
        .insertInto('mcp_tasks')
        .values({
          id: randomId('task'),
          workspace_id: workspaceId,
          agent_id: agentId,
          tool,
          status: 'working',
          status_message: null,
          result: null,
          ttl_ms: ttlMs,
          poll_interval_ms: pollIntervalMs,
          owner,
          lease_expires_at: leaseExpiresAt,
          created_at: now,
          updated_at: now,
          expires_at: now + ttlMs,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return taskRecordOf(row);
    } catch (error) {
      throw workspaceNotFoundOn(this.#context, error, workspaceId);
    }
  }

  async get(
    workspaceId: string,
    id: string,
    options: { agentId?: string | null; now?: number } = {},
  ): Promise<McpTaskRecord | undefined> {
    if (!isWellFormedId(workspaceId) || typeof id !== 'string' || !TASK_ID_PATTERN.test(id)) return undefined;
    const now = options.now ?? Date.now();
    const row = await this.#context.dialect.db
      .selectFrom('mcp_tasks')
      .selectAll()
      .where('id', '=', id)
      .where('workspace_id', '=', workspaceId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (row === undefined || !inView(row, options.agentId)) return undefined;
    return this.#current(taskRecordOf(row), now);
  }

  async list(
    workspaceId: string,
    options: { agentId?: string | null; cursor?: string; limit?: number; now?: number } = {},
  ): Promise<{ tasks: McpTaskRecord[]; nextCursor?: string }> {
    const limit = options.limit ?? MAX_PAGE;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE) {
      throw new StoreValidationError(
        'limit',
        `limit must be a whole number from 1 to ${MAX_PAGE}, got ${describeValue(limit)}.`,
      );
    }
    const after = options.cursor === undefined ? undefined : parseCursor(options.cursor);
    if (!isWellFormedId(workspaceId)) return { tasks: [] };
    const now = options.now ?? Date.now();
    const agentId = options.agentId;
    const rows = await this.#context.dialect.db
      .selectFrom('mcp_tasks')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('expires_at', '>', now)
      .$if(agentId !== undefined, (query) =>
        agentId === null ? query.where('agent_id', 'is', null) : query.where('agent_id', '=', agentId as string),
      )
      .$if(after !== undefined, (query) =>
        query.where((eb) =>
          eb.or([
            eb('created_at', '<', (after as Cursor).createdAt),
            eb.and([eb('created_at', '=', (after as Cursor).createdAt), eb('id', '<', (after as Cursor).id)]),
          ]),
        ),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
    const page = rows.slice(0, limit);
    const tasks = await Promise.all(page.map((row) => this.#current(taskRecordOf(row), now)));
    const last = page[page.length - 1];
    return rows.length > limit && last !== undefined
      ? { tasks, nextCursor: cursorOf(Number(last.created_at), last.id) }
      : { tasks };
  }

  async finish(workspaceId: string, id: string, outcome: McpTaskOutcome, now: number = Date.now()): Promise<boolean> {
    if (!isPlainObject(outcome) || !TERMINAL.has(outcome.status as McpTaskStatus)) {
      throw new StoreValidationError(
        'outcome',
        `A task ends as 'completed', 'failed' or 'cancelled', got ${describeValue(isPlainObject(outcome) ? outcome.status : outcome)}.`,
      );
    }
    const result = serializeJsonObject(outcome.result ?? null, 'result', STORE_LIMITS.taskResultBytes);
    if (!isWellFormedId(workspaceId) || typeof id !== 'string' || !TASK_ID_PATTERN.test(id)) return false;
    const written = await this.#context.dialect.db
      .updateTable('mcp_tasks')
      .set({
        status: outcome.status,
        status_message: messageOf(outcome.statusMessage),
        result,
        owner: null,
        lease_expires_at: null,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('workspace_id', '=', workspaceId)
      .where('status', 'in', RUNNING)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(written.numUpdatedRows) > 0;
  }

  async renew(
    owner: string,
    held: readonly string[],
    leaseExpiresAt: number,
    now: number = Date.now(),
  ): Promise<string[]> {
    const until = requireWhole(leaseExpiresAt, 'leaseExpiresAt', 1, Number.MAX_SAFE_INTEGER);
    const ids = held.filter((id) => typeof id === 'string' && TASK_ID_PATTERN.test(id));
    if (ids.length === 0) return [];
    const db = this.#context.dialect.db;
    await db
      .updateTable('mcp_tasks')
      .set({ lease_expires_at: until })
      .where('owner', '=', owner)
      .where('id', 'in', ids)
      .where('status', 'in', RUNNING)
      .execute();
    const running = await db
      .selectFrom('mcp_tasks')
      .select('id')
      .where('id', 'in', ids)
      .where('owner', '=', owner)
      .where('status', 'in', RUNNING)
      .where('expires_at', '>', now)
      .execute();
    const still = new Set(running.map((row) => row.id));
    return ids.filter((id) => !still.has(id));
  }

  async release(owner: string, message: string, now: number = Date.now()): Promise<number> {
    if (typeof owner !== 'string' || owner === '') return 0;
    const text = messageOf(message) ?? LAPSED_TASK_MESSAGE;
    const written = await this.#context.dialect.db
      .updateTable('mcp_tasks')
      .set({
        status: 'failed',
        status_message: text,
        result: failedResult(text),
        owner: null,
        lease_expires_at: null,
        updated_at: now,
      })
      .where('owner', '=', owner)
      .where('status', 'in', RUNNING)
      .executeTakeFirst();
    return Number(written.numUpdatedRows);
  }

  async pruneExpired(now: number = Date.now()): Promise<number> {
    const result = await this.#context.dialect.db
      .deleteFrom('mcp_tasks')
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** The task as it stands: a running one whose lease lapsed is ended as failed first. */
  async #current(task: McpTaskRecord, now: number): Promise<McpTaskRecord> {
    if (!RUNNING.includes(task.status) || task.leaseExpiresAt === null || task.leaseExpiresAt > now) return task;
    const written = await this.#context.dialect.db
      .updateTable('mcp_tasks')
      .set({
        status: 'failed',
        status_message: LAPSED_TASK_MESSAGE,
        result: failedResult(LAPSED_TASK_MESSAGE),
        owner: null,
        lease_expires_at: null,
        updated_at: now,
      })
      .where('id', '=', task.id)
      .where('status', 'in', RUNNING)
      .where('lease_expires_at', '<=', now)
      .executeTakeFirst();
    if (Number(written.numUpdatedRows) === 0) {
      // Ended or renewed meanwhile: read what is there now.
      const row = await this.#context.dialect.db
        .selectFrom('mcp_tasks')
        .selectAll()
        .where('id', '=', task.id)
        .executeTakeFirst();
      return row === undefined ? task : taskRecordOf(row);
    }
    return {
      ...task,
      status: 'failed',
      statusMessage: LAPSED_TASK_MESSAGE,
      result: JSON.parse(failedResult(LAPSED_TASK_MESSAGE)) as Record<string, unknown>,
      owner: null,
      leaseExpiresAt: null,
      updatedAt: now,
    };
  }
}

interface Cursor {
  createdAt: number;
  id: string;
}

function cursorOf(createdAt: number, id: string): string {
  return Buffer.from(`${createdAt}:${id}`, 'utf8').toString('base64url');
}

function parseCursor(cursor: unknown): Cursor {
  const text =
    typeof cursor === 'string' && cursor.length <= 100 ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^(\d{1,16}):(task_[0-9a-f]{24})$/.exec(text);
  if (match === null || typeof cursor !== 'string' || cursorOf(Number(match[1]), match[2] as string) !== cursor) {
    throw new StoreValidationError(
      'cursor',
      `cursor ${describeValue(cursor)} was not handed out by this list; start again without one.`,
    );
  }
  return { createdAt: Number(match[1]), id: match[2] as string };
}

function inView(row: Selectable<McpTasksTable>, agentId: string | null | undefined): boolean {
  return agentId === undefined || row.agent_id === agentId;
}

function messageOf(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  return value.length > STORE_LIMITS.taskMessageChars ? `${value.slice(0, STORE_LIMITS.taskMessageChars - 1)}…` : value;
}

/** The `tools/call` result of a task that could not finish: a tool error saying why. */
function failedResult(message: string): string {
  return JSON.stringify({
    content: [{ type: 'text', text: `Error [EXECUTION_FAILED]: ${message}` }],
    isError: true,
    _meta: { error_code: 'EXECUTION_FAILED', retryable: true },
  });
}

function requireWhole(value: unknown, field: string, min: number, max: number): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max) return value;
  throw new StoreValidationError(
    field,
    `${field} must be a whole number from ${min} to ${max}, got ${describeValue(value)}.`,
  );
}

function taskRecordOf(row: Selectable<McpTasksTable>): McpTaskRecord {
  const status = STATUSES.has(row.status) ? (row.status as McpTaskStatus) : 'failed';
  const result = row.result === null ? null : (JSON.parse(row.result) as unknown);
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    tool: row.tool,
    status,
    statusMessage: row.status_message,
    result: isPlainObject(result) ? result : null,
    ttlMs: Number(row.ttl_ms),
    pollIntervalMs: Number(row.poll_interval_ms),
    owner: row.owner,
    leaseExpiresAt: row.lease_expires_at === null ? null : Number(row.lease_expires_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    expiresAt: Number(row.expires_at),
  };
}
