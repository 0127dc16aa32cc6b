import { sql } from 'kysely';
import type { SchemaDialect } from '../migrations/schema-dialect.js';

/**
 * The PostgreSQL schema: `timestamptz` defaulting to `now()`, `bytea`, identity `bigint` keys, byte-wise
 * `COLLATE "C"` text, and the email index as a generated `tsvector` with a GIN index, which also holds each
 * email's inbox and month since `0015_emails_search_by_inbox`.
 *
 * @example
 * ```ts
 * const migrator = new Migrator({ db, provider: new ToolshedMigrationProvider(postgresSchemaDialect), ...MIGRATION_TABLES });
 * ```
 */
export const postgresSchemaDialect: SchemaDialect = {
  timestamp: { type: 'timestamptz', now: sql`now()` },
  binary: 'bytea',
  byteOrderedText: sql`text collate "C"`,
  serialKey: { type: 'bigint', build: (column) => column.primaryKey().generatedAlwaysAsIdentity() },

  async createEmailSearch(db) {
    await sql`alter table emails add column if not exists search tsvector generated always as (
          setweight(to_tsvector('english', coalesce(subject, '')), 'A') ||
          setweight(to_tsvector('english', coalesce(body, '')), 'B')
        ) stored`.execute(db);
    await sql`create index if not exists idx_emails_search on emails using gin (search)`.execute(db);
    await sql`create index if not exists idx_emails_inbox on emails (inbox)`.execute(db);
  },

  async clusterEmailsByInbox() {
    // The inbox is a btree filter beside the GIN index: nothing to change.
  },

  async moveEmailSearchOut() {
    // The index is a generated column and a GIN index in the tables: nothing to move.
  },

  async scopeEmailSearchToInbox(db) {
    // Rebuilding the index of a large corpus outlasts the store's statement timeout; both settings are
    // put back for the migrations that follow in the same transaction.
    const settings = await sql<{ timeout: string; memory: string }>`select
      current_setting('statement_timeout') as timeout, current_setting('maintenance_work_mem') as memory`.execute(db);
    await sql`set local statement_timeout = 0`.execute(db);
    await sql`set local maintenance_work_mem = '256MB'`.execute(db);
    await sql`drop index if exists idx_emails_search`.execute(db);
    await sql`create index idx_emails_search on emails using gin ((array[inbox || ' *',
        inbox || ' ' || case when date ~ '^[0-9]{4}-(0[1-9]|1[0-2])' then left(date, 7) else 'other' end]), search)`.execute(
      db,
    );
    const previous = settings.rows[0];
    if (previous !== undefined) {
      await sql`select set_config('statement_timeout', ${previous.timeout}, true),
        set_config('maintenance_work_mem', ${previous.memory}, true)`.execute(db);
    }
  },
  async keepEmailSearchInline(db) {
    // Only the catalog changes: rows are laid out so as they are written (decision 018).
    await sql`alter table emails alter column search set storage main,
      alter column message_id set storage plain, alter column inbox set storage plain,
      alter column date set storage plain`.execute(db);
  },
};
