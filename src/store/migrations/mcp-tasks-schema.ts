import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * `mcp_tasks`: MCP tasks (tool calls a client polls), kept per workspace and agent view so that they
 * outlive the session and the server that started them — the tool, the status and its message, the
 * stored result (JSON text), the ttl and poll interval the client was given, which server runs the
 * task (`owner`) and until when its lease holds, and the creation, update and expiry times
 * (milliseconds since the epoch). Deleting the workspace deletes its tasks. `tools.task_support`: the
 * tool's `execution.taskSupport` (`null` when it declares none).
 *
 * @example
 * ```ts
 * const migrations = { '0014_mcp_tasks': mcpTasksSchema(sqliteSchemaDialect) };
 * ```
 */
export function mcpTasksSchema(_schema: SchemaDialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('mcp_tasks')
        .ifNotExists()
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('agent_id', 'text')
        .addColumn('tool', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('status_message', 'text')
        .addColumn('result', 'text')
        .addColumn('ttl_ms', 'bigint', (column) => column.notNull())
        .addColumn('poll_interval_ms', 'integer', (column) => column.notNull())
        .addColumn('owner', 'text')
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('created_at', 'bigint', (column) => column.notNull())
        .addColumn('updated_at', 'bigint', (column) => column.notNull())
        .addColumn('expires_at', 'bigint', (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('mcp_tasks_by_workspace')
        .ifNotExists()
        .on('mcp_tasks')
        .columns(['workspace_id', 'created_at', 'id'])
        .execute();
      await db.schema.createIndex('mcp_tasks_by_expiry').ifNotExists().on('mcp_tasks').column('expires_at').execute();
      await db.schema.createIndex('mcp_tasks_by_owner').ifNotExists().on('mcp_tasks').column('owner').execute();
      await db.schema.alterTable('tools').addColumn('task_support', 'text').execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('tools').dropColumn('task_support').execute();
      await db.schema.dropTable('mcp_tasks').ifExists().execute();
    },
  };
}
