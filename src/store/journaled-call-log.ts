import type { SqliteStatement } from 'kysely';
import { CallLogJournal } from './call-log-journal.js';
import type { ToolCallValues } from './database.js';
import { toolCallRecordOf } from './row-mapping.js';
import { loadSqliteDriver, type SqliteDriver } from './sqlite/sqlite-driver.js';
import type { StoreContext } from './store-context.js';
import { TOOL_CALL_STATUSES, type ToolCallRecord, type ToolCallStatus } from './store-records.js';

/** Ids reserved at a time: one small transaction per this many calls. */
const ID_BLOCK = 10_000;
/** Rows in one INSERT statement (12 parameters each, far below SQLite's limit). */
const ROWS_PER_STATEMENT = 200;
/** How long an appended call may wait before it is copied into `tool_calls`, in milliseconds. */
const DRAIN_DELAY_MS = 10;
/** The longest wait between attempts while copies keep failing (the database is locked, full...). */
const MAX_RETRY_DELAY_MS = 1000;
/** The journal is emptied once it holds this many bytes and every line in it is copied. */
const CLEAR_AT_BYTES = 1 << 20;
/**
 * Calls journaled but not copied that are kept in memory at most: past it, while copies fail, new
 * calls are refused with the copy's error, as they would be without the journal.
 */
export const MAX_UNCOPIED_CALLS = 50_000;

/**
 * A call as a journal line: `[id, workspace, agent, tool, status, errorCode, durationMs, createdAt,
 * tokenId, approvalId, argumentsDigest, resultBytes]`. A line of eight (written before the audit
 * columns) is read with the last four null.
 */
type JournalRow = [
  number,
  string,
  string | null,
  string,
  ToolCallStatus,
  string | null,
  number,
  string,
  string | null,
  string | null,
  string | null,
  number | null,
];

interface Appending {
  values: ToolCallValues;
  row: JournalRow;
  resolve(record: ToolCallRecord): void;
  reject(error: unknown): void;
}

/**
 * The call log of a SQLite file store opened with `callJournal: true`: a call is acknowledged once its
 * line is in the journal (one `write()` for all the calls of a turn of the event loop), and is
 * copied into `tool_calls` within {@link DRAIN_DELAY_MS} in one transaction with every other call
 * waiting, or at once when the log is read or the store closes.
 *
 * Ids are assigned here, from a block reserved in `sqlite_sequence`, so every journal line carries the
 * id its row will have: copying a line twice (after a crash between the commit and emptying the
 * journal) inserts nothing the second time, and another process inserting calls through
 * `AUTOINCREMENT` gets ids above the block. A journal line whose workspace was deleted before it was
 * copied is dropped, as the deletion would have dropped its row.
 *
 * @example
 * ```ts
 * const log = await JournaledCallLog.open(context, driver);
 * await log?.record({ workspace_id: 'acme', tool_id: 'calculator', status: 'success', duration_ms: 3, created_at: nowIso() });
 * await log?.drain();
 * ```
 */
export class JournaledCallLog {
  readonly #context: StoreContext;
  readonly #driver: SqliteDriver;
  readonly #journal: CallLogJournal;
  readonly #inserts = new Map<number, SqliteStatement>();
  /** Reserved ids: `#nextId` up to `#lastId`. */
  #nextId = 1;
  #lastId = 0;
  #reserving: Promise<void> | undefined;
  #appending: Appending[] = [];
  #appendScheduled = false;
  /** Rows in the journal, not yet in `tool_calls`. */
  #undrained: JournalRow[] = [];
  #journalBytes = 0;
  #drainTimer: NodeJS.Timeout | undefined;
  /** The error of the last copy, while copies fail; `undefined` once one succeeds. */
  #copyError: unknown;
  #retryDelayMs = DRAIN_DELAY_MS;
  #closed = false;

  private constructor(context: StoreContext, driver: SqliteDriver, journal: CallLogJournal) {
    this.#context = context;
    this.#driver = driver;
    this.#journal = journal;
  }

  /**
   * Take ownership of the journal beside `driver`'s file and copy whatever a previous owner left in
   * it; `undefined` when another connection owns it (that store then writes its calls directly).
   */
  static async open(context: StoreContext, driver: SqliteDriver): Promise<JournaledCallLog | undefined> {
    const journal = CallLogJournal.acquire(await loadSqliteDriver(), driver.name);
    if (journal === undefined) return undefined;
    const log = new JournaledCallLog(context, driver, journal);
    try {
      await log.#replay();
    } catch (error) {
      journal.close();
      throw error;
    }
    return log;
  }

  /** Journal one call (validated by the caller); resolves with its record once the line is written. */
  record(values: ToolCallValues): Promise<ToolCallRecord> {
    if (this.#closed) return Promise.reject(new Error('The store is closed; the call was not logged.'));
    if (this.#copyError !== undefined && this.#undrained.length >= MAX_UNCOPIED_CALLS) {
      return Promise.reject(this.#copyError);
    }
    if (this.#nextId > this.#lastId) return this.#reserve().then(() => this.record(values));
    const row: JournalRow = [
      this.#nextId++,
      values.workspace_id,
      values.agent_id,
      values.tool_id,
      values.status as ToolCallStatus,
      values.error_code,
      values.duration_ms,
      values.created_at,
      values.token_id,
      values.approval_id,
      values.arguments_digest,
      values.result_bytes,
    ];
    return new Promise<ToolCallRecord>((resolve, reject) => {
      this.#appending.push({ values, row, resolve, reject });
      if (this.#appendScheduled) return;
      this.#appendScheduled = true;
      // After the other requests that are ready in this turn of the event loop: one write for all.
      setImmediate(() => this.#append());
    });
  }

  /** Copy every journaled call into `tool_calls` now. */
  async drain(): Promise<void> {
    if (this.#undrained.length === 0) return;
    await this.#context.dialect.db.connection().execute(async () => this.#drainNow());
  }

  /** Journal what is waiting, copy everything into `tool_calls`, empty the journal and let it go. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#drainTimer);
    if (this.#appendScheduled) this.#append();
    try {
      await this.drain();
      this.#journal.clear();
    } finally {
      // Lines that could not be copied stay in the journal for the next owner.
      this.#journal.close();
    }
  }

  #append(): void {
    this.#appendScheduled = false;
    const batch = this.#appending;
    this.#appending = [];
    let text = '';
    for (const { row } of batch) text += `${JSON.stringify(row)}\n`;
    try {
      this.#journal.append(text);
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    this.#journalBytes += text.length;
    for (const { values, row, resolve } of batch) {
      this.#undrained.push(row);
      resolve(toolCallRecordOf({ id: row[0], ...values }));
    }
    this.#scheduleDrain();
  }

  #scheduleDrain(): void {
    if (this.#drainTimer !== undefined || this.#closed) return;
    this.#drainTimer = setTimeout(() => {
      this.#drainTimer = undefined;
      this.drain().catch((error: unknown) => {
        // Each failure is reported and the next attempt waits twice as long, up to a second; the
        // calls stay in the journal meanwhile.
        this.#context.options.onError(error);
        this.#retryDelayMs = Math.min(this.#retryDelayMs * 2, MAX_RETRY_DELAY_MS);
        this.#scheduleDrain();
      });
    }, this.#retryDelayMs);
    // An exit without close() loses nothing: the next owner copies the journal.
    this.#drainTimer.unref();
  }

  /** Copy the undrained rows in one transaction (the caller holds the connection). */
  #drainNow(): void {
    const rows = this.#undrained;
    if (rows.length === 0) return;
    this.#undrained = [];
    try {
      this.#insert(rows);
    } catch (error) {
      this.#undrained = rows.concat(this.#undrained);
      this.#copyError = error;
      throw error;
    }
    this.#copyError = undefined;
    this.#retryDelayMs = DRAIN_DELAY_MS;
    // Every line in the journal is a copied row now (appends run in turns of their own).
    if (this.#journalBytes >= CLEAR_AT_BYTES) {
      this.#journal.clear();
      this.#journalBytes = 0;
    }
  }

  #insert(rows: readonly JournalRow[]): void {
    const driver = this.#driver;
    driver.exec('begin immediate');
    try {
      for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
        const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
        try {
          this.#statement(chunk.length).run(chunk.flat());
        } catch (error) {
          if (this.#context.dialect.classifyError(error) !== 'foreign-key') throw error;
          // A workspace deleted meanwhile: its calls go the way of its rows; the others are kept.
          for (const row of chunk) {
            try {
              this.#statement(1).run(row);
            } catch (rowError) {
              if (this.#context.dialect.classifyError(rowError) !== 'foreign-key') throw rowError;
            }
          }
        }
      }
      driver.exec('commit');
    } catch (error) {
      if (driver.inTransaction) driver.exec('rollback');
      throw error;
    }
  }

  #statement(rows: number): SqliteStatement {
    let statement = this.#inserts.get(rows);
    if (statement === undefined) {
      const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
      statement = this.#driver.prepare(
        `insert into tool_calls (id, workspace_id, agent_id, tool_id, status, error_code, duration_ms, created_at, token_id, approval_id, arguments_digest, result_bytes) values ${values} on conflict (id) do nothing`,
      );
      this.#inserts.set(rows, statement);
    }
    return statement;
  }

  /** Reserve the next block of ids above every id used or reserved so far, by anyone. */
  #reserve(): Promise<void> {
    this.#reserving ??= this.#context.dialect.db
      .connection()
      .execute(async () => {
        const driver = this.#driver;
        driver.exec('begin immediate');
        try {
          const [{ top }] = driver
            .prepare(
              "select max(coalesce((select seq from sqlite_sequence where name = 'tool_calls'), 0), coalesce((select max(id) from tool_calls), 0)) as top",
            )
            .all([]) as [{ top: number }];
          const last = top + ID_BLOCK;
          const updated = driver.prepare("update sqlite_sequence set seq = ? where name = 'tool_calls'").run([last]);
          if (Number(updated.changes) === 0) {
            driver.prepare("insert into sqlite_sequence (name, seq) values ('tool_calls', ?)").run([last]);
          }
          driver.exec('commit');
          this.#nextId = top + 1;
          this.#lastId = last;
        } catch (error) {
          if (driver.inTransaction) driver.exec('rollback');
          throw error;
        }
      })
      .finally(() => {
        this.#reserving = undefined;
      });
    return this.#reserving;
  }

  /** Copy what a previous owner left in the journal, then empty it. */
  async #replay(): Promise<void> {
    const text = this.#journal.read();
    if (text === '') return;
    const rows: JournalRow[] = [];
    let malformed = 0;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const row = journalRowOf(line);
      if (row === undefined) malformed += 1;
      else rows.push(row);
    }
    if (rows.length > 0) await this.#context.dialect.db.connection().execute(async () => this.#insert(rows));
    this.#journal.clear();
    if (malformed > 0) {
      this.#context.options.onError(
        new Error(
          `The call log journal ${this.#journal.path} had ${malformed} unreadable line${malformed === 1 ? '' : 's'}; ${rows.length} call${rows.length === 1 ? ' was' : 's were'} logged from it and the rest skipped.`,
        ),
      );
    }
  }
}

/** A journal line as a row, or `undefined` when it is not one (a torn last line, damage). */
function journalRowOf(line: string): JournalRow | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || (value.length !== 8 && value.length !== 12)) return undefined;
  const row = value.length === 8 ? [...value, null, null, null, null] : value;
  const [id, workspace, agent, tool, status, errorCode, duration, createdAt, token, approval, digest, bytes] =
    row as unknown[];
  const textOrNull = (item: unknown) => item === null || typeof item === 'string';
  const valid =
    Number.isSafeInteger(id) &&
    (id as number) > 0 &&
    typeof workspace === 'string' &&
    textOrNull(agent) &&
    typeof tool === 'string' &&
    TOOL_CALL_STATUSES.includes(status as ToolCallStatus) &&
    textOrNull(errorCode) &&
    Number.isSafeInteger(duration) &&
    (duration as number) >= 0 &&
    typeof createdAt === 'string' &&
    !Number.isNaN(Date.parse(createdAt)) &&
    textOrNull(token) &&
    textOrNull(approval) &&
    textOrNull(digest) &&
    (bytes === null || (Number.isSafeInteger(bytes) && (bytes as number) >= 0));
  return valid ? (row as JournalRow) : undefined;
}
