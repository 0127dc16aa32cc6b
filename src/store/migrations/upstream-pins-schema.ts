import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * `upstream_pins`: the definition of each tool an MCP server (`mcp_servers:`) gave a workspace, as it
 * was first seen or last approved — its SHA-256 in `definition_hash`, the definition itself (canonical
 * JSON of the name, description, schemas and annotations) in `definition` — and, while the server
 * lists a different one, that one in `pending_hash`, `pending_definition` and `pending_since`: the tool
 * is quarantined until someone approves the change. One row per workspace, server and upstream tool
 * name; deleting the workspace deletes its pins.
 *
 * @example
 * ```ts
 * const migrations = { '0009_upstream_pins': upstreamPinsSchema(sqliteSchemaDialect) };
 * ```
 */
export function upstreamPinsSchema(schema: SchemaDialect): Migration {
  const { type: timestamp, now } = schema.timestamp;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('upstream_pins')
        .ifNotExists()
        .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('server', 'text', (column) => column.notNull())
        .addColumn('tool', 'text', (column) => column.notNull())
        .addColumn('definition_hash', 'text', (column) => column.notNull())
        .addColumn('definition', 'text', (column) => column.notNull())
        .addColumn('approved_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addColumn('pending_hash', 'text')
        .addColumn('pending_definition', 'text')
        .addColumn('pending_since', timestamp)
        .addPrimaryKeyConstraint('pk_upstream_pins', ['workspace_id', 'server', 'tool'])
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('upstream_pins').ifExists().execute();
    },
  };
}
