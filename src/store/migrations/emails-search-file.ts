import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * The SQLite email index moves to a database file of its own (`<database>-search`, see
 * `SqliteEmailIndex` in `src/emails/sqlite-email-index.ts`), so an import can index on a second thread
 * while the emails are stored on the first.
 *
 * This drops the index of `0003_emails_by_inbox` from the main file (`emails_fts` and its three
 * triggers). The new index is not built here: the email store builds whatever its index lacks the
 * first time it is used, which for a database migrated from `0003` is every email. PostgreSQL's index
 * is a generated column and a GIN index: no change.
 *
 * @example
 * ```ts
 * const migrations = { '0004_emails_search_file': emailsSearchFile(sqliteSchemaDialect) };
 * ```
 */
export function emailsSearchFile(schema: SchemaDialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await schema.moveEmailSearchOut(db);
    },
  };
}
