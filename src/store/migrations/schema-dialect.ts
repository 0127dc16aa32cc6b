import type { ColumnBuilderCallback, CreateTableBuilder, Kysely, RawBuilder } from 'kysely';

/** A column type as `CreateTableBuilder.addColumn` takes it (a name or a raw SQL expression). */
export type ColumnType = Parameters<CreateTableBuilder<string>['addColumn']>[1];

/**
 * How the store's schema differs between the SQL dialects: the migrations are shared and ask the
 * dialect for these instead of checking its name. One implementation per dialect folder
 * (`sqlite/sqlite-schema-dialect.ts`, `postgres/postgres-schema-dialect.ts`).
 *
 * @example
 * ```ts
 * const { type, now } = schema.timestamp;
 * await db.schema
 *   .createTable('notes')
 *   .addColumn('id', schema.serialKey.type, schema.serialKey.build)
 *   .addColumn('content', schema.binary, (column) => column.notNull())
 *   .addColumn('created_at', type, (column) => column.notNull().defaultTo(now))
 *   .execute();
 * ```
 */
export interface SchemaDialect {
  /**
   * A timestamp column: its type and the default for the current time. `timestamptz` and `now()` on
   * PostgreSQL, ISO-8601 text and the current UTC time with milliseconds on SQLite; the store reads
   * both back as ISO-8601 strings.
   */
  readonly timestamp: { readonly type: 'timestamptz' | 'text'; readonly now: RawBuilder<unknown> };
  /** Bytes: `bytea` / `blob`. */
  readonly binary: 'bytea' | 'blob';
  /** Text compared and ordered byte by byte (SQLite text always is; PostgreSQL needs `COLLATE "C"`). */
  readonly byteOrderedText: ColumnType;
  /** An integer primary key the database numbers: an identity `bigint` / `integer ... autoincrement`. */
  readonly serialKey: { readonly type: 'bigint' | 'integer'; readonly build: ColumnBuilderCallback };
  /** `0002_emails`, after the shared `emails` table: the full-text index over subject and body. */
  createEmailSearch(db: Kysely<unknown>): Promise<void>;
  /** `0003_emails_by_inbox`: lay the emails out so that one inbox is one range the index can seek. */
  clusterEmailsByInbox(db: Kysely<unknown>): Promise<void>;
  /** `0004_emails_search_file`: drop an index kept in the main database file that now lives elsewhere. */
  moveEmailSearchOut(db: Kysely<unknown>): Promise<void>;
  /** `0015_emails_search_by_inbox`: let the full-text index find one inbox's matches by itself. */
  scopeEmailSearchToInbox(db: Kysely<unknown>): Promise<void>;
  /** `0016_emails_search_inline`: keep an email's words in its row, beside what a search sorts by. */
  keepEmailSearchInline(db: Kysely<unknown>): Promise<void>;
}
