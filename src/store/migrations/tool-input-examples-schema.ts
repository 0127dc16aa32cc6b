import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * `tools.input_examples`: a tool's example arguments as a JSON array of objects, `null` when it has
 * none, so every surface that reads a tool row (the REST views, the web catalog) shows what its
 * definition gives. Rows without examples keep their definition hash.
 *
 * @example
 * ```ts
 * const migrations = { '0011_tool_input_examples': toolInputExamplesSchema(sqliteSchemaDialect) };
 * ```
 */
export function toolInputExamplesSchema(_schema: SchemaDialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('tools').addColumn('input_examples', 'text').execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('tools').dropColumn('input_examples').execute();
    },
  };
}
