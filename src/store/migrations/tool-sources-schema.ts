import { type Kysely, type Migration, sql } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * Every tool and agent a row with where it came from, and the workspace's tool sets:
 *
 * - `tools.source` (`builtin`, `config`, `module`, `mcp:<server>`, `api`, `code`; existing global rows
 *   become `builtin`, workspace rows `api`), `tools.origin` (the configuration file a synced row came
 *   from), `tools.definition_hash` (SHA-256 of what the row was built from) and `tools.updated_at`;
 * - `agents.source` (`api` or `config`), `agents.origin`, `agents.updated_at`, and
 *   `agents.had_attachments` (1 once a tool was ever attached: such an agent never falls back to the
 *   workspace's default set again);
 * - `workspaces.custom_default_tools` (1 when the workspace chose its default set, kept in
 *   `workspace_default_tools`; 0 means every tool the workspace sees) and `workspace_hidden_tools`
 *   (global tools the workspace does not have at all, such as the built-ins its configuration leaves out).
 *
 * `updated_at` is nullable so the columns can be added to existing tables on SQLite; rows written from
 * now on always set it, and existing rows get their `created_at`.
 *
 * @example
 * ```ts
 * const migrations = { '0006_tool_sources': toolSourcesSchema(sqliteSchemaDialect) };
 * ```
 */
export function toolSourcesSchema(schema: SchemaDialect): Migration {
  const { type: timestamp, now } = schema.timestamp;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('tools')
        .addColumn('source', 'text', (column) => column.notNull().defaultTo('api'))
        .execute();
      await db.schema.alterTable('tools').addColumn('origin', 'text').execute();
      await db.schema.alterTable('tools').addColumn('definition_hash', 'text').execute();
      await db.schema.alterTable('tools').addColumn('updated_at', timestamp).execute();
      await sql`update tools set source = 'builtin' where workspace_id is null`.execute(db);
      await sql`update tools set updated_at = created_at`.execute(db);
      await db.schema
        .createIndex('idx_tools_workspace_source')
        .on('tools')
        .columns(['workspace_id', 'source'])
        .execute();

      await db.schema
        .alterTable('agents')
        .addColumn('source', 'text', (column) => column.notNull().defaultTo('api'))
        .execute();
      await db.schema.alterTable('agents').addColumn('origin', 'text').execute();
      await db.schema.alterTable('agents').addColumn('updated_at', timestamp).execute();
      await db.schema
        .alterTable('agents')
        .addColumn('had_attachments', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
      await sql`update agents set updated_at = created_at`.execute(db);
      await sql`update agents set had_attachments = 1 where id in (select agent_id from agent_tools)`.execute(db);

      await db.schema
        .alterTable('workspaces')
        .addColumn('custom_default_tools', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createTable('workspace_default_tools')
        .ifNotExists()
        .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('tool_id', 'text', (column) => column.notNull().references('tools.id').onDelete('cascade'))
        .addColumn('created_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addPrimaryKeyConstraint('pk_workspace_default_tools', ['workspace_id', 'tool_id'])
        .execute();
      await db.schema
        .createTable('workspace_hidden_tools')
        .ifNotExists()
        .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('tool_id', 'text', (column) => column.notNull().references('tools.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('pk_workspace_hidden_tools', ['workspace_id', 'tool_id'])
        .execute();
      await db.schema
        .createIndex('idx_workspace_default_tools_tool')
        .on('workspace_default_tools')
        .column('tool_id')
        .execute();
      await db.schema
        .createIndex('idx_workspace_hidden_tools_tool')
        .on('workspace_hidden_tools')
        .column('tool_id')
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('workspace_hidden_tools').ifExists().execute();
      await db.schema.dropTable('workspace_default_tools').ifExists().execute();
      await db.schema.alterTable('workspaces').dropColumn('custom_default_tools').execute();
      for (const column of ['had_attachments', 'updated_at', 'origin', 'source']) {
        await db.schema.alterTable('agents').dropColumn(column).execute();
      }
      await db.schema.dropIndex('idx_tools_workspace_source').ifExists().execute();
      for (const column of ['updated_at', 'definition_hash', 'origin', 'source']) {
        await db.schema.alterTable('tools').dropColumn(column).execute();
      }
    },
  };
}
