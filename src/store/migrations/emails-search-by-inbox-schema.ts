import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * The email search index scoped to the inbox (PostgreSQL).
 *
 * - **PostgreSQL**: `idx_emails_search` becomes one GIN index over `(inbox, search)` (the `btree_gin`
 *   extension, created here, gives text a GIN operator class), so a search's `inbox = $1 AND search @@ …`
 *   is answered inside the index: the matches of that inbox only, exact, instead of every email of the
 *   corpus having the word intersected with the inbox's whole btree range. The index is rebuilt from the
 *   stored rows (about a minute at 500 000 emails), without the store's statement timeout. Where
 *   `btree_gin` cannot be created (not installed, or the role may not create extensions) the index is
 *   left as it was and searches work as before.
 * - **SQLite**: nothing changes (an inbox is already one rowid range of the FTS5 index).
 *
 * @example
 * ```ts
 * const migrations = { '0015_emails_search_by_inbox': emailsSearchByInboxSchema(postgresSchemaDialect) };
 * ```
 */
export function emailsSearchByInboxSchema(schema: SchemaDialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await schema.scopeEmailSearchToInbox(db);
    },
  };
}
