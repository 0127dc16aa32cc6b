import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { SqliteDriver, SqliteDriverConstructor } from './sqlite/sqlite-driver.js';

/**
 * The append-only file a SQLite store's call log is written to first (`<database>-calls`), and the
 * lock that makes one process its owner (`<database>-calls.lock`).
 *
 * Appending a line is one `write()`: once it returns, the line survives the process being killed
 * (it is in the kernel's page cache, which is also what a WAL commit with `synchronous = NORMAL`
 * promises). The owner copies the lines into `tool_calls` in large transactions and empties the file;
 * an owner that died leaves its lines for the next owner, which copies them before it appends its own.
 *
 * The lock is an exclusive SQLite lock on a file of its own, held for as long as the journal is open:
 * the kernel drops it when the process dies, however it dies, so a crashed owner never blocks the
 * next one, and a second process on the same database (or a second store in one process) is simply
 * not the owner.
 *
 * @example
 * ```ts
 * const journal = CallLogJournal.acquire(Database, '/srv/toolshed.db');
 * if (journal !== undefined) {
 *   journal.append('[1,"acme",null,"calculator","success",null,3,"2025-12-10T10:00:00.000Z"]\n');
 *   journal.close();
 * }
 * ```
 */
export class CallLogJournal {
  /** The journal file's path. */
  readonly path: string;
  readonly #lock: SqliteDriver;
  #fd: number | undefined;

  private constructor(path: string, lock: SqliteDriver, fd: number) {
    this.path = path;
    this.#lock = lock;
    this.#fd = fd;
  }

  /**
   * Become the journal's owner for `databaseFile`, or `undefined` when another connection (in this
   * process or another) owns it. Throws when the files cannot be created.
   */
  static acquire(Database: SqliteDriverConstructor, databaseFile: string): CallLogJournal | undefined {
    const lock = new Database(`${databaseFile}-calls.lock`, { timeout: 0 });
    try {
      lock.pragma('locking_mode = EXCLUSIVE');
      try {
        lock.exec('begin exclusive');
      } catch (error) {
        if (isBusy(error)) {
          lock.close();
          return undefined;
        }
        throw error;
      }
      const path = `${databaseFile}-calls`;
      return new CallLogJournal(path, lock, openSync(path, 'a+', 0o600));
    } catch (error) {
      lock.close();
      throw error;
    }
  }

  /** Append `text` (whole lines) with as few writes as the kernel allows (one, in practice). */
  append(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(this.#open(), bytes, written, bytes.length - written);
  }

  /** Everything in the journal, as text. */
  read(): string {
    return readFileSync(this.path, 'utf8');
  }

  /** Empty the journal (every line in it is in `tool_calls`). */
  clear(): void {
    ftruncateSync(this.#open(), 0);
  }

  /** Close the file and give up ownership. */
  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
    try {
      this.#lock.exec('rollback');
    } finally {
      this.#lock.close();
    }
  }

  #open(): number {
    if (this.#fd === undefined) throw new Error(`The call log journal ${this.path} is closed.`);
    return this.#fd;
  }
}

function isBusy(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}
