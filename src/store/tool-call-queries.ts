import type { SqliteStatement } from 'kysely';
import { describeValue } from '../core/define-tool.js';
import type { ToolCallValues } from './database.js';
import { JournaledCallLog } from './journaled-call-log.js';
import { nowIso, toolCallRecordOf } from './row-mapping.js';
import type { SqliteDriver } from './sqlite/sqlite-driver.js';
import { type StoreContext, workspaceNotFoundOn } from './store-context.js';
import { TOOL_CALL_STATUSES, type ToolCallInput, type ToolCallRecord, type ToolCallStatus } from './store-records.js';
import {
  isPlainObject,
  isWellFormedId,
  requireId,
  requireLimit,
  requireText,
  STORE_LIMITS,
} from './store-validation.js';
import { StoreValidationError } from './store-validation-error.js';
import type { RecentToolCallsOptions, StoreToolCalls } from './toolshed-store.js';
import { WindowedCallLog } from './windowed-call-log.js';

/** Most calls written in one transaction (11 parameters each, far below either dialect's limit). */
const MAX_BATCH = 200;

/** A call waiting in {@link ToolCallQueries.record}'s queue for its batch to commit. */
interface PendingCall {
  values: ToolCallValues;
  resolve(record: ToolCallRecord): void;
  reject(error: unknown): void;
}

/**
 * The `tool_calls` part of a store: the call log behind `GET /api/calls`.
 *
 * Tool ids are logged as the caller gave them (a model may call a tool that does not exist), so they
 * are checked for type and length only.
 *
 * @example
 * ```ts
 * await store.toolCalls.record('acme', { agentId: 'research', toolId: 'read_file', status: 'success', durationMs: 12 });
 * await store.toolCalls.listRecent('acme', { agentId: 'research', limit: 20 });
 * ```
 */
export class ToolCallQueries implements StoreToolCalls {
  readonly #context: StoreContext;
  readonly #queue: PendingCall[] = [];
  /** SQLite: the prepared INSERT for each batch size met so far. */
  readonly #sqliteInserts = new Map<number, SqliteStatement>();
  #flushing = false;
  /** With the `callJournal` option on a SQLite file: the journal, once this store owns it. */
  #journal: JournaledCallLog | undefined;
  #journalOpening: Promise<JournaledCallLog | undefined> | undefined;
  /** With the `callJournal` option where there is no journal file (PostgreSQL): the windowed writer. */
  readonly #windowed: WindowedCallLog | undefined;

  constructor(context: StoreContext) {
    this.#context = context;
    const { options, dialect } = context;
    this.#windowed = options.callJournal && dialect.syncDriver === undefined ? new WindowedCallLog(context) : undefined;
  }

  async record(workspaceId: string, call: ToolCallInput): Promise<ToolCallRecord> {
    const workspace = requireId(workspaceId, 'workspaceId');
    if (!isPlainObject(call)) throw new StoreValidationError('call', 'A tool call must be an object.');
    const agentId = call.agentId === undefined || call.agentId === null ? null : requireId(call.agentId, 'agentId');
    const toolId = requireText(call.toolId, 'toolId', STORE_LIMITS.nameChars);
    if (!TOOL_CALL_STATUSES.includes(call.status)) {
      throw new StoreValidationError(
        'status',
        `status ${describeValue(call.status)} is invalid: use one of ${TOOL_CALL_STATUSES.join(', ')}.`,
      );
    }
    const errorCode =
      call.errorCode === undefined || call.errorCode === null
        ? null
        : requireText(call.errorCode, 'errorCode', STORE_LIMITS.nameChars);
    if (typeof call.durationMs !== 'number' || !Number.isFinite(call.durationMs) || call.durationMs < 0) {
      throw new StoreValidationError(
        'durationMs',
        `durationMs must be a finite number of at least 0, got ${describeValue(call.durationMs)}.`,
      );
    }
    const createdAt = call.createdAt === undefined ? nowIso() : isoTimestamp(call.createdAt, 'createdAt');
    const tokenId = call.tokenId === undefined || call.tokenId === null ? null : requireId(call.tokenId, 'tokenId');
    const approvalId =
      call.approvalId === undefined || call.approvalId === null ? null : requireId(call.approvalId, 'approvalId');
    const digest = call.argumentsDigest ?? null;
    if (digest !== null && (typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest))) {
      throw new StoreValidationError(
        'argumentsDigest',
        `argumentsDigest must be 64 lowercase hex digits (a SHA-256), got ${describeValue(digest)}.`,
      );
    }
    const resultBytes = call.resultBytes ?? null;
    if (resultBytes !== null && !(Number.isSafeInteger(resultBytes) && resultBytes >= 0)) {
      throw new StoreValidationError(
        'resultBytes',
        `resultBytes must be a whole number of at least 0, got ${describeValue(resultBytes)}.`,
      );
    }
    const values: ToolCallValues = {
      workspace_id: workspace,
      agent_id: agentId,
      tool_id: toolId,
      status: call.status satisfies ToolCallStatus,
      error_code: errorCode,
      duration_ms: Math.round(call.durationMs),
      created_at: createdAt,
      token_id: tokenId,
      approval_id: approvalId,
      arguments_digest: digest,
      result_bytes: resultBytes,
    };
    const journal = this.#journal ?? (await this.#openJournal());
    if (journal !== undefined) return journal.record(values);
    if (this.#windowed !== undefined) return this.#windowed.record(values);
    return new Promise<ToolCallRecord>((resolve, reject) => {
      this.#queue.push({ values, resolve, reject });
      if (this.#flushing) return;
      this.#flushing = true;
      // After the other requests that are ready in this turn of the event loop have queued theirs:
      // a SQLite write never yields, so without the wait every batch would hold one call.
      setImmediate(() => void this.#flush());
    });
  }

  /**
   * Write the queued calls, a batch per transaction, until none is left. The first call of a quiet
   * moment is written in the next turn of the event loop; calls that arrive meanwhile or while a
   * batch commits join the next batch, so a
   * busy server pays one commit per batch instead of one per call (group commit). Each caller's
   * promise settles when its own row is committed.
   */
  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0) await this.#writeBatch(this.#queue.splice(0, MAX_BATCH));
    } finally {
      this.#flushing = false;
    }
  }

  async #writeBatch(batch: readonly PendingCall[]): Promise<void> {
    // One INSERT statement is a transaction of its own in both dialects: no BEGIN and COMMIT to send,
    // and nothing to announce (the call log has no change notifications).
    const db = this.#context.dialect.db;
    const driver = this.#context.dialect.syncDriver;
    if (driver !== undefined) {
      try {
        await this.#writeSqliteBatch(driver, batch);
        return;
      } catch {
        // As below: each call alone.
      }
    } else if (batch.length > 1) {
      try {
        const rows = await db
          .insertInto('tool_calls')
          .values(batch.map((pending) => pending.values))
          .returningAll()
          .execute();
        // Ids ascend in the order of the VALUES in both dialects; the order RETURNING lists them in
        // is not promised.
        rows.sort((left, right) => Number(left.id) - Number(right.id));
        batch.forEach((pending, index) => {
          const row = rows[index];
          if (row === undefined) pending.reject(new Error('The call log batch returned fewer rows than it wrote.'));
          else pending.resolve(toolCallRecordOf(row));
        });
        return;
      } catch {
        // One call of a workspace deleted meanwhile fails the whole batch: write each call alone, so
        // only that one fails, with its own error.
      }
    }
    for (const pending of batch) {
      try {
        const row = await db.insertInto('tool_calls').values(pending.values).returningAll().executeTakeFirstOrThrow();
        pending.resolve(toolCallRecordOf(row));
      } catch (error) {
        pending.reject(workspaceNotFoundOn(this.#context, error, pending.values.workspace_id));
      }
    }
  }

  /**
   * SQLite: the batch as one prepared multi-row INSERT on the store's connection, without Kysely's
   * query building (which cost about as much as the insert itself at the call log's rate).
   */
  async #writeSqliteBatch(driver: SqliteDriver, batch: readonly PendingCall[]): Promise<void> {
    let statement = this.#sqliteInserts.get(batch.length);
    if (statement === undefined) {
      const rows = Array.from({ length: batch.length }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
      statement = driver.prepare(
        `insert into tool_calls (workspace_id, agent_id, tool_id, status, error_code, duration_ms, created_at, token_id, approval_id, arguments_digest, result_bytes) values ${rows} returning id`,
      );
      this.#sqliteInserts.set(batch.length, statement);
    }
    const parameters: unknown[] = [];
    for (const { values } of batch) {
      parameters.push(
        values.workspace_id,
        values.agent_id,
        values.tool_id,
        values.status,
        values.error_code,
        values.duration_ms,
        values.created_at,
        values.token_id,
        values.approval_id,
        values.arguments_digest,
        values.result_bytes,
      );
    }
    const prepared = statement;
    // Holding the connection keeps the insert out of any transaction Kysely has open on it.
    const ids = await this.#context.dialect.db
      .connection()
      .execute(async () => (prepared.all(parameters) as Array<{ id: number }>).map((row) => row.id));
    ids.sort((left, right) => left - right);
    batch.forEach((pending, index) => {
      pending.resolve(toolCallRecordOf({ id: ids[index] as number, ...pending.values }));
    });
  }

  async flush(): Promise<void> {
    await this.#windowed?.drain();
    await (await this.#openJournal())?.drain();
  }

  /**
   * Copy every journaled call into `tool_calls` and give up the journal (a store with the
   * `callJournal` option; nothing otherwise). The store calls this when it closes.
   */
  async close(): Promise<void> {
    await this.#windowed?.drain();
    const journal = await this.#journalOpening?.catch(() => undefined);
    this.#journal = undefined;
    this.#journalOpening = Promise.resolve(undefined);
    await journal?.close();
  }

  /**
   * The journal, opened (and what a previous owner left in it copied) on first use, when the store
   * was opened with `callJournal` on a SQLite file and no other store owns it.
   */
  #openJournal(): Promise<JournaledCallLog | undefined> {
    this.#journalOpening ??= (async () => {
      const { dialect, options } = this.#context;
      const driver = options.callJournal ? dialect.syncDriver : undefined;
      if (driver === undefined || driver.memory) return undefined;
      this.#journal = await JournaledCallLog.open(this.#context, driver);
      return this.#journal;
    })();
    return this.#journalOpening;
  }

  async listRecent(workspaceId: string, options: RecentToolCallsOptions = {}): Promise<ToolCallRecord[]> {
    if (!isPlainObject(options)) throw new StoreValidationError('options', 'listRecent options must be an object.');
    const limit = requireLimit(options.limit, 50, STORE_LIMITS.recentCalls);
    const { agentId, toolId, tokenId } = options;
    const status: unknown = options.status;
    const beforeId: unknown = options.beforeId;
    for (const [field, value] of [
      ['agentId', agentId],
      ['toolId', toolId],
      ['tokenId', tokenId],
    ] as const) {
      if (value !== undefined && typeof value !== 'string') {
        throw new StoreValidationError(field, `${field} must be a string, got ${describeValue(value)}.`);
      }
    }
    if (status !== undefined && !TOOL_CALL_STATUSES.includes(status as ToolCallStatus)) {
      throw new StoreValidationError(
        'status',
        `status ${describeValue(status)} is invalid: use one of ${TOOL_CALL_STATUSES.join(', ')}.`,
      );
    }
    if (beforeId !== undefined && !(Number.isSafeInteger(beforeId) && (beforeId as number) >= 1)) {
      throw new StoreValidationError(
        'beforeId',
        `beforeId must be a whole number of at least 1, got ${describeValue(beforeId)}.`,
      );
    }
    const since = options.since === undefined ? undefined : isoTimestamp(options.since, 'since');
    const until = options.until === undefined ? undefined : isoTimestamp(options.until, 'until');
    if (!isWellFormedId(workspaceId)) return [];
    // Journaled calls are answered already: they are in the table before it is read.
    await (await this.#openJournal())?.drain();
    await this.#windowed?.drain();
    // ISO-8601 text in UTC orders as time on SQLite; PostgreSQL reads it as a timestamptz.
    const { db } = this.#context.dialect;
    const rows = await db
      .selectFrom('tool_calls')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .$if(agentId !== undefined, (query) => query.where('agent_id', '=', agentId as string))
      .$if(toolId !== undefined, (query) => query.where('tool_id', '=', toolId as string))
      .$if(tokenId !== undefined, (query) => query.where('token_id', '=', tokenId as string))
      .$if(status !== undefined, (query) => query.where('status', '=', status as string))
      .$if(since !== undefined, (query) => query.where('created_at', '>=', since as string))
      .$if(until !== undefined, (query) => query.where('created_at', '<', until as string))
      .$if(beforeId !== undefined, (query) => query.where('id', '<', beforeId as number))
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toolCallRecordOf);
  }

  async pruneBefore(before: string): Promise<number> {
    const cutoff = isoTimestamp(before, 'before');
    await (await this.#openJournal())?.drain();
    await this.#windowed?.drain();
    const { db } = this.#context.dialect;
    const result = await db.deleteFrom('tool_calls').where('created_at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function isoTimestamp(value: unknown, field: string): string {
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new StoreValidationError(field, `${field} must be an ISO-8601 timestamp, got ${describeValue(value)}.`);
  }
  return new Date(time).toISOString();
}
