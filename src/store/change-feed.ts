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
  close(): Promise<void>;
}
