import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import type { StoreChange, StoreChangeListener } from './store-records.js';

/**
 * How a dialect delivers {@link StoreChange}s: published inside the transaction that made them and
 * delivered to listeners only once it committed (a rolled-back change is never announced).
 *
 * @example
 * ```ts
 * await dialect.transaction(async (trx) => {
 *   await trx.deleteFrom('agent_tools').where('agent_id', '=', 'research').execute();
 *   await feed.publish(trx, [{ workspaceId: 'default', agentId: 'research', kind: 'attachment' }]);
 * });
 * feed.committed([{ workspaceId: 'default', agentId: 'research', kind: 'attachment' }]);
 * ```
 */
export interface ChangeFeed {
  /** Called inside the transaction (PostgreSQL sends `pg_notify`, which the server delivers at commit). */
  publish(trx: Kysely<Database>, changes: readonly StoreChange[]): Promise<void>;
  /** Called after the commit (SQLite delivers to this process's listeners here). */
  committed(changes: readonly StoreChange[]): void;
  subscribe(listener: StoreChangeListener): () => void;
  /**
   * Send a short text (at most {@link MAX_SIGNAL_BYTES} bytes) to every listening process at once,
   * outside any transaction: on PostgreSQL a `NOTIFY` on its own channel, on SQLite in this process.
   */
  signal(payload: string): Promise<void>;
  /** Hear every signal, this process's own included. Returns a function that stops listening. */
  onSignal(listener: (payload: string) => void): () => void;
  close(): Promise<void>;
}

/**
 * The largest signal payload in bytes: PostgreSQL refuses a `NOTIFY` payload of 8000 bytes or more.
 *
 * @example
 * ```ts
 * if (Buffer.byteLength(text) > MAX_SIGNAL_BYTES) throw new RangeError('too long to signal');
 * ```
 */
export const MAX_SIGNAL_BYTES = 7900;
