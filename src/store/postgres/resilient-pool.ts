import type { PostgresPoolClient } from 'kysely';
import { StoreError } from '../store-error.js';
import type { PostgresPoolDriver } from './postgres-driver.js';

/** SQLSTATEs of a connection that is gone or not yet accepted: the server shut down, restarted or refused. */
const CONNECTION_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);
/** Node's socket errors. */
const SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN']);
/** node-postgres throws these without a code. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'Client was closed and is not queryable',
  'Client has encountered a connection error and is not queryable',
  'timeout expired',
];

/**
 * Options of {@link ResilientPool}.
 *
 * @example
 * ```ts
 * const pool = new ResilientPool(pgPool, { connectAttempts: 10, firstDelayMs: 50 });
 * ```
 */
export interface ResilientPoolOptions {
  /** Attempts at getting a connection while the server refuses them (default 6, about 3 s in all). */
  connectAttempts?: number;
  /** The first wait between attempts; each next one doubles, up to 1 s (default 100 ms). */
  firstDelayMs?: number;
}

/** The part of a pooled node-postgres client Kysely uses, and `release` with its "destroy" flag. */
interface PooledClient {
  query(...args: unknown[]): unknown;
  release(destroy?: boolean): void;
  on?(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Whether `error` says the connection to PostgreSQL was lost or refused (a restart, a failover,
 * `pg_terminate_backend`), rather than that the statement failed.
 *
 * @example
 * ```ts
 * isConnectionError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })); // true
 * ```
 */
export function isConnectionError(error: unknown): boolean {
  if (StoreError.isInstance(error) && error.code === 'UNAVAILABLE') return true;
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || SOCKET_CODES.has(code))) return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && CONNECTION_MESSAGES.some((text) => message.includes(text));
}

/**
 * Whether a transaction failed while its `COMMIT` was on the way, so it may or may not have committed:
 * such a transaction is never run again.
 *
 * @example
 * ```ts
 * if (isConnectionError(error) && !isCommitInDoubt(error)) await runAgain();
 * ```
 */
export function isCommitInDoubt(error: unknown): boolean {
  return StoreError.isInstance(error) && (error as StoreError & { commitInDoubt?: boolean }).commitInDoubt === true;
}

/**
 * A node-postgres pool that rides out lost connections: getting a connection is retried with backoff
 * while the server refuses them (a restart), a connection that failed is destroyed rather than pooled
 * again, a read (`select`) outside a transaction that lost its connection runs once more on a fresh
 * one (as does any statement the driver never sent), and a lost connection surfaces as {@link StoreError} `UNAVAILABLE` (marked when a `COMMIT` was
 * under way), which the dialect's transactions retry unless the commit is in doubt. Writes outside a
 * transaction are never retried: whether they took effect is unknown.
 *
 * @example
 * ```ts
 * const pool = new ResilientPool(new pg.Pool({ connectionString: url, max: 10 }));
 * const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
 * ```
 */
export class ResilientPool implements PostgresPoolDriver {
  readonly #pool: PostgresPoolDriver;
  readonly #attempts: number;
  readonly #firstDelayMs: number;
  readonly #wrapped = new WeakMap<object, PooledClient>();

  constructor(pool: PostgresPoolDriver, options: ResilientPoolOptions = {}) {
    this.#pool = pool;
    this.#attempts = options.connectAttempts ?? 6;
    this.#firstDelayMs = options.firstDelayMs ?? 100;
  }

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.#connectRaw();
    let wrapped = this.#wrapped.get(client);
    if (wrapped === undefined) {
      wrapped = this.#wrap(client);
      this.#wrapped.set(client, wrapped);
    }
    // Kysely calls `query(sql, parameters)` (and with a cursor, which passes through) and `release()`.
    return wrapped as unknown as PostgresPoolClient;
  }

  end(): Promise<void> {
    return this.#pool.end();
  }

  on(event: 'error', listener: (error: Error) => void): unknown {
    return this.#pool.on(event, listener);
  }

  async #connectRaw(): Promise<PooledClient> {
    let delay = this.#firstDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.#pool.connect()) as unknown as PooledClient;
      } catch (error) {
        if (!isConnectionError(error)) throw error;
        if (attempt >= this.#attempts) throw unreachable(error);
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 1000);
      }
    }
  }

  #wrap(client: PooledClient): PooledClient {
    // Per checkout: whether a transaction is open, whether COMMIT was sent, whether the connection failed.
    let inTransaction = false;
    let committing = false;
    let broken = false;
    // A connection lost while checked out but between statements (inside a transaction) reports it
    // here; without a listener node-postgres would make it an uncaught exception.
    client.on?.('error', () => {
      broken = true;
    });
    const query = async (text: unknown, parameters?: unknown): Promise<unknown> => {
      if (typeof text !== 'string') return client.query(text, parameters);
      const command = text.trimStart().slice(0, 8).toLowerCase();
      if (broken && command.startsWith('rollback')) {
        // The server rolled back when the connection went; the original error is the one to report.
        inTransaction = false;
        return { command: 'ROLLBACK', rowCount: 0, rows: [] };
      }
      if (command.startsWith('begin')) inTransaction = true;
      if (command.startsWith('commit')) committing = true;
      try {
        const result = await client.query(text, parameters);
        if (command.startsWith('commit') || command.startsWith('rollback')) {
          inTransaction = false;
          committing = false;
        }
        return result;
      } catch (error) {
        if (!isConnectionError(error)) throw error;
        broken = true;
        // Outside a transaction a read runs again, and so does any statement the driver refused to send
        // on a connection it already knew was gone; a write that reached the server may have committed.
        if (!inTransaction && (command.startsWith('select') || neverSent(error))) {
          const fresh = await this.#connectRaw();
          let failed = false;
          try {
            return await fresh.query(text, parameters);
          } catch (again) {
            failed = isConnectionError(again);
            throw failed ? unavailable(again, false) : again;
          } finally {
            fresh.release(failed || undefined);
          }
        }
        throw unavailable(error, committing);
      }
    };
    return {
      query: query as PooledClient['query'],
      release: () => {
        const destroy = broken;
        inTransaction = false;
        committing = false;
        broken = false;
        // A failed connection is closed, not handed to the next caller.
        client.release(destroy || undefined);
      },
    };
  }
}

function neverSent(error: unknown): boolean {
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && message.includes('not queryable');
}

/** No connection could be had at all (the server is down or refuses): the driver's own reason. */
function unreachable(cause: unknown): StoreError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new StoreError('UNAVAILABLE', `PostgreSQL could not be reached (${reason}).`, { cause });
}

function unavailable(cause: unknown, commitInDoubt: boolean): StoreError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const error = new StoreError(
    'UNAVAILABLE',
    commitInDoubt
      ? `The connection to PostgreSQL was lost while a transaction committed; it may or may not have taken effect (${reason}).`
      : `The connection to PostgreSQL was lost (${reason}).`,
    { cause },
  );
  if (commitInDoubt) Object.defineProperty(error, 'commitInDoubt', { value: true });
  return error;
}
