import { createHmac, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { StoreError } from './store-error.js';

/**
 * The environment variable that holds the key of workspace secrets: 32 bytes as base64 or hex.
 *
 * @example
 * ```ts
 * const key = process.env[SECRET_KEY_ENV]; // TOOLSHED_SECRET_KEY
 * ```
 */
export const SECRET_KEY_ENV = 'TOOLSHED_SECRET_KEY';

/**
 * The suffix of the key file beside a SQLite database: `toolshed.db` keeps its key in `toolshed.db-secret.key`.
 *
 * @example
 * ```ts
 * const keyFile = `${databaseFile}${SECRET_KEY_FILE_SUFFIX}`;
 * ```
 */
export const SECRET_KEY_FILE_SUFFIX = '-secret.key';

const KEY_BYTES = 32;
const HOW_TO_MAKE_ONE = "make one with 'openssl rand -base64 32'";

/**
 * The key of workspace secrets as 32 bytes, from its text: 64 hex digits, or base64 (standard or URL
 * alphabet, with or without padding). Surrounding whitespace is ignored. Throws {@link StoreError}
 * `SECRET_KEY` naming `source` and the length it got — never the text, which may be a real key.
 *
 * @example
 * ```ts
 * parseSecretKey('e6yID6w2Pj0W0gn8tR2G6TPXd9r36uQSu8nnLdujECA=', 'TOOLSHED_SECRET_KEY').length; // 32
 * parseSecretKey('too short', 'TOOLSHED_SECRET_KEY'); // throws StoreError SECRET_KEY
 * ```
 */
export function parseSecretKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) key = Buffer.from(trimmed, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) key = Buffer.from(trimmed, 'base64');
  if (key === undefined || key.length !== KEY_BYTES) {
    throw new StoreError(
      'SECRET_KEY',
      `${source} must be 32 bytes as base64 (44 characters) or hex (64 characters), got ${trimmed.length} characters; ${HOW_TO_MAKE_ONE}.`,
    );
  }
  return key;
}

/**
 * A short fingerprint of a key, stored with every value it encrypts, so a value read with another key
 * is reported as such instead of as damage.
 *
 * @example
 * ```ts
 * secretKeyId(randomBytes(32)).length; // 8
 * ```
 */
export function secretKeyId(key: Buffer): Buffer {
  return createHmac('sha256', key).update('toolshed secret key id').digest().subarray(0, 8);
}

/**
 * Where a store's secret key comes from.
 *
 * @example
 * ```ts
 * const source: SecretKeySource = { kind: 'file', path: './toolshed.db-secret.key' };
 * ```
 */
export type SecretKeySource =
  /** `TOOLSHED_SECRET_KEY` or the `secretKey` option, already parsed. */
  | { kind: 'given'; key: Buffer }
  /** The key file beside a SQLite database, created with the first secret. */
  | { kind: 'file'; path: string }
  /** A random key for the life of the store (`:memory:`, whose secrets die with it). */
  | { kind: 'ephemeral' }
  /** No key can be had (PostgreSQL without `TOOLSHED_SECRET_KEY`): secrets cannot be stored or read. */
  | { kind: 'none' };

/**
 * The key that encrypts a store's workspace secrets, loaded once. A given key (`TOOLSHED_SECRET_KEY`)
 * always wins. Otherwise a SQLite file keeps its key in `<database>-secret.key`: 32 random bytes as
 * base64, created with mode 0600 when the first secret is stored (atomically, so two processes agree
 * on one key), and refused when other users may read or write it. `:memory:` uses a random key of its
 * own; PostgreSQL has no file beside the database, so it needs `TOOLSHED_SECRET_KEY`.
 *
 * @example
 * ```ts
 * const keys = new SecretKeyring({ kind: 'file', path: './toolshed.db-secret.key' });
 * keys.check(); // throws when the file exists but is readable by others or malformed
 * const key = keys.get({ create: true });
 * ```
 */
export class SecretKeyring {
  readonly #source: SecretKeySource;
  #key: Buffer | undefined;

  constructor(source: SecretKeySource) {
    this.#source = source;
    if (source.kind === 'given') this.#key = source.key;
    else if (source.kind === 'ephemeral') this.#key = randomBytes(KEY_BYTES);
  }

  /** Load the key file if there is one, so a malformed or exposed file fails at start rather than at first use. */
  check(): void {
    if (this.#source.kind === 'file') this.#load(this.#source.path);
  }

  /**
   * The key, or `undefined` when the key file does not exist yet and `create` is false (then no secret
   * was ever stored with it). With `create`, a missing key file is made. Throws {@link StoreError}
   * `SECRET_KEY` when there can be no key (PostgreSQL without one) or the file is unusable.
   */
  get(options: { create: true }): Buffer;
  get(options: { create: boolean }): Buffer | undefined;
  get(options: { create: boolean }): Buffer | undefined {
    if (this.#key !== undefined) return this.#key;
    const source = this.#source;
    switch (source.kind) {
      case 'none':
        throw new StoreError(
          'SECRET_KEY',
          `Workspace secrets on PostgreSQL need the ${SECRET_KEY_ENV} environment variable (32 bytes as base64 or hex), the same on every server process; ${HOW_TO_MAKE_ONE} and restart.`,
        );
      case 'file':
        this.#key = this.#load(source.path) ?? (options.create ? this.#create(source.path) : undefined);
        return this.#key;
      case 'given':
      case 'ephemeral':
        return this.#key;
      default: {
        const unreachable: never = source;
        return unreachable;
      }
    }
  }

  /** How to name where the key lives in a message (the file by its name only, never its folder). */
  describe(): string {
    const source = this.#source;
    switch (source.kind) {
      case 'given':
        return SECRET_KEY_ENV;
      case 'file':
        return `the key file '${basename(source.path)}' beside the database`;
      case 'ephemeral':
        return 'the key of the in-memory database';
      case 'none':
        return `${SECRET_KEY_ENV} (not set)`;
      default: {
        const unreachable: never = source;
        return unreachable;
      }
    }
  }

  #load(path: string): Buffer | undefined {
    let mode: number;
    try {
      mode = statSync(path).mode;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw keyFileError(path, error);
    }
    // Windows has no such permission bits; there the folder's ACL protects the file.
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
      throw new StoreError(
        'SECRET_KEY',
        `The secret key file '${path}' can be read or written by other users (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); restrict it with 'chmod 600 ${path}' and start again.`,
      );
    }
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw keyFileError(path, error);
    }
    return parseSecretKey(text, `The secret key file '${path}'`);
  }

  #create(path: string): Buffer {
    const key = randomBytes(KEY_BYTES);
    // Written whole under a temporary name, then linked into place: a link fails when the name exists,
    // so of two processes creating the key at once one wins and the other reads the winner's key.
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const descriptor = openSync(temporary, 'wx', 0o600);
      try {
        writeSync(descriptor, `${key.toString('base64')}\n`);
        fsyncSync(descriptor);
      } finally {
        closeSync(descriptor);
      }
      try {
        linkSync(temporary, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        // Another process made it first: its key is the one. (Never return ours: it was not kept.)
        const theirs = this.#load(path);
        if (theirs === undefined) throw new Error('it disappeared while it was being created');
        return theirs;
      }
      syncFolder(dirname(path));
      return key;
    } catch (error) {
      if (StoreError.isInstance(error)) throw error;
      throw keyFileError(path, error);
    } finally {
      try {
        unlinkSync(temporary);
      } catch {
        // Already gone, or never made.
      }
    }
  }
}

function keyFileError(path: string, error: unknown): StoreError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreError(
    'SECRET_KEY',
    `The secret key file '${path}' cannot be used: ${reason}. Fix its folder's permissions, or set ${SECRET_KEY_ENV}.`,
    { cause: error },
  );
}

function syncFolder(folder: string): void {
  // The new name must survive a crash with the secrets it encrypts; some platforms cannot sync a folder.
  try {
    const descriptor = openSync(folder, 'r');
    try {
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
  } catch {
    // Best effort.
  }
}
