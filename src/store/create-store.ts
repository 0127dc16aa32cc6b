import { databaseTarget } from './database-target.js';
import { createPostgresStore } from './postgres/create-postgres-store.js';
import { redactUrl } from './postgres/postgres-driver.js';
import { createSqliteStore } from './sqlite/create-sqlite-store.js';
import { StoreError } from './store-error.js';
import type { StoreOptions } from './store-options.js';
import type { ToolshedStore } from './toolshed-store.js';

/** The SQLite file `createStore` opens when it is given no URL. */
export const DEFAULT_STORE_PATH = './toolshed.db';

/**
 * Open the store a URL names: `postgres://...` (or `postgresql://...`) is PostgreSQL; a path is a
 * SQLite file (an optional `sqlite:` prefix is dropped), `:memory:` a private in-memory SQLite
 * database, and no URL {@link DEFAULT_STORE_PATH}. Call `migrate()` before use.
 *
 * A URL of any other scheme (`mysql://...`, `https://...`) is refused with a {@link StoreError}
 * `UNAVAILABLE` naming the forms it takes, rather than opened as a SQLite file of that name.
 *
 * @example
 * ```ts
 * const store = await createStore(process.env.TOOLSHED_DATABASE_URL);
 * await store.migrate();
 * await store.tools.upsertBuiltins(builtinSpecs);
 * ```
 */
export function createStore(url?: string, options: StoreOptions = {}): Promise<ToolshedStore> {
  const text = url === undefined || url.trim() === '' ? DEFAULT_STORE_PATH : url.trim();
  const target = databaseTarget(text);
  if (target.kind === 'postgres') return createPostgresStore(target.url, options);
  if (target.kind === 'sqlite') return createSqliteStore(target.path, options);
  return Promise.reject(
    new StoreError(
      'UNAVAILABLE',
      `Cannot open '${redactUrl(text)}' as a database: toolshed takes a SQLite file path (or sqlite:PATH) or a PostgreSQL URL (postgres://USER@HOST/DATABASE), and '${target.scheme}:' is neither`,
    ),
  );
}
