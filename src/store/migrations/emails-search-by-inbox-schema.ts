import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * The email search index scoped to the inbox and the month (PostgreSQL).
 *
 * - **PostgreSQL**: `idx_emails_search` becomes one GIN index over two keys of each email and its
 *   `search` words. The keys are the inbox (`<inbox> *`) and the inbox's month of the email
 *   (`<inbox> 2001-05`; `<inbox> other` for a date not starting with a year and month). A search then
 *   finds one word's matches in one inbox and a few months of it inside the index, exact, instead of
 *   every email of the corpus having the word intersected with the inbox's whole btree range, and it can
 *   read the most recent months first. Only built-in operator classes are used (`array_ops`,
 *   `tsvector_ops`). The index is rebuilt from the stored rows (about two minutes at 500 000 emails on a
 *   busy two-core machine), without the store's statement timeout.
 * - **SQLite**: nothing changes (an inbox is already one rowid range of the FTS5 index, in storing order).
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
