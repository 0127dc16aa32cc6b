import { type Kysely, type Migration, sql } from 'kysely';
import type { StoreDialectName } from '../store-records.js';

/**
 * New emails are indexed by the email store itself (SQLite): the `emails_fts_ai` trigger goes.
 *
 * FTS5 indexes a row written by a trigger about half as fast as the same row written by a statement
 * of its own, and indexing is most of an import's work. `EmailStore.insertBatch` now writes each new
 * email's `emails_fts` row right after the email, in the same transaction, so the index and the table
 * still never disagree. The delete and update triggers stay (nothing in toolshed deletes or edits an
 * email, but a person with a SQL shell might). PostgreSQL's index is a generated column: no change.
 *
 * @example
 * ```ts
 * const migrations = { '0004_emails_indexed_by_store': emailsIndexedByStore('sqlite') };
 * ```
 */
export function emailsIndexedByStore(dialect: StoreDialectName): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') return;
      await sql`drop trigger if exists emails_fts_ai`.execute(db);
    },
  };
}
