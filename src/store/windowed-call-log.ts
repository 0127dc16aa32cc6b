import { sql } from 'kysely';
import type { ToolCallValues } from './database.js';
import { toolCallRecordOf } from './row-mapping.js';
import type { StoreContext } from './store-context.js';
import type { ToolCallRecord } from './store-records.js';

/** Calls acknowledged and not yet written are written within this many milliseconds. */
export const CALL_LOG_WINDOW_MS = 10;

/** How long a failed write waits before it is tried again, in milliseconds. */
const RETRY_MS = 1000;

/** Rows one INSERT writes at most. */
const MAX_BATCH = 500;

/** Ids reserved from the `tool_calls` sequence at a time. */
const ID_BLOCK = 1000;

/** Below this many reserved ids, the next block is reserved while calls go on taking the rest. */
const ID_LOW_WATER = 250;

/**
 * Calls acknowledged and not yet written that are kept at most: past it, a call waits for the writes
 * (and gets their error when they fail), as it would without the window.
 */
const MAX_PENDING = 10_000;

type PendingRow = ToolCallValues & { id: number };

/**
 * The call log of a PostgreSQL store opened with `callJournal: true`, written in windows: a call is
 * acknowledged once it has its id (reserved in blocks of 1 000 from the `tool_calls` sequence, the
 * next block while a quarter of the current one is left) and is
 * queued; every call queued within {@link CALL_LOG_WINDOW_MS} is written by one INSERT, before any read
 * of the log (`listRecent`), and at close. So an acknowledged call is lost only when the server dies
 * within the window after acknowledging it: a crash loses at most the last window's calls, never an
 * earlier one (a window is written or retried before the next is acknowledged past the cap).
 *
 * A row whose workspace was deleted before it was written is dropped, as the deletion would have
 * dropped it; any other failed write goes to `onError` and is tried again a second later (the calls
 * stay queued, in memory only), and past 10 000 calls waiting, new calls wait for the writes and are
 * refused with their error.
 *
 * @example
 * ```ts
 * const log = new WindowedCallLog(context);
 * await log.record({ workspace_id: 'acme', agent_id: null, tool_id: 'calculator', status: 'success', error_code: null, duration_ms: 3, created_at: nowIso(), token_id: null, approval_id: null, arguments_digest: null, result_bytes: null });
 * await log.drain();
 * ```
 */
export class WindowedCallLog {
  readonly #context: StoreContext;
  #pending: PendingRow[] = [];
  #ids: number[] = [];
  #reserving: Promise<void> | undefined;
  /** When a reservation ahead may be tried again after one failed (`performance.now()` time). */
  #reserveAheadAfter = 0;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(context: StoreContext) {
    this.#context = context;
  }

  /** Queue one call and answer its record; it is written within the window. */
  async record(values: ToolCallValues): Promise<ToolCallRecord> {
    if (this.#pending.length >= MAX_PENDING) await this.drain();
    let id = this.#ids.shift();
    while (id === undefined) {
      await this.#reserve();
      id = this.#ids.shift();
    }
    // The next block is asked for before this one runs out, so no call waits for it under steady load;
    // a reservation that fails here fails again, to its caller, once the ids are gone.
    if (this.#ids.length < ID_LOW_WATER && performance.now() >= this.#reserveAheadAfter) {
      this.#reserve().catch(() => {
        this.#reserveAheadAfter = performance.now() + RETRY_MS;
      });
    }
    const row: PendingRow = { id, ...values };
    this.#pending.push(row);
    this.#schedule(CALL_LOG_WINDOW_MS);
    return toolCallRecordOf(row);
  }

  /** Write the queue after `delayMs`; a failed write goes to `onError` and is tried again a second later. */
  #schedule(delayMs: number): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#writeQueued().catch((error: unknown) => {
        this.#context.options.onError(error);
        if (this.#pending.length > 0) this.#schedule(RETRY_MS);
      });
    }, delayMs);
    this.#timer.unref?.();
  }

  /** Write every queued call now; rejects with the write's error when it failed (the calls stay queued). */
  async drain(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    await this.#writeQueued();
  }

  /**
   * Write what is queued once the writes already under way are done, one INSERT per {@link MAX_BATCH}
   * rows. Calls queued while it writes are left to their own window: written at once, they would make
   * under load an INSERT of a few rows per round trip, where PostgreSQL's cost per row is about twice
   * that of a window's worth.
   */
  #writeQueued(): Promise<void> {
    const next = this.#writing
      .catch(() => undefined)
      .then(async () => {
        let left = this.#pending.length;
        while (left > 0) {
          const batch = this.#pending.slice(0, Math.min(left, MAX_BATCH));
          await this.#write(batch);
          this.#pending.splice(0, batch.length);
          left -= batch.length;
        }
      });
    this.#writing = next;
    return next;
  }

  async #write(batch: readonly PendingRow[]): Promise<void> {
    try {
      await this.#insert(batch);
      return;
    } catch (error) {
      if (batch.length === 1) {
        if (this.#context.dialect.classifyError(error) === 'foreign-key') return;
        throw error;
      }
    }
    // One row of a deleted workspace fails the whole batch: each row alone, so only that one is dropped.
    for (const row of batch) await this.#write([row]);
  }

  async #insert(batch: readonly PendingRow[]): Promise<void> {
    const column = <K extends keyof PendingRow>(key: K) => batch.map((row) => row[key]);
    // `on conflict do nothing`: a batch retried after a write whose answer was lost adds nothing twice.
    await sql`insert into tool_calls (id, workspace_id, agent_id, tool_id, status, error_code, duration_ms,
        created_at, token_id, approval_id, arguments_digest, result_bytes)
      overriding system value
      select * from unnest(${column('id')}::bigint[], ${column('workspace_id')}::text[], ${column('agent_id')}::text[],
        ${column('tool_id')}::text[], ${column('status')}::text[], ${column('error_code')}::text[],
        ${column('duration_ms')}::bigint[], ${column('created_at')}::timestamptz[], ${column('token_id')}::text[],
        ${column('approval_id')}::text[], ${column('arguments_digest')}::text[], ${column('result_bytes')}::bigint[])
      on conflict (id) do nothing`.execute(this.#context.dialect.db);
  }

  /** Reserve the next block of ids (callers waiting at once share one reservation). */
  #reserve(): Promise<void> {
    this.#reserving ??= (async () => {
      try {
        const result = await sql<{
          id: string | number;
        }>`with sequence as materialized (select pg_get_serial_sequence('tool_calls', 'id')::regclass as name)
          select nextval(sequence.name) as id from sequence, generate_series(1, ${ID_BLOCK})`.execute(
          this.#context.dialect.db,
        );
        this.#ids.push(...result.rows.map((row) => Number(row.id)).sort((left, right) => left - right));
      } finally {
        this.#reserving = undefined;
      }
    })();
    return this.#reserving;
  }
}
