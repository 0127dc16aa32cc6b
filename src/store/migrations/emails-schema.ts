import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * The email corpus behind `email_search` / `email_get`: `emails(message_id PK, inbox, subject, sender,
 * recipients, date, body)` plus a full-text index.
 *
 * - **SQLite**: an FTS5 external-content table `emails_fts(subject, body, inbox_tok)` over the view
 *   `emails_fts_source`, kept in sync by triggers on `emails`. `inbox_tok` is one token per inbox
 *   (`ib` + the hex of the inbox), so the inbox filter is part of the index lookup
 *   (`inbox_tok : "ib…" AND {subject body} : (…)`) rather than a post-filter over every match.
 * - **PostgreSQL**: a stored generated `tsvector` (`english`; subject weighted A, body B), a GIN index
 *   on it and a btree on `inbox`; snippets come from `ts_headline`.
 *
 * The index is the dialect's ({@link SchemaDialect.createEmailSearch}). `recipients` is a JSON array as text; `date` ISO-8601 text in both dialects.
 *
 * @example
 * ```ts
 * const migrations = { '0002_emails': emailsSchema(sqliteSchemaDialect) };
 * ```
 */
export function emailsSchema(schema: SchemaDialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('emails')
        .ifNotExists()
        .addColumn('message_id', 'text', (column) => column.primaryKey())
        .addColumn('inbox', 'text', (column) => column.notNull())
        .addColumn('subject', 'text', (column) => column.notNull().defaultTo(''))
        .addColumn('sender', 'text', (column) => column.notNull().defaultTo(''))
        .addColumn('recipients', 'text', (column) => column.notNull().defaultTo('[]'))
        .addColumn('date', 'text', (column) => column.notNull())
        .addColumn('body', 'text', (column) => column.notNull().defaultTo(''))
        .execute();
      await db.schema
        .createIndex('idx_emails_inbox_date')
        .ifNotExists()
        .on('emails')
        .columns(['inbox', 'date'])
        .execute();

      await schema.createEmailSearch(db);
    },
  };
}
