import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * `mcp_sessions`: the MCP sessions over Streamable HTTP that any server on the database may answer —
 * the session id, who opened it (workspace, agent view, token, and the endpoint scope it answers on),
 * what its `initialize` said (protocol version, client info, client capabilities), when it was created
 * and last seen, and when it expires (milliseconds since the epoch, pushed forward while it is in
 * use). Deleting the workspace deletes its sessions.
 *
 * @example
 * ```ts
 * const migrations = { '0012_mcp_sessions': mcpSessionsSchema(postgresSchemaDialect) };
 * ```
 */
export function mcpSessionsSchema(schema: SchemaDialect): Migration {
  const { type: timestamp, now } = schema.timestamp;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('mcp_sessions')
        .ifNotExists()
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('agent_id', 'text')
        .addColumn('token_id', 'text')
        .addColumn('scope', 'text', (column) => column.notNull())
        .addColumn('protocol_version', 'text', (column) => column.notNull())
        .addColumn('client_info', 'text', (column) => column.notNull())
        .addColumn('client_capabilities', 'text', (column) => column.notNull())
        .addColumn('created_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addColumn('last_seen_at', 'bigint', (column) => column.notNull())
        .addColumn('expires_at', 'bigint', (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('mcp_sessions_by_expiry')
        .ifNotExists()
        .on('mcp_sessions')
        .column('expires_at')
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('mcp_sessions').ifExists().execute();
    },
  };
}
