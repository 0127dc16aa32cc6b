import type { Kysely, Migration } from 'kysely';
import type { SchemaDialect } from './schema-dialect.js';

/**
 * `secrets(workspace_id, name, value_encrypted, created_at, updated_at)`: each workspace's named
 * secrets for its REST tools, PK `(workspace_id, name)`, FK `workspace_id` → `workspaces` ON DELETE
 * CASCADE. `value_encrypted` is AES-256-GCM ciphertext (`bytea` / `blob`); the plaintext is never
 * stored. Timestamps as in `0001_initial_schema`.
 *
 * @example
 * ```ts
 * const migrations = { '0005_secrets': secretsSchema(postgresSchemaDialect) };
 * ```
 */
export function secretsSchema(schema: SchemaDialect): Migration {
  const { type: timestamp, now } = schema.timestamp;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('secrets')
        .ifNotExists()
        .addColumn('workspace_id', 'text', (column) => column.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('value_encrypted', schema.binary, (column) => column.notNull())
        .addColumn('created_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addColumn('updated_at', timestamp, (column) => column.notNull().defaultTo(now))
        .addPrimaryKeyConstraint('pk_secrets', ['workspace_id', 'name'])
        .execute();
    },

    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('secrets').ifExists().execute();
    },
  };
}
