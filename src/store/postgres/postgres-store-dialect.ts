import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from '../database.js';
import type { DatabaseErrorKind, StoreDialect } from '../store-dialect.js';
import type { PostgresPoolDriver } from './postgres-driver.js';
import { postgresSchemaDialect } from './postgres-schema-dialect.js';
import { isCommitInDoubt, isConnectionError } from './resilient-pool.js';

// serialization_failure and deadlock_detected: the transaction did nothing and may simply run again.
const RETRYABLE_CODES = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 4;
/** A transaction whose connection was lost (before its COMMIT) runs again this many times in all, with backoff. */
const MAX_RECONNECT_ATTEMPTS = 6;

/**
 * The PostgreSQL side of the store: a node-postgres pool behind Kysely; transactions at READ
 * COMMITTED, retried whole on a deadlock or serialization failure, and on a lost connection unless
 * it was lost during the COMMIT (the pool, a `ResilientPool`, tells); per-key advisory locks.
 *
 * @example
 * ```ts
 * const dialect = new PostgresStoreDialect(new pg.Pool({ connectionString: url }));
 * await dialect.transaction(async (trx) => {
 *   await dialect.lock(trx, 'files:acme');
 *   await trx.deleteFrom('files').where('workspace_id', '=', 'acme').execute();
 * });
 * ```
 */
export class PostgresStoreDialect implements StoreDialect {
  readonly name = 'postgres' as const;
  readonly db: Kysely<Database>;
  readonly schema = postgresSchemaDialect;
  readonly readCacheNeedsNotifications = true;
  readonly sharedAcrossInstances = true;
  readonly supportsRowLocks = true;
  readonly syncDriver = undefined;

  constructor(pool: PostgresPoolDriver) {
    this.db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }

  async transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction().execute(work);
      } catch (error) {
        if (RETRYABLE_CODES.has(errorCode(error) ?? '')) {
          if (attempt >= MAX_ATTEMPTS) throw error;
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
          continue;
        }
        if (!isConnectionError(error) || isCommitInDoubt(error) || attempt >= MAX_RECONNECT_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** (attempt - 1), 1000)));
      }
    }
  }

  async lock(trx: Kysely<Database>, key: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
  }

  classifyError(error: unknown): DatabaseErrorKind | undefined {
    switch (errorCode(error)) {
      case '23505':
        return 'unique';
      case '23503':
        return 'foreign-key';
      default:
        return undefined;
    }
  }

  close(): Promise<void> {
    return this.db.destroy();
  }
}

function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}
