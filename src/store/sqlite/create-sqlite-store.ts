import { KyselyToolshedStore } from '../kysely-toolshed-store.js';
import { SECRET_KEY_FILE_SUFFIX, SecretKeyring } from '../secret-key.js';
import { resolveStoreOptions, type StoreOptions } from '../store-options.js';
import type { ToolshedStore } from '../toolshed-store.js';
import { SqliteChangeFeed } from './sqlite-change-feed.js';
import { openSqliteDriver } from './sqlite-driver.js';
import { SqliteStoreDialect } from './sqlite-store-dialect.js';

/**
 * A {@link ToolshedStore} over a SQLite file (created when missing; WAL, foreign keys on) or, with
 * `:memory:`, a private in-memory database. Call `migrate()` before use. Workspace secrets are
 * encrypted with `TOOLSHED_SECRET_KEY` (or the `secretKey` option) when given, else with the key in
 * `<database>-secret.key` (made with the first secret); an existing key file that other users may
 * read, or that is malformed, fails here with {@link StoreError} `SECRET_KEY`.
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
  const keys = new SecretKeyring(
    resolved.secretKey !== undefined
      ? { kind: 'given', key: resolved.secretKey }
      : driver.memory
        ? { kind: 'ephemeral' }
        : { kind: 'file', path: `${driver.name}${SECRET_KEY_FILE_SUFFIX}` },
  );
  try {
    keys.check();
  } catch (error) {
    driver.close();
    throw error;
  }
  return new KyselyToolshedStore(
    new SqliteStoreDialect(driver),
    new SqliteChangeFeed(resolved.onError),
    resolved,
    keys,
  );
}
