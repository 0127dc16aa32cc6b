import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * `mcp_stream_events`: events of MCP sessions' SSE streams kept for a client that reconnects with
 * `Last-Event-ID` to another server than the one writing its stream — per session, stream key and
 * sequence number, the JSON-RPC message as JSON text (`NULL` for a stream's empty priming event) and
 * when it expires (milliseconds since the epoch). Only streams a client dropped before their answer
 * are written here. Ending the session deletes its events.
 *
 * @example
 * ```ts
 * const migrations = { '0013_mcp_stream_events': mcpStreamEventsSchema(postgresSchemaDialect) };
 * ```
 */
export function mcpStreamEventsSchema(_schema: SchemaDialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('mcp_stream_events')
        .ifNotExists()
        .addColumn('session_id', 'text', (column) => column.notNull().references('mcp_sessions.id').onDelete('cascade'))
        .addColumn('stream_key', 'text', (column) => column.notNull())
        .addColumn('seq', 'bigint', (column) => column.notNull())
        .addColumn('message', 'text')
        .addColumn('expires_at', 'bigint', (column) => column.notNull())
        .addPrimaryKeyConstraint('mcp_stream_events_pkey', ['session_id', 'stream_key', 'seq'])
        .execute();
      await db.schema
        .createIndex('mcp_stream_events_by_expiry')
        .ifNotExists()
        .on('mcp_stream_events')
        .column('expires_at')
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('mcp_stream_events').ifExists().execute();
    },
  };
}
