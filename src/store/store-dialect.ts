import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import type { SchemaDialect } from './migrations/schema-dialect.js';
import type { SqliteDriver } from './sqlite/sqlite-driver.js';
import type { StoreDialectName } from './store-records.js';

/** What a database error means to the store; anything else is passed through as it is. */
export type DatabaseErrorKind = 'unique' | 'foreign-key';

/**
 * The few things that differ between the SQL dialects; all queries are shared and ask the dialect for
 * what differs (as Kysely asks its adapter), never for its name. One implementation per dialect folder
 * (`sqlite/sqlite-store-dialect.ts`, `postgres/postgres-store-dialect.ts`).
 *
 * @example
 * ```ts
 * const created = await dialect.transaction(async (trx) => {
 *   await dialect.lock(trx, `files:${workspaceId}`);
 *   return trx.insertInto('files').values(row).executeTakeFirst();
 * });
 * ```
 */
export interface StoreDialect {
  readonly name: StoreDialectName;
  readonly db: Kysely<Database>;
  /** How the schema differs, for the migrations. */
  readonly schema: SchemaDialect;
  /**
   * Whether the read caches need change notifications to see other processes' writes. PostgreSQL's
   * do (LISTEN/NOTIFY), so it caches only while the store listens; on SQLite another process writing
   * the same file is rare and is seen when a cached entry expires.
   */
  readonly readCacheNeedsNotifications: boolean;
  /**
   * Whether a select can lock the rows it read until the transaction ends (`FOR KEY SHARE`). SQLite's
   * write transactions hold the whole database instead, so it has no row locks to take.
   */
  readonly supportsRowLocks: boolean;
  /**
   * Whether several server processes are expected on one database (PostgreSQL): state that would
   * otherwise live in one process's memory (MCP sessions) is kept in the database instead.
   */
  readonly sharedAcrossInstances: boolean;
  /**
   * The synchronous driver under `db`, for writes that skip Kysely (the call log's batches and its
   * journal), or `undefined` where there is none.
   */
  readonly syncDriver: SqliteDriver | undefined;
  /**
   * Run `work` in one write transaction: committed when it resolves, rolled back when it throws.
   * SQLite takes the write lock up front (`BEGIN IMMEDIATE`); PostgreSQL runs at READ COMMITTED and
   * retries the whole transaction after a deadlock or serialization failure. `work` may run more
   * than once, so it must not have effects outside the transaction.
   */
  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /** Make other writers that lock the same `key` wait until this transaction ends. */
  lock(trx: Kysely<Database>, key: string): Promise<void>;
  /** Whether `error` is a unique or foreign-key violation. */
  classifyError(error: unknown): DatabaseErrorKind | undefined;
  /** Close the connections. */
  close(): Promise<void>;
}
