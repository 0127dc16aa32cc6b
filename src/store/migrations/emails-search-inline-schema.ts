import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * Each email's words kept beside the columns a search sorts by (PostgreSQL).
 *
 * - **PostgreSQL**: `search` is stored `MAIN` (compressed in the row, moved out of it only when the row
 *   cannot fit otherwise) and `message_id`, `inbox` and `date` `PLAIN` (never compressed or moved), so
 *   the body and the other long text leave the row first. A search then ranks each candidate from the
 *   page it read the candidate from, instead of fetching its `tsvector` through the TOAST table (about
 *   four buffer reads each), and sorting by date and id never reads anything back. Rows written before
 *   keep their layout until the table is rewritten (`VACUUM FULL emails`); nothing is rewritten here, so
 *   the migration is instant whatever the corpus's size. See decision 018.
 * - **SQLite**: nothing changes (FTS5 keeps its index apart from the rows).
 *
 * @example
 * ```ts
 * const migrations = { '0016_emails_search_inline': emailsSearchInlineSchema(postgresSchemaDialect) };
 * ```
 */
export function emailsSearchInlineSchema(schema: SchemaDialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await schema.keepEmailSearchInline(db);
    },
  };
}
