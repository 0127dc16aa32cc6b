import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Kysely, SqliteStatement } from 'kysely';
import type { SqliteDriver } from '../store/sqlite/sqlite-driver.js';

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

const ADD = 'insert into emails_fts (rowid, subject, body) values (?, ?, ?)';
const MARK = `insert into emails_indexed (inbox, upto) values (?, ?)
  on conflict (inbox) do update set upto = max(upto, excluded.upto)`;

/**
 * Emails to index: `rows` is flat (`id, subject, body, id, subject, body, …`) in ascending id order;
 * `newest` is each inbox's newest id in the batch.
 */
export interface IndexBatch {
  rows: Array<number | string>;
  newest: Array<[inbox: number, id: number]>;
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
  /** The search file's path, or `undefined` for an in-memory store. */
  #file: string | undefined;
  #statements: { add: SqliteQuery; mark: SqliteQuery } | undefined;
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
    if (large && this.#file !== undefined) {
      const thread = new IndexThread(this.#file);
      this.#thread = thread;
      return async () => {
        this.#thread = undefined;
        await thread.finish();
      };
    }
    if (large) await this.#exclusive(() => this.#setOptions(BULK_FTS_OPTIONS));
    if (!large && !killed) return async () => undefined;
    return () =>
      this.#exclusive(() => {
        this.#driver.prepare("insert into search.emails_fts (emails_fts) values ('optimize')").run([]);
        this.#setOptions(DEFAULT_FTS_OPTIONS);
      });
  }

  async #open(): Promise<void> {
    await this.#exclusive(() => {
      const attached = this.#driver.prepare('pragma database_list').all([]) as Array<{ name: string; file: string }>;
      const main = attached.find((entry) => entry.name === 'main');
      this.#file = main === undefined || main.file === '' ? undefined : `${main.file}${SEARCH_FILE_SUFFIX}`;
      if (!attached.some((entry) => entry.name === 'search')) {
        this.#driver.prepare('attach database ? as search').run([this.#file ?? ':memory:']);
        if (this.#file !== undefined) {
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
    const read = this.#query('select id, subject, body from emails where id > ? and id <= ? order by id limit ?');
    for (const range of behind) {
      let from = range.from;
      while (from < range.to) {
        const batch = await this.#exclusive(() => {
          const rows = read.all([BigInt(from), BigInt(range.to), CATCH_UP_CHUNK]) as Array<{
            id: number;
            subject: string;
            body: string;
          }>;
          const flat: Array<number | string> = [];
          for (const row of rows) flat.push(row.id, row.subject, row.body);
          const last = rows.at(-1)?.id ?? range.to;
          this.#writeHere({ rows: flat, newest: [[range.inbox, last]] });
          return last;
        });
        from = batch;
      }
    }
  }

  #writeHere(batch: IndexBatch): void {
    this.#statements ??= {
      add: this.#query(ADD.replace('emails_fts', 'search.emails_fts')),
      mark: this.#query(MARK.replace('emails_indexed', 'search.emails_indexed')),
    };
    const { add, mark } = this.#statements;
    this.#driver.prepare('begin immediate').run([]);
    try {
      const rows = batch.rows;
      for (let index = 0; index < rows.length; index += 3) add.run([rows[index], rows[index + 1], rows[index + 2]]);
      for (const [inbox, id] of batch.newest) mark.run([inbox, id]);
      this.#driver.prepare('commit').run([]);
    } catch (error) {
      if (this.#driver.inTransaction) this.#driver.prepare('rollback').run([]);
      throw error;
    }
  }

  #setOptions(options: ReadonlyArray<readonly [string, number]>): void {
    for (const [name, value] of options) {
      // Literals: FTS5 takes only an integer here, and a bound JavaScript number arrives as a real.
      this.#driver.prepare(`insert into search.emails_fts (emails_fts, rank) values ('${name}', ${value})`).run([]);
    }
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

  constructor(file: string) {
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file,
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        schema: SCHEMA.map((statement) => statement.replaceAll('search.', '')),
        add: ADD,
        mark: MARK,
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

// CommonJS, evaluated in the worker; better-sqlite3 is required by the path resolved here.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 60000 });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
for (const statement of workerData.schema) db.prepare(statement).run();
const setOptions = (options) => {
  for (const [name, value] of options) {
    db.prepare("insert into emails_fts (emails_fts, rank) values ('" + name + "', " + value + ")").run();
  }
};
setOptions(workerData.bulk);
const add = db.prepare(workerData.add);
const mark = db.prepare(workerData.mark);
const write = db.transaction((batch) => {
  const rows = batch.rows;
  for (let index = 0; index < rows.length; index += 3) add.run(rows[index], rows[index + 1], rows[index + 2]);
  for (const [inbox, id] of batch.newest) mark.run(inbox, id);
});
parentPort.on('message', (message) => {
  try {
    if (message.type === 'index') write(message.batch);
    else {
      db.prepare("insert into emails_fts (emails_fts) values ('optimize')").run();
      setOptions(workerData.defaults);
      db.close();
    }
    parentPort.postMessage({});
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
`;
