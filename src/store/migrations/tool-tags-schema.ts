import { type Kysely, type Migration, sql } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * `tools.tags`: a tool's tags as a JSON array of strings (`'[]'` when it has none), so a workspace's
 * own tools can be tagged through the API and every source keeps the tags its definition gives.
 * Existing rows get `'[]'`; built-ins and configuration tools get theirs at the next start or sync.
 *
 * @example
 * ```ts
 * const migrations = { '0007_tool_tags': toolTagsSchema(sqliteSchemaDialect) };
 * ```
 */
export function toolTagsSchema(_schema: SchemaDialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('tools')
        .addColumn('tags', 'text', (column) => column.notNull().defaultTo('[]'))
        .execute();
      // A row's hash now covers its tags: rows hashed without them are rewritten by the next upsert or sync.
      await sql`update tools set definition_hash = null where source = 'builtin'`.execute(db);
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('tools').dropColumn('tags').execute();
    },
  };
}
