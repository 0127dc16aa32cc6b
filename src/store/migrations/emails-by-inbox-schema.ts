import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * The email corpus clustered by inbox (SQLite), converting the rows `0002_emails` stored.
 *
 * - **SQLite**: `email_inboxes(id INTEGER PRIMARY KEY, name UNIQUE)` numbers the inboxes, and
 *   `emails` gets an explicit `id INTEGER PRIMARY KEY` of `inbox id × 2^32 + n` (n counts up within the
 *   inbox), so an inbox is one contiguous rowid range and FTS5 answers `rowid BETWEEN` by seeking in
 *   its doclists instead of matching an inbox token. `emails_fts(subject, body)` is an external-content
 *   FTS5 table over `emails` with `detail=column, columnsize=0`: no positions and no per-row sizes,
 *   because ranking and snippets are computed in the application and only need which rows match and
 *   in which column. Triggers keep it in sync inside each writing transaction. Existing rows keep their
 *   order within an inbox (by date, then old rowid) and the index is rebuilt from them.
 * - **PostgreSQL**: nothing changes in the tables (the inbox is a btree filter beside the GIN index).
 *
 * @example
 * ```ts
 * const migrations = { '0003_emails_by_inbox': emailsByInboxSchema(sqliteSchemaDialect) };
 * ```
 */
export function emailsByInboxSchema(schema: SchemaDialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await schema.clusterEmailsByInbox(db);
    },
  };
}
