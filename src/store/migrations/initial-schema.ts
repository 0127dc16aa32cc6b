import { type Kysely, type Migration, sql } from 'kysely';
import { TOOL_CALL_STATUSES } from '../store-records.js';
import type { SchemaDialect } from './schema-dialect.js';

const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'used'] as const;

/**
 * The first schema: workspaces, api_tokens, tools, agents, agent_tools, files, tool_calls and
 * approvals, with the column names of the database-backed registry design.
 *
 * SQL differs between the dialects only in types and defaults ({@link SchemaDialect}): timestamps are `timestamptz` on
 * PostgreSQL and ISO-8601 `text` on SQLite; file contents `bytea` / `blob`; the call log's id an
 * identity `bigint` / `integer ... autoincrement`; and `files.path` compares byte-wise (`COLLATE "C"`)
 * on PostgreSQL, as SQLite text always does, so path ranges and ordering agree. JSON is stored as
 * text in both (PostgreSQL's `jsonb` would reorder a schema's properties and refuse `\u0000`).
 *
 * @example
 * ```ts
 * const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ '0001_initial_schema': initialSchema(sqliteSchemaDialect) }) } });
 * await migrator.migrateToLatest();
 * ```
 */
export function initialSchema(schema: SchemaDialect): Migration {
  const { type: timestamp, now } = schema.timestamp;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('workspaces')
        .ifNotExists()
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('created_at', timestamp, (column) => column.notNull().defaultTo(now))
        .execute();

      await db.schema
        .createTable('api_tokens')
        .ifNotExists()
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('token_hash', 'text', (column) => column.notNull().unique())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('created_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addColumn('revoked_at', timestamp)
        .execute();
      await db.schema
        .createIndex('idx_api_tokens_workspace')
        .ifNotExists()
        .on('api_tokens')
        .column('workspace_id')
        .execute();

      // `id` is the primary key, so a workspace tool can never take a global tool's id (nor another
      // workspace's); the (workspace_id, id) index serves "the tools of this workspace".
      await db.schema
        .createTable('tools')
        .ifNotExists()
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('workspace_id', 'text', (column) => column.references('workspaces.id').onDelete('cascade'))
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('description', 'text', (column) => column.notNull())
        .addColumn('parameters_schema', 'text', (column) => column.notNull())
        .addColumn('handler_key', 'text', (column) => column.notNull())
        .addColumn('category', 'text', (column) => column.notNull().defaultTo('general'))
        .addColumn('created_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addColumn('when_to_use', 'text')
        .addColumn('annotations', 'text', (column) => column.notNull().defaultTo('{}'))
        .addColumn('requires', 'text', (column) => column.notNull().defaultTo('{}'))
        .addColumn('config', 'text')
        .execute();
      await db.schema.createIndex('idx_tools_category').ifNotExists().on('tools').column('category').execute();
      await db.schema.createIndex('idx_tools_handler').ifNotExists().on('tools').column('handler_key').execute();
      await db.schema
        .createIndex('ux_tools_workspace_id')
        .ifNotExists()
        .unique()
        .on('tools')
        .columns(['workspace_id', 'id'])
        .execute();

      await db.schema
        .createTable('agents')
        .ifNotExists()
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('description', 'text')
        .addColumn('created_at', timestamp, (column) => column.notNull().defaultTo(now))
        .execute();
      await db.schema
        .createIndex('idx_agents_workspace')
        .ifNotExists()
        .on('agents')
        .columns(['workspace_id', 'id'])
        .execute();

      await db.schema
        .createTable('agent_tools')
        .ifNotExists()
        .addColumn('agent_id', 'text', (column) => column.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('tool_id', 'text', (column) => column.notNull().references('tools.id').onDelete('cascade'))
        .addColumn('config', 'text')
        .addColumn('created_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addPrimaryKeyConstraint('pk_agent_tools', ['agent_id', 'tool_id'])
        .execute();
      await db.schema.createIndex('idx_agent_tools_agent').ifNotExists().on('agent_tools').column('agent_id').execute();
      await db.schema.createIndex('idx_agent_tools_tool').ifNotExists().on('agent_tools').column('tool_id').execute();

      await db.schema
        .createTable('files')
        .ifNotExists()
        .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('path', schema.byteOrderedText, (column) => column.notNull())
        .addColumn('content', schema.binary, (column) => column.notNull())
        .addColumn('size', 'integer', (column) => column.notNull())
        .addColumn('updated_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addPrimaryKeyConstraint('pk_files', ['workspace_id', 'path'])
        .execute();

      await db.schema
        .createTable('tool_calls')
        .ifNotExists()
        .addColumn('id', schema.serialKey.type, schema.serialKey.build)
        .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
        // No foreign keys on agent_id and tool_id: the log outlives deleted agents and tools.
        .addColumn('agent_id', 'text')
        .addColumn('tool_id', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('error_code', 'text')
        .addColumn('duration_ms', 'integer', (column) => column.notNull())
        .addColumn('created_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addCheckConstraint(
          'ck_tool_calls_status',
          sql`status in (${sql.join(TOOL_CALL_STATUSES.map((status) => sql.lit(status)))})`,
        )
        .execute();
      await db.schema
        .createIndex('idx_tool_calls_workspace_recent')
        .ifNotExists()
        .on('tool_calls')
        .columns(['workspace_id', 'id'])
        .execute();
      await db.schema
        .createIndex('idx_tool_calls_agent_recent')
        .ifNotExists()
        .on('tool_calls')
        .columns(['workspace_id', 'agent_id', 'id'])
        .execute();

      await db.schema
        .createTable('approvals')
        .ifNotExists()
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('agent_id', 'text')
        .addColumn('tool_id', 'text', (column) => column.notNull())
        .addColumn('tool_call_id', 'text')
        .addColumn('arguments', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull().defaultTo('pending'))
        .addColumn('created_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addColumn('decided_at', timestamp)
        .addCheckConstraint(
          'ck_approvals_status',
          sql`status in (${sql.join(APPROVAL_STATUSES.map((status) => sql.lit(status)))})`,
        )
        .execute();
      await db.schema
        .createIndex('idx_approvals_workspace_status')
        .ifNotExists()
        .on('approvals')
        .columns(['workspace_id', 'status'])
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of [
        'approvals',
        'tool_calls',
        'files',
        'agent_tools',
        'agents',
        'tools',
        'api_tokens',
        'workspaces',
      ]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
