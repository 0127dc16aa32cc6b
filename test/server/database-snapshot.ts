import { sql } from 'kysely';
import type { ToolshedStore } from '../../src/store/index.js';

/**
 * Every row of every table of a store's database as text, rows sorted, so two snapshots are equal
 * exactly when the database holds the same data (both dialects: the tables come from Kysely's
 * introspection).
 */
export async function databaseSnapshot(store: ToolshedStore): Promise<Record<string, string[]>> {
  const tables = await store.db.introspection.getTables();
  const snapshot: Record<string, string[]> = {};
  for (const table of tables.map((each) => each.name).sort()) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(store.db);
    snapshot[table] = rows
      .map((row) => JSON.stringify(row, (_key, value) => (Buffer.isBuffer(value) ? value.toString('hex') : value)))
      .sort();
  }
  return snapshot;
}
