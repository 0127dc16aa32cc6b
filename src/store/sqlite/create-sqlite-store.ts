import { KyselyToolshedStore } from '../kysely-toolshed-store.js';
import { resolveStoreOptions, type StoreOptions } from '../store-options.js';
import type { ToolshedStore } from '../toolshed-store.js';
import { SqliteChangeFeed } from './sqlite-change-feed.js';
import { openSqliteDriver } from './sqlite-driver.js';
import { SqliteStoreDialect } from './sqlite-store-dialect.js';

/**
 * A {@link ToolshedStore} over a SQLite file (created when missing; WAL, foreign keys on) or, with
 * `:memory:`, a private in-memory database. Call `migrate()` before use.
 *
 * @example
 * ```ts
 * const store = await createSqliteStore('./toolshed.db');
 * await store.migrate();
 * ```
 */
export async function createSqliteStore(filename: string, options: StoreOptions = {}): Promise<ToolshedStore> {
  const resolved = resolveStoreOptions(options);
  const driver = await openSqliteDriver(filename, resolved);
  return new KyselyToolshedStore(new SqliteStoreDialect(driver), new SqliteChangeFeed(resolved.onError), resolved);
}
