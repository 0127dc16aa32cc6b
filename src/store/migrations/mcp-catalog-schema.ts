import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * `mcp_catalog(workspace_id, kind, key, name, description, definition, agents, source, origin,
 * created_at, updated_at)`: the prompts, resources and resource templates a workspace serves over MCP,
 * one row each, PK `(workspace_id, kind, key)` — `key` is a prompt's name, a resource's URI or a
 * template's URI template — FK `workspace_id` → `workspaces` ON DELETE CASCADE. `definition` is the
 * declarative definition as JSON text (a `prompts:` or `resources:` entry of a configuration), `agents`
 * a JSON array of the agent ids whose endpoints serve it; `source` and `origin` say where it came
 * from, as for tools. Timestamps as in `0001_initial_schema`.
 *
 * @example
 * ```ts
 * const migrations = { '0010_prompts_resources': mcpCatalogSchema(sqliteSchemaDialect) };
 * ```
 */
export function mcpCatalogSchema(schema: SchemaDialect): Migration {
  const { type: timestamp, now } = schema.timestamp;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('mcp_catalog')
        .ifNotExists()
        .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('key', 'text', (column) => column.notNull())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('description', 'text')
        .addColumn('definition', 'text', (column) => column.notNull())
        .addColumn('agents', 'text', (column) => column.notNull().defaultTo('[]'))
        .addColumn('source', 'text', (column) => column.notNull().defaultTo('config'))
        .addColumn('origin', 'text')
        .addColumn('created_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addColumn('updated_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addPrimaryKeyConstraint('pk_mcp_catalog', ['workspace_id', 'kind', 'key'])
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('mcp_catalog').ifExists().execute();
    },
  };
}
