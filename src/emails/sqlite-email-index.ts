import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Kysely, SqliteStatement } from 'kysely';
import type { SqliteDriver } from '../store/index.js';

/** The rowids of one SQLite inbox: `inbox id × 2^32 + 1` upwards (migration `0003_emails_by_inbox`). */
export const INBOX_SPAN = 4294967296;

/** The search index's file is the database's path with this suffix (like SQLite's `-wal`). */
export const SEARCH_FILE_SUFFIX = '-search';

/** FTS5's own settings, restored after a bulk load. */
const DEFAULT_FTS_OPTIONS: ReadonlyArray<readonly [string, number]> = [
  ['automerge', 4],
  ['crisismerge', 16],
  ['hashsize', 1024 * 1024],
];

/**
 * A bulk load's: no merging until the end, a 32 MiB buffer of pending terms (fewer, larger segments),
 * and an emergency merge only past 64 segments of one size (FTS5 refuses more than 2 000 in all).
 */
const BULK_FTS_OPTIONS: ReadonlyArray<readonly [string, number]> = [
  ['automerge', 0],
  ['crisismerge', 64],
  ['hashsize', 32 * 1024 * 1024],
];

/** Emails read per transaction when the index catches up with the table. */
const CATCH_UP_CHUNK = 5000;

/** Batches handed to the indexing thread and not yet written, at most. */
const MAX_QUEUED_BATCHES = 2;

/**
 * The index's tables, created in the attached `search` database when missing. `emails_fts` is a
 * contentless FTS5 table (the text stays in `emails`; search needs only which rows match, and in which
 * column); `emails_indexed` remembers, per inbox, the newest email id the index holds.
 */
const SCHEMA = [
  `create virtual table if not exists search.emails_fts using fts5(
    subject, body,
    content = '',
    detail = column, columnsize = 0,
    tokenize = 'porter unicode61 remove_diacritics 2'
  )`,
  'create table if not exists search.emails_indexed (inbox integer primary key, upto integer not null)',
];

/**
 * Emails to index. `rows` is flat (`id, subject, body, id, subject, body, …`), grouped by inbox in
 * ascending inbox order, ids ascending within an inbox. `inboxes` lists each inbox's `[inbox id, number
 * of rows, newest id to cover]`: the index of that inbox ends up covering every email up to that id.
 */
export interface IndexBatch {
  rows: Array<number | string>;
  inboxes: Array<[inbox: number, count: number, upTo: number]>;
}

/** What {@link writeIndexBatch} needs of a better-sqlite3 connection. */
interface IndexConnection {
  prepare(text: string): {
    run(parameters: readonly unknown[]): unknown;
    get(parameters: readonly unknown[]): unknown;
    all(parameters: readonly unknown[]): unknown[];
  };
}

/**
 * Write a batch's index rows, under the search file's write lock, so that each inbox's index always
 * covers exactly its emails up to its mark (`emails_indexed.upto`). Rows at or below the mark are
 * already indexed (another process, or a catch-up, got there first) and are skipped; emails between
 * the mark and the batch's first row (another process's batch not indexed yet, or a crash's leftovers)
 * are read from `emails` and indexed first, in id order. So any number of writers, in any order,
 * index every email once. `prefix` is the search schema's (`search.` on the store's connection, empty
 * on the indexing thread's own); `emails` gives a connection that reads the store's emails.
 *
 * Self-contained on purpose: the indexing thread runs this same function, from its source text.
 */
export function writeIndexBatch(
  search: IndexConnection,
  emails: () => IndexConnection,
  prefix: string,
  batch: IndexBatch,
): void {
  const CHUNK = 1000;
  search.prepare('begin immediate').run([]);
  try {
    const markOf = search.prepare(`select upto from ${prefix}emails_indexed where inbox = ?`);
    const add = search.prepare(`insert into ${prefix}emails_fts (rowid, subject, body) values (?, ?, ?)`);
    const setMark = search.prepare(
      `insert into ${prefix}emails_indexed (inbox, upto) values (?, ?) on conflict (inbox) do update set upto = excluded.upto`,
    );
    const rows = batch.rows;
    let position = 0;
    for (const [inbox, count, upTo] of batch.inboxes) {
      const start = position;
      position += count * 3;
      const found = markOf.get([inbox]) as { upto: number } | undefined;
      let mark = found === undefined ? inbox * 4294967296 : found.upto;
      if (upTo <= mark) continue;
      const first = count > 0 ? (rows[start] as number) : upTo + 1;
      if (first > mark + 1) {
        const missing = emails().prepare(
          'select id, subject, body from emails where id > ? and id < ? order by id limit ?',
        );
        for (;;) {
          const chunk = missing.all([BigInt(mark), BigInt(first), CHUNK]) as Array<{
            id: number;
            subject: string;
            body: string;
          }>;
          for (const row of chunk) add.run([row.id, row.subject, row.body]);
          if (chunk.length < CHUNK) break;
          mark = (chunk[chunk.length - 1] as { id: number }).id;
        }
      }
      for (let index = start; index < position; index += 3) {
        if ((rows[index] as number) > mark) add.run([rows[index], rows[index + 1], rows[index + 2]]);
      }
      setMark.run([inbox, upTo]);
    }
    search.prepare('commit').run([]);
  } catch (error) {
    try {
      search.prepare('rollback').run([]);
    } catch {
      // SQLite rolled back by itself (or never began): the original error is the one to report.
    }
    throw error;
  }
}

/**
 * Set FTS5's `options` on the index, after merging it into one segment (`optimize`) when `merge` is
 * true. Literals: FTS5 takes only an integer here, and a bound JavaScript number arrives as a real.
 *
 * Self-contained on purpose: the indexing thread runs this same function, from its source text.
 */
function configureIndex(
  connection: IndexConnection,
  prefix: string,
  options: ReadonlyArray<readonly [string, number]>,
  merge: boolean,
): void {
  if (merge) connection.prepare(`insert into ${prefix}emails_fts (emails_fts) values ('optimize')`).run([]);
  for (const [name, value] of options) {
    connection.prepare(`insert into ${prefix}emails_fts (emails_fts, rank) values ('${name}', ${value})`).run([]);
  }
}

/** A better-sqlite3 statement, as far as the email store calls it. */
export type SqliteQuery = SqliteStatement & { get(parameters: readonly unknown[]): unknown };

/**
 * The SQLite full-text index of the email corpus, in a database file of its own beside the store's
 * (`toolshed.db-search`, attached as `search`; in memory for an in-memory store).
 *
 * Its own file is what lets a bulk load index on a second thread: FTS5's tokenising is most of an
 * import's work, and SQLite lets one connection write a file at a time, so with the index in the main
 * file the emails and their index rows could only be written one after the other. The index is derived
 * data: every batch of emails commits first, then its index rows with the inboxes' `emails_indexed`
 * marks, so the index is never ahead of the table; after a crash it may be behind, and {@link ready}
 * (run before the first read or write of each store) indexes whatever the marks say is missing. A
 * deleted or lost search file is rebuilt the same way.
 */
export class SqliteEmailIndex {
  readonly #db: Kysely<unknown>;
  readonly #driver: SqliteDriver;
  #ready: Promise<void> | undefined;
  /** The store's and the search index's files, or `undefined` for an in-memory store. */
  #files: { store: string; search: string } | undefined;
  #thread: IndexThread | undefined;

  constructor(db: Kysely<unknown>, driver: SqliteDriver) {
    this.#db = db;
    this.#driver = driver;
  }

  /** Attach the search file (creating it when missing) and index the emails it lacks. Runs once. */
  ready(): Promise<void> {
    this.#ready ??= this.#open().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /** Write a batch's index rows: on the bulk load's thread when one runs, else here, at once. */
  async index(batch: IndexBatch): Promise<void> {
    if (batch.rows.length === 0) return;
    if (this.#thread !== undefined) return this.#thread.index(batch);
    await this.#exclusive(() => this.#writeHere(batch));
  }

  /**
   * Get ready for a load (see `EmailStore.beginBulkLoad`): a large load into a file database indexes on
   * a thread of its own with FTS5's merging off, then merges once; a large load in memory does the same
   * here. A load that finds merging off (a bulk load was killed) merges at its end too.
   */
  async beginLoad(large: boolean): Promise<() => Promise<void>> {
    await this.ready();
    const merging = (await this.#exclusive(
      () =>
        this.#query("select v from search.emails_fts_config where k = 'automerge'").get([]) as
          | { v: number }
          | undefined,
    )) ?? { v: 4 };
    const killed = merging.v === 0;
    if (large && this.#files !== undefined) {
      const thread = new IndexThread(this.#files.search, this.#files.store);
      this.#thread = thread;
      return async () => {
        this.#thread = undefined;
        await thread.finish();
      };
    }
    if (large) await this.#exclusive(() => configureIndex(this.#connection, 'search.', BULK_FTS_OPTIONS, false));
    if (!large && !killed) return async () => undefined;
    return () => this.#exclusive(() => configureIndex(this.#connection, 'search.', DEFAULT_FTS_OPTIONS, true));
  }

  async #open(): Promise<void> {
    await this.#exclusive(() => {
      const attached = this.#driver.prepare('pragma database_list').all([]) as Array<{ name: string; file: string }>;
      const main = attached.find((entry) => entry.name === 'main');
      this.#files =
        main === undefined || main.file === ''
          ? undefined
          : { store: main.file, search: `${main.file}${SEARCH_FILE_SUFFIX}` };
      if (!attached.some((entry) => entry.name === 'search')) {
        this.#driver.prepare('attach database ? as search').run([this.#files?.search ?? ':memory:']);
        if (this.#files !== undefined) {
          this.#driver.pragma('search.journal_mode = WAL');
          this.#driver.pragma('search.synchronous = NORMAL');
        }
      }
      for (const statement of SCHEMA) this.#driver.prepare(statement).run([]);
    });
    await this.#catchUp();
  }

  /** Index, inbox by inbox, the emails newer than the inbox's mark. */
  async #catchUp(): Promise<void> {
    const behind = await this.#exclusive(() => {
      const marks = new Map(
        (
          this.#driver.prepare('select inbox, upto from search.emails_indexed').all([]) as Array<{
            inbox: number;
            upto: number;
          }>
        ).map((row) => [row.inbox, row.upto]),
      );
      const inboxes = this.#driver.prepare('select id from email_inboxes order by id').all([]) as Array<{ id: number }>;
      const newest = this.#query('select max(id) as id from emails where id between ? and ?');
      const found: Array<{ inbox: number; from: number; to: number }> = [];
      for (const { id } of inboxes) {
        const base = id * INBOX_SPAN;
        const last = (newest.get([BigInt(base), BigInt(base + INBOX_SPAN - 1)]) as { id: number | null }).id;
        const upto = marks.get(id) ?? base;
        if (last !== null && last > upto) found.push({ inbox: id, from: upto, to: last });
      }
      return found;
    });
    for (const range of behind) {
      for (let from = range.from; from < range.to; from += CATCH_UP_CHUNK) {
        const upTo = Math.min(range.to, from + CATCH_UP_CHUNK);
        await this.#exclusive(() => this.#writeHere({ rows: [], inboxes: [[range.inbox, 0, upTo]] }));
      }
    }
  }

  #writeHere(batch: IndexBatch): void {
    const connection = this.#connection;
    writeIndexBatch(connection, () => connection, 'search.', batch);
  }

  /** The store's connection, as the functions shared with the indexing thread take it. */
  get #connection(): IndexConnection {
    // better-sqlite3's statements have `get`; the store's driver type declares only what Kysely uses.
    return this.#driver as unknown as IndexConnection;
  }

  #query(text: string): SqliteQuery {
    return this.#driver.prepare(text) as SqliteQuery;
  }

  /** Run `work` on the store's connection while Kysely keeps its own queries off it. */
  #exclusive<T>(work: () => T): Promise<T> {
    return this.#db.connection().execute(async () => work());
  }
}

/**
 * The bulk load's indexing thread: its own connection to the search file, merging off until
 * {@link finish}. {@link index} waits only while {@link MAX_QUEUED_BATCHES} batches are queued, so the
 * import reads and stores the next batch while this one is indexed.
 */
class IndexThread {
  readonly #worker: Worker;
  readonly #waiting: Array<{ resolve(): void; reject(error: Error): void }> = [];
  #queued = 0;
  #failure: Error | undefined;
  #room: (() => void) | undefined;

  constructor(file: string, storeFile: string) {
    // The worker source calls the same two functions as this thread, defined from their source text.
    const shared = `${writeIndexBatch.toString()}\n${configureIndex.toString()}\n`;
    this.#worker = new Worker(`${shared}${WORKER_SOURCE}`, {
      eval: true,
      workerData: {
        file,
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        store: storeFile,
        schema: SCHEMA.map((statement) => statement.replaceAll('search.', '')),
        bulk: BULK_FTS_OPTIONS,
        defaults: DEFAULT_FTS_OPTIONS,
      },
    });
    this.#worker.on('message', (message: { error?: string }) => {
      if (message.error !== undefined) this.#fail(new Error(`Indexing emails failed: ${message.error}`));
      this.#queued -= 1;
      const waiting = this.#waiting.shift();
      if (message.error === undefined) waiting?.resolve();
      else waiting?.reject(this.#failure as Error);
      this.#room?.();
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', (code) => {
      if (code !== 0) this.#fail(new Error(`The email indexing thread stopped (exit code ${code}).`));
    });
  }

  async index(batch: IndexBatch): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    while (this.#queued >= MAX_QUEUED_BATCHES) {
      await new Promise<void>((resolve) => {
        this.#room = resolve;
      });
      if (this.#failure !== undefined) throw this.#failure;
    }
    this.#queued += 1;
    this.#waiting.push({ resolve: () => undefined, reject: () => undefined });
    this.#worker.postMessage({ type: 'index', batch });
  }

  /** Wait for the queued batches, merge the index once, restore FTS5's settings and stop the thread. */
  async finish(): Promise<void> {
    try {
      if (this.#failure !== undefined) throw this.#failure;
      await new Promise<void>((resolve, reject) => {
        this.#queued += 1;
        this.#waiting.push({ resolve, reject });
        this.#worker.postMessage({ type: 'finish' });
      });
      if (this.#failure !== undefined) throw this.#failure;
    } finally {
      await this.#worker.terminate();
    }
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiting of this.#waiting.splice(0)) waiting.reject(this.#failure);
    this.#queued = 0;
    this.#room?.();
  }
}

// CommonJS, evaluated in the worker after `writeIndexBatch` and `configureIndex`; better-sqlite3 is
// required by the path resolved here.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 60000 });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
for (const statement of workerData.schema) db.prepare(statement).run();
configureIndex(db, '', workerData.bulk, false);
let store;
const emails = () => (store ??= new Database(workerData.store, { readonly: true, timeout: 60000 }));
parentPort.on('message', (message) => {
  try {
    if (message.type === 'index') writeIndexBatch(db, emails, '', message.batch);
    else {
      configureIndex(db, '', workerData.defaults, true);
      db.close();
      store?.close();
    }
    parentPort.postMessage({});
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
`;
