import type { PostgresPool } from 'kysely';
import { StoreError } from '../store-error.js';

/**
 * The part of a node-postgres `Pool` the store uses. Declared here, structurally, so the store does
 * not depend on pg's types (Kysely's `PostgresPool` does the same).
 */
export interface PostgresPoolDriver extends PostgresPool {
  /** Idle connections report errors here (a server restart); without a listener they would crash the process. */
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** A `NOTIFY` as node-postgres delivers it. */
export interface PostgresNotification {
  channel: string;
  payload?: string | undefined;
}

/** The part of a node-postgres `Client` the change listener uses. */
export interface PostgresListenClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  on(event: 'notification', listener: (message: PostgresNotification) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  end(): Promise<void>;
}

/** The node-postgres module, as far as the store calls it. */
export interface PostgresDriverModule {
  Pool: new (config: PostgresConnectionConfig & { max?: number; idleTimeoutMillis?: number }) => PostgresPoolDriver;
  Client: new (config: PostgresConnectionConfig) => PostgresListenClient;
}

/**
 * The node-postgres connection settings the store passes (parameters in the URL, such as
 * `?application_name=`, take precedence).
 *
 * @example
 * ```ts
 * const config: PostgresConnectionConfig = { connectionString: url, statement_timeout: 30_000, application_name: 'toolshed-a' };
 * ```
 */
export interface PostgresConnectionConfig {
  connectionString: string;
  connectionTimeoutMillis?: number;
  /** Sent at connect: the server cancels a statement running longer (milliseconds). */
  statement_timeout?: number;
  /** Sent at connect: the server ends a session idle inside a transaction this long (milliseconds). */
  idle_in_transaction_session_timeout?: number;
  /** Shown in `pg_stat_activity.application_name`. */
  application_name?: string;
  keepAlive?: boolean;
}

/**
 * Load node-postgres on demand (a SQLite deployment never loads it). Throws {@link StoreError}
 * `UNAVAILABLE` when it is not installed.
 *
 * @example
 * ```ts
 * const pg = await loadPostgresDriver();
 * const pool = new pg.Pool({ connectionString: 'postgres://localhost/toolshed', max: 10 });
 * ```
 */
export async function loadPostgresDriver(): Promise<PostgresDriverModule> {
  try {
    const module = (await import('pg')) as unknown as Partial<PostgresDriverModule> & {
      default?: PostgresDriverModule;
    };
    return module.default ?? (module as PostgresDriverModule);
  } catch (error) {
    throw new StoreError(
      'UNAVAILABLE',
      `The PostgreSQL driver (pg) could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * A connection URL fit for messages and logs: the password replaced by `***`.
 *
 * @example
 * ```ts
 * redactUrl('postgres://app:secret@db:5432/toolshed'); // 'postgres://app:***@db:5432/toolshed'
 * ```
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured PostgreSQL URL';
  }
}
