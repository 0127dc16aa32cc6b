import { createPostgresStore } from './postgres/create-postgres-store.js';
import { createSqliteStore } from './sqlite/create-sqlite-store.js';
import type { StoreOptions } from './store-options.js';
import type { ToolshedStore } from './toolshed-store.js';

/** The SQLite file `createStore` opens when it is given no URL. */
export const DEFAULT_STORE_PATH = './toolshed.db';

/**
 * Open the store a URL names: `postgres://...` (or `postgresql://...`) is PostgreSQL; anything else is
 * a SQLite file path (an optional `sqlite:` prefix is dropped), `:memory:` a private in-memory
 * SQLite database, and no URL {@link DEFAULT_STORE_PATH}. Call `migrate()` before use.
 *
 * @example
 * ```ts
 * const store = await createStore(process.env.TOOLSHED_DATABASE_URL);
 * await store.migrate();
 * await store.tools.upsertBuiltins(builtinSpecs);
 * ```
 */
export function createStore(url?: string, options: StoreOptions = {}): Promise<ToolshedStore> {
  const target = url === undefined || url.trim() === '' ? DEFAULT_STORE_PATH : url.trim();
  if (/^postgres(ql)?:\/\//i.test(target)) return createPostgresStore(target, options);
  return createSqliteStore(target.startsWith('sqlite:') ? target.slice('sqlite:'.length) : target, options);
}
