import type { SqliteDatabase } from 'kysely';
import { StoreError } from '../store-error.js';

/**
 * The part of a better-sqlite3 `Database` the store uses. Declared here, structurally, so the store
 * does not depend on better-sqlite3's types (Kysely's `SqliteDatabase` does the same).
 */
export interface SqliteDriver extends SqliteDatabase {
  /** Whether a transaction is open (SQLite may have rolled one back by itself after an error). */
  readonly inTransaction: boolean;
  /** The file it was opened on (`:memory:` for an in-memory database). */
  readonly name: string;
  /** Whether it is an in-memory (or temporary) database. */
  readonly memory: boolean;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Run SQL text (one or more statements) without results. */
  exec(source: string): unknown;
}

/** better-sqlite3's `Database` constructor, as far as the store calls it. */
export interface SqliteDriverConstructor {
  new (filename: string, options?: { timeout?: number }): SqliteDriver;
}

/** Options of {@link openSqliteDriver}. */
export interface SqliteDriverOptions {
  /** How long a writer waits for another connection's lock, in milliseconds. */
  busyTimeoutMs: number;
}

/**
 * Open (or create) a SQLite database file with better-sqlite3, set up for a server: WAL journal (file
 * databases), `foreign_keys = ON` (the cascades depend on it), `busy_timeout`, and `synchronous =
 * NORMAL` (durable at every checkpoint; safe with WAL). `:memory:` opens a private in-memory database.
 * Throws {@link StoreError} `UNAVAILABLE` when the driver cannot load or the file cannot be opened
 * (missing folder, not a database, no permission).
 *
 * @example
 * ```ts
 * const driver = await openSqliteDriver('./toolshed.db', { busyTimeoutMs: 5000 });
 * ```
 */
export async function openSqliteDriver(filename: string, options: SqliteDriverOptions): Promise<SqliteDriver> {
  const Database = await loadSqliteDriver();
  let driver: SqliteDriver;
  try {
    driver = new Database(filename, { timeout: options.busyTimeoutMs });
  } catch (error) {
    throw new StoreError('UNAVAILABLE', `Cannot open the SQLite database '${filename}': ${reason(error)}`, {
      cause: error,
    });
  }
  try {
    if (filename !== ':memory:' && filename !== '') driver.pragma('journal_mode = WAL');
    driver.pragma('foreign_keys = ON');
    driver.pragma(`busy_timeout = ${Math.floor(options.busyTimeoutMs)}`);
    driver.pragma('synchronous = NORMAL');
  } catch (error) {
    driver.close();
    throw new StoreError('UNAVAILABLE', `Cannot use '${filename}' as a SQLite database: ${reason(error)}`, {
      cause: error,
    });
  }
  return driver;
}

/**
 * better-sqlite3's `Database` constructor, loaded on demand (a PostgreSQL deployment never loads the
 * native SQLite module). Throws {@link StoreError} `UNAVAILABLE` when it cannot be loaded.
 *
 * @example
 * ```ts
 * const Database = await loadSqliteDriver();
 * const driver = new Database('./toolshed.db', { timeout: 5000 });
 * ```
 */
export async function loadSqliteDriver(): Promise<SqliteDriverConstructor> {
  try {
    const module = (await import('better-sqlite3')) as unknown as { default: SqliteDriverConstructor };
    return module.default;
  } catch (error) {
    throw new StoreError('UNAVAILABLE', `The SQLite driver (better-sqlite3) could not be loaded: ${reason(error)}`, {
      cause: error,
    });
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
