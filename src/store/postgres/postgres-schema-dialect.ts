import { sql } from 'kysely';
import type { SchemaDialect } from '../migrations/schema-dialect.js';

/**
 * The PostgreSQL schema: `timestamptz` defaulting to `now()`, `bytea`, identity `bigint` keys, byte-wise
 * `COLLATE "C"` text, and the email index as a generated `tsvector` with a GIN index (no later change).
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
};
