import { parseSecretKey, SECRET_KEY_ENV } from './secret-key.js';

/** Settings of {@link createStore}. Every field is optional. */
export interface StoreOptions {
  /**
   * The tool ids an agent without attachments gets (ids the workspace cannot see are skipped).
   * Default: every global built-in plus the workspace's own tools.
   */
  defaultTools?: readonly string[];
  /**
   * PostgreSQL: listen for other processes' changes on `toolshed_changes` with a connection of its
   * own (default true). When false, `onChange` hears only this store's changes; they are announced
   * to other processes either way.
   */
  notifications?: boolean;
  /** PostgreSQL: most connections in the pool (default 10); one more is held for LISTEN. */
  poolSize?: number;
  /**
   * PostgreSQL: the server cancels a statement that runs longer than this, in milliseconds (default
   * 30 000); a session idle inside a transaction for twice as long is ended.
   */
  statementTimeoutMs?: number;
  /**
   * PostgreSQL: the `application_name` of the store's connections, as `pg_stat_activity` shows them
   * (default `toolshed`). Naming each server of a fleet tells their connections apart.
   */
  applicationName?: string;
  /** SQLite: how long a writer waits for another process's lock, in milliseconds (default 5000). */
  busyTimeoutMs?: number;
  /**
   * SQLite files: write the call log (`toolCalls.record`) through an append-only journal beside the
   * database (`<database>-calls`), as `toolshed serve` does (default false). A call is acknowledged once
   * its line is written, which survives the process being killed, and reaches `tool_calls` within
   * milliseconds in a transaction shared with every other call waiting (at once when the log is read).
   * One store per database owns the journal; any other store on the same file writes its calls
   * directly. With the journal, a call for a workspace that does not exist is dropped instead of
   * refused.
   *
   * PostgreSQL: write the call log in windows of 10 ms. A call is acknowledged once it is queued, and
   * every call queued in a window is written by one INSERT (at once when the log is read, and at
   * close): a crash of the process loses at most the calls of its last window. A call for a workspace
   * that does not exist is dropped instead of refused.
   */
  callJournal?: boolean;
  /**
   * The key that encrypts workspace secrets: 32 bytes as base64 or hex (`openssl rand -base64 32`).
   * Default: the `TOOLSHED_SECRET_KEY` environment variable; an empty string means no key. Without
   * one, a SQLite file keeps a key of its own in `<database>-secret.key` (mode 0600, made when the first
   * secret is stored), `:memory:` uses a random key, and PostgreSQL refuses to store or read secrets.
   * A malformed key fails `createStore` with {@link StoreError} `SECRET_KEY`.
   */
  secretKey?: string;
  /**
   * Called with errors nobody else can receive: a change listener that threw, or the PostgreSQL
   * listener losing its connection (it reconnects). Default: `process.emitWarning`.
   */
  onError?: (error: unknown) => void;
}

/** {@link StoreOptions} with defaults filled in. */
export interface ResolvedStoreOptions {
  defaultTools: readonly string[] | undefined;
  notifications: boolean;
  poolSize: number;
  statementTimeoutMs: number;
  applicationName: string;
  busyTimeoutMs: number;
  callJournal: boolean;
  /** The parsed secret key, or `undefined` when none was given. */
  secretKey: Buffer | undefined;
  onError: (error: unknown) => void;
}

/**
 * Fill in the defaults of {@link StoreOptions}, refusing (`RangeError`) sizes and timeouts that are
 * not positive whole numbers, and ({@link StoreError} `SECRET_KEY`) a malformed secret key.
 *
 * @example
 * ```ts
 * resolveStoreOptions({}).poolSize; // 10
 * ```
 */
export function resolveStoreOptions(options: StoreOptions = {}): ResolvedStoreOptions {
  const poolSize = options.poolSize ?? 10;
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const statementTimeoutMs = options.statementTimeoutMs ?? 30_000;
  for (const [name, value] of [
    ['poolSize', poolSize],
    ['busyTimeoutMs', busyTimeoutMs],
    ['statementTimeoutMs', statementTimeoutMs],
  ] as const) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`Store option ${name} must be a whole number greater than 0, got ${String(value)}.`);
    }
  }
  const applicationName = options.applicationName ?? 'toolshed';
  if (typeof applicationName !== 'string' || !/^[\x20-\x7e]{1,63}$/.test(applicationName)) {
    throw new RangeError(
      `Store option applicationName must be 1-63 printable ASCII characters, got ${JSON.stringify(applicationName)}.`,
    );
  }
  return {
    defaultTools: options.defaultTools === undefined ? undefined : [...options.defaultTools],
    notifications: options.notifications ?? true,
    poolSize,
    statementTimeoutMs,
    applicationName,
    busyTimeoutMs,
    callJournal: options.callJournal === true,
    secretKey: secretKeyOf(options.secretKey),
    onError: options.onError ?? warn,
  };
}

function secretKeyOf(option: string | undefined): Buffer | undefined {
  const fromEnvironment = option === undefined;
  const text = fromEnvironment ? process.env[SECRET_KEY_ENV] : option;
  if (text === undefined || text.trim() === '') return undefined;
  return parseSecretKey(text, fromEnvironment ? SECRET_KEY_ENV : 'The secretKey option');
}

function warn(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.emitWarning(`toolshed store: ${message}`, { code: 'TOOLSHED_STORE' });
}
