import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  SqliteDriver as KyselySqliteDriver,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  type SqliteStatement,
} from 'kysely';
import type { Database } from '../database.js';
import type { DatabaseErrorKind, StoreDialect } from '../store-dialect.js';
import type { SqliteDriver } from './sqlite-driver.js';
import { sqliteSchemaDialect } from './sqlite-schema-dialect.js';

/**
 * The SQLite side of the store: one better-sqlite3 connection behind Kysely's mutex, write
 * transactions opened with `BEGIN IMMEDIATE`.
 *
 * `BEGIN IMMEDIATE` takes the write lock before the first read, so a transaction that reads then
 * writes never fails half-way with `SQLITE_BUSY` because another process wrote in between; it waits
 * up to `busy_timeout` instead. Within a process Kysely's mutex already runs one transaction at a time.
 *
 * Migrations run in one such transaction too (Kysely's own SQLite dialect runs them one by one with no
 * lock), so processes that open a new database file at once apply each migration once: the first
 * takes the write lock, the others wait for it, then find nothing left to apply.
 *
 * Two stores on the same file in one process are not supported: better-sqlite3 waits for a lock
 * synchronously, which would stall the very thread that must release it.
 *
 * @example
 * ```ts
 * const dialect = new SqliteStoreDialect(await openSqliteDriver('./toolshed.db', { busyTimeoutMs: 5000 }));
 * await dialect.transaction((trx) => trx.deleteFrom('files').execute());
 * ```
 */
export class SqliteStoreDialect implements StoreDialect {
  readonly name = 'sqlite' as const;
  readonly db: Kysely<Database>;
  readonly schema = sqliteSchemaDialect;
  readonly readCacheNeedsNotifications = false;
  readonly supportsRowLocks = false;
  readonly sharedAcrossInstances = false;
  readonly syncDriver: SqliteDriver;

  constructor(driver: SqliteDriver) {
    this.syncDriver = driver;
    this.db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(driver) }) });
    drivers.set(this.db, driver);
  }

  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    // `BEGIN IMMEDIATE`: see ImmediateSqliteDriver.
    return this.db.transaction().execute(work);
  }

  async lock(_trx: Kysely<Database>, _key: string): Promise<void> {
    // The transaction holds the database's write lock since BEGIN IMMEDIATE: writers are serialized.
  }

  classifyError(error: unknown): DatabaseErrorKind | undefined {
    const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
    switch (code) {
      case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      case 'SQLITE_CONSTRAINT_UNIQUE':
        return 'unique';
      case 'SQLITE_CONSTRAINT_FOREIGNKEY':
        return 'foreign-key';
      default:
        return undefined;
    }
  }

  close(): Promise<void> {
    return this.db.destroy();
  }
}

/**
 * Kysely's SQLite dialect with its transactions opened by `BEGIN IMMEDIATE` and DDL declared
 * transactional (SQLite's is), so that `Migrator` applies the pending migrations in one transaction
 * that holds the write lock from its first read of the migration table.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }

  override createAdapter(): SqliteAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

class ImmediateSqliteDriver extends KyselySqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLite may have rolled back already (a failed COMMIT, SQLITE_FULL); then ROLLBACK errors, and
    // the error the caller gets must stay the one that failed the transaction.
    await super.rollbackTransaction(connection).catch(() => undefined);
  }
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** How many prepared statements a connection keeps (the store's queries are a few dozen shapes). */
const drivers = new WeakMap<object, SqliteDriver>();

/**
 * The better-sqlite3 connection behind a SQLite store's `db`, or `undefined` for any other Kysely
 * instance. For work that runs thousands of small statements in one transaction (the email import),
 * where going through Kysely would cost more than the statements. Use it only inside
 * `db.connection().execute(...)`, which keeps Kysely's own queries off the connection meanwhile, and
 * finish every transaction before that callback returns.
 *
 * @example
 * ```ts
 * const driver = sqliteDriverOf(store.db);
 * await store.db.connection().execute(async () => driver?.prepare('select 1').all([]));
 * ```
 */
export function sqliteDriverOf(db: object): SqliteDriver | undefined {
  return drivers.get(db);
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * The connection as Kysely sees it, with its prepared statements kept by SQL text: Kysely prepares
 * every query anew, and preparing was a tenth of the CPU time of a REST request. Reusing a statement is
 * safe here because Kysely runs one query at a time on the connection and reads each result whole.
 * Past the limit the oldest statement is dropped (bulk inserts of varying row counts make new texts).
 */
function withStatementCache(driver: SqliteDriver): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => driver.close(),
    prepare(text) {
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = driver.prepare(text);
        if (statements.size >= STATEMENT_CACHE_SIZE) {
          const oldest = statements.keys().next();
          if (oldest.done !== true) statements.delete(oldest.value);
        }
        statements.set(text, statement);
      }
      return statement;
    },
  };
}
