import { sql } from 'kysely';
import { KyselyToolshedStore } from '../kysely-toolshed-store.js';
import { SecretKeyring } from '../secret-key.js';
import { StoreError } from '../store-error.js';
import { resolveStoreOptions, type StoreOptions } from '../store-options.js';
import type { ToolshedStore } from '../toolshed-store.js';
import { PostgresChangeFeed } from './postgres-change-feed.js';
import { loadPostgresDriver, redactUrl } from './postgres-driver.js';
import { PostgresStoreDialect } from './postgres-store-dialect.js';
import { ResilientPool } from './resilient-pool.js';

/**
 * A {@link ToolshedStore} over PostgreSQL (`postgres://user:password@host:port/database`). Connects
 * before returning, so a wrong URL or an unreachable server fails here with {@link StoreError}
 * `UNAVAILABLE` (the password is never quoted), and, unless `notifications: false`, starts
 * LISTENing for other processes' changes. Statements are cut off after `statementTimeoutMs`; a lost
 * connection is replaced and a transaction it cut short runs again (see `ResilientPool`). Call `migrate()` before use. Workspace secrets need
 * `TOOLSHED_SECRET_KEY` (or the `secretKey` option), the same on every process on the database.
 *
 * @example
 * ```ts
 * const store = await createPostgresStore('postgres://toolshed@127.0.0.1:5432/toolshed');
 * await store.migrate();
 * ```
 */
export async function createPostgresStore(url: string, options: StoreOptions = {}): Promise<ToolshedStore> {
  const resolved = resolveStoreOptions(options);
  const driver = await loadPostgresDriver();
  // Without a timeout, a host that drops packets would hold createStore (and every query waiting
  // for a connection) for as long as the operating system keeps trying.
  const connection = {
    connectionString: url,
    connectionTimeoutMillis: 30_000,
    statement_timeout: resolved.statementTimeoutMs,
    idle_in_transaction_session_timeout: resolved.statementTimeoutMs * 2,
    application_name: resolved.applicationName,
    keepAlive: true,
  };
  const pool = new driver.Pool({ ...connection, max: resolved.poolSize, idleTimeoutMillis: 30_000 });
  pool.on('error', (error) => resolved.onError(error));
  // Lost connections (a restart, a failover) are replaced, and transactions cut by them run again.
  const dialect = new PostgresStoreDialect(new ResilientPool(pool));
  const feed = new PostgresChangeFeed({
    createClient: () => new driver.Client(connection),
    notify: async (channel, payload) => {
      await sql`select pg_notify(${channel}, ${payload})`.execute(dialect.db);
    },
    listen: resolved.notifications,
    onError: resolved.onError,
  });
  try {
    await sql`select 1`.execute(dialect.db);
    await feed.start();
  } catch (error) {
    await feed.close();
    await dialect.close().catch(() => undefined);
    throw new StoreError('UNAVAILABLE', `Cannot connect to PostgreSQL at ${redactUrl(url)}: ${connectFailure(error)}`, {
      cause: error,
    });
  }
  // No file can sit beside a PostgreSQL database: without TOOLSHED_SECRET_KEY, secrets are refused.
  const keys = new SecretKeyring(
    resolved.secretKey === undefined ? { kind: 'none' } : { kind: 'given', key: resolved.secretKey },
  );
  return new KyselyToolshedStore(dialect, feed, resolved, keys);
}

/** What went wrong when the first connection was tried: the driver's reason, under any retry wrapper. */
function connectFailure(error: unknown): string {
  const cause = error instanceof StoreError && error.code === 'UNAVAILABLE' ? error.cause : undefined;
  const reason = cause ?? error;
  return reason instanceof Error ? reason.message : String(reason);
}
