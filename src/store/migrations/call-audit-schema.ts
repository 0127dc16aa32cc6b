import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * The call log as an audit trail, and the service's call limits:
 *
 * - `tool_calls` gains who and what: `token_id` (the API token's id, never its secret), `approval_id`
 *   (the approval an approved call ran under), `arguments_digest` (SHA-256 of the canonical JSON of
 *   the arguments, hex) and `result_bytes` (the UTF-8 size of the result's JSON). Existing rows keep
 *   nulls. An index on `created_at` lets retention delete old rows without a scan.
 * - `call_limits`: a workspace's rate limits and concurrency caps, one row per scope and target.
 * - `call_limit_buckets`: each rate limit's token bucket, updated in one statement so that servers on
 *   one database share it; `call_limit_leases`: the calls running under a concurrency cap, each with
 *   an expiry its server renews, so a server that dies frees its slots; `call_limit_locks`: one row per
 *   cap, locked while a lease is taken so that two servers cannot both take the last slot.
 *
 * @example
 * ```ts
 * const migrations = { '0008_call_audit': callAuditSchema(sqliteSchemaDialect) };
 * ```
 */
export function callAuditSchema(schema: SchemaDialect): Migration {
  const { type: timestamp, now } = schema.timestamp;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const column of ['token_id', 'approval_id', 'arguments_digest']) {
        await db.schema.alterTable('tool_calls').addColumn(column, 'text').execute();
      }
      await db.schema.alterTable('tool_calls').addColumn('result_bytes', 'bigint').execute();
      await db.schema.createIndex('idx_tool_calls_created').on('tool_calls').column('created_at').execute();

      await db.schema
        .createTable('call_limits')
        .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('scope', 'text', (column) => column.notNull())
        // '' for the workspace scope, which has no target.
        .addColumn('target', 'text', (column) => column.notNull())
        .addColumn('calls_per_minute', 'double precision')
        .addColumn('burst', 'integer')
        .addColumn('max_concurrent', 'integer')
        .addColumn('created_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addColumn('updated_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addPrimaryKeyConstraint('pk_call_limits', ['workspace_id', 'scope', 'target'])
        .execute();

      await db.schema
        .createTable('call_limit_buckets')
        .addColumn('key', 'text', (column) => column.primaryKey())
        .addColumn('tokens', 'double precision', (column) => column.notNull())
        // Milliseconds since the epoch, by the clock of the server that last took from the bucket.
        .addColumn('refilled_at', 'bigint', (column) => column.notNull())
        .execute();

      await db.schema
        .createTable('call_limit_leases')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('key', 'text', (column) => column.notNull())
        .addColumn('holder', 'text', (column) => column.notNull())
        .addColumn('expires_at', 'bigint', (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('idx_call_limit_leases_key')
        .on('call_limit_leases')
        .columns(['key', 'expires_at'])
        .execute();
      await db.schema.createIndex('idx_call_limit_leases_holder').on('call_limit_leases').column('holder').execute();

      await db.schema
        .createTable('call_limit_locks')
        .addColumn('key', 'text', (column) => column.primaryKey())
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of ['call_limit_locks', 'call_limit_leases', 'call_limit_buckets', 'call_limits']) {
        await db.schema.dropTable(table).execute();
      }
      await db.schema.dropIndex('idx_tool_calls_created').execute();
      for (const column of ['result_bytes', 'arguments_digest', 'approval_id', 'token_id']) {
        await db.schema.alterTable('tool_calls').dropColumn(column).execute();
      }
    },
  };
}
