import { type Kysely, sql } from 'kysely';
import type { SqliteDriver } from '../store/index.js';
import {
  columnsOf,
  countEmails,
  type EmailDatabase,
  type EmailDialect,
  SEARCH_CANDIDATES,
  toHit,
} from './email-dialect.js';
import type { EmailHit, EmailRecord, EmailSearchResult, InboxCount } from './email-record.js';
import { ftsMatch, ftsTerm } from './search-query.js';
import { INBOX_SPAN, type IndexBatch, SqliteEmailIndex, type SqliteQuery } from './sqlite-email-index.js';

/** Document frequencies are counted over an inbox's most recently stored emails, this many at most. */
const FREQUENCY_SAMPLE = 20_000;

/** BM25's term-frequency saturation. */
const K1 = 1.2;

/** A query word in the subject counts as this many occurrences; in the body only, as one. */
const SUBJECT_WEIGHT = 2;

/** Cached document frequencies kept before the cache starts over. */
const MAX_CACHED_FREQUENCIES = 50_000;

interface SqliteStatements {
  begin: SqliteQuery;
  commit: SqliteQuery;
  rollback: SqliteQuery;
  addInbox: SqliteQuery;
  inboxId: SqliteQuery;
  newestId: SqliteQuery;
  addEmail: SqliteQuery;
}

/** The prepared statements of a SQLite batch insert (see `EmailStore.insertBatch`). */
function insertStatements(driver: SqliteDriver): SqliteStatements {
  const prepare = (text: string) => driver.prepare(text) as SqliteQuery;
  return {
    // Not IMMEDIATE, which would lock every attached database, the search file too, while the bulk
    // load's thread writes it: the first statement is a write, and locks the main file only.
    begin: prepare('begin'),
    commit: prepare('commit'),
    rollback: prepare('rollback'),
    addInbox: prepare('insert into email_inboxes (name) values (?) on conflict (name) do nothing'),
    inboxId: prepare('select id from email_inboxes where name = ?'),
    newestId: prepare('select max(id) as id from emails where id between ? and ?'),
    addEmail: prepare(`insert into emails (id, message_id, inbox, subject, sender, recipients, date, body)
      values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (message_id) do nothing`),
  };
}

/**
 * The email corpus on SQLite: each inbox one contiguous range of rowids (`inbox id × 2^32 + n`), a
 * contentless FTS5 index in a file of its own kept by {@link SqliteEmailIndex}, and BM25 over field
 * presence computed here (see {@link EmailStore}). Inserts are prepared statements on the store's own
 * better-sqlite3 connection.
 *
 * @example
 * ```ts
 * const dialect = new SqliteEmailDialect(store.db as Kysely<EmailDatabase>, () => store.sqliteDriver());
 * await dialect.prepare();
 * ```
 */
export class SqliteEmailDialect implements EmailDialect {
  readonly importParallelism = 1;
  readonly #db: Kysely<EmailDatabase>;
  /** The store's better-sqlite3 connection, asked for on first use. */
  readonly #driverOf: () => SqliteDriver | undefined;
  /** Inbox numbers by name; an inbox keeps its number for good. */
  readonly #inboxIds = new Map<string, number>();
  /** Document frequencies by `inbox:newest id:word`: a new email in the inbox changes the key. */
  readonly #frequencies = new Map<string, number>();
  /** The statements of {@link SqliteEmailDialect.insertBatch} and the index, prepared once per connection. */
  #sqlite: { driver: SqliteDriver; index: SqliteEmailIndex; statements: SqliteStatements } | undefined;

  constructor(db: Kysely<EmailDatabase>, driverOf: () => SqliteDriver | undefined) {
    this.#db = db;
    this.#driverOf = driverOf;
  }

  importBatchSize(bulk: boolean): number {
    return bulk ? 20_000 : 5000;
  }

  storable(): boolean {
    return true;
  }

  /**
   * SQLite: one transaction of small prepared statements on the store's connection, each new email
   * getting the next id of its inbox's range; then the new emails' index rows (see
   * {@link SqliteEmailIndex}). Inboxes go in ascending id order, so the rowids FTS5 is given only grow:
   * it flushes its pending terms to a new segment whenever a rowid is lower than the last one.
   */
  async insertBatch(emails: readonly EmailRecord[]): Promise<number> {
    const { driver, index, statements } = await this.#sqliteIndex();
    const byInbox = new Map<string, EmailRecord[]>();
    for (const email of emails) {
      const list = byInbox.get(email.inbox);
      if (list === undefined) byInbox.set(email.inbox, [email]);
      else list.push(email);
    }
    const batch: IndexBatch = { rows: [], inboxes: [] };
    const added = await this.#db.connection().execute(async () => {
      statements.begin.run([]);
      try {
        const inboxes: Array<{ id: number; emails: EmailRecord[] }> = [];
        for (const [name, list] of byInbox) {
          statements.addInbox.run([name]);
          const id = (statements.inboxId.get([name]) as { id: number }).id;
          this.#inboxIds.set(name, id);
          inboxes.push({ id, emails: list });
        }
        inboxes.sort((left, right) => left.id - right.id);
        let count = 0;
        for (const inbox of inboxes) {
          const base = inbox.id * INBOX_SPAN;
          const newest = (
            statements.newestId.get([BigInt(base), BigInt(base + INBOX_SPAN - 1)]) as { id: number | null }
          ).id;
          let next = newest ?? base;
          for (const email of inbox.emails) {
            const id = next + 1;
            const { changes } = statements.addEmail.run([id, ...columnsOf(email)]);
            if (changes === 0) continue;
            batch.rows.push(id, email.subject, email.body);
            next = id;
            count += 1;
          }
          if (next !== (newest ?? base)) batch.inboxes.push([inbox.id, next - (newest ?? base), next]);
        }
        statements.commit.run([]);
        return count;
      } catch (error) {
        if (driver.inTransaction) statements.rollback.run([]);
        throw error;
      }
    });
    await index.index(batch);
    return added;
  }

  /** The store's SQLite connection and the email index on it, attached and caught up. */
  async #sqliteIndex(): Promise<{ driver: SqliteDriver; index: SqliteEmailIndex; statements: SqliteStatements }> {
    if (this.#sqlite === undefined) {
      const driver = this.#driverOf();
      if (driver === undefined)
        throw new TypeError('EmailStore on SQLite needs a toolshed store with its SQLite driver.');
      this.#sqlite = {
        driver,
        index: new SqliteEmailIndex(this.#db as Kysely<unknown>, driver),
        statements: insertStatements(driver),
      };
    }
    await this.#sqlite.index.ready();
    return this.#sqlite;
  }

  /**
   * A bulk load into a file database indexes on a thread of its own (see {@link SqliteEmailIndex}),
   * with FTS5's merging switched off until one merge at the end.
   */
  async beginBulkLoad(large: boolean): Promise<() => Promise<void>> {
    return (await this.#sqliteIndex()).index.beginLoad(large);
  }

  /** The search file beside the database, indexed from `emails` by {@link prepare}. */
  readonly indexBuiltApart = true;

  async prepare(): Promise<void> {
    await this.#sqliteIndex();
  }

  async hasSearchIndex(): Promise<boolean> {
    return true;
  }

  /** FTS5's tokenizer here keeps every word: there are no stop words. */
  async stopWords(): Promise<ReadonlySet<string>> {
    return new Set();
  }

  async hasInbox(inbox: string): Promise<boolean> {
    const id = await this.#inboxId(inbox);
    if (id === undefined) return false;
    const found = await sql<{ id: number | null }>`select max(id) as id from emails
      where id between ${BigInt(id * INBOX_SPAN + 1)} and ${BigInt(id * INBOX_SPAN + INBOX_SPAN - 1)}`.execute(
      this.#db,
    );
    return found.rows[0]?.id != null;
  }

  /**
   * Each inbox's count from its newest id: an inbox's emails have the ids `base + 1 … base + n` of its
   * range (ids are handed out one after the other and nothing deletes an email), so one index seek per
   * inbox. That is checked, not assumed: when these counts do not add up to the table's row count (rows
   * deleted or added by hand), every inbox is counted row by row (about 0.5 ms per 1 000 emails).
   */
  async inboxCounts(): Promise<InboxCount[]> {
    const span = sql.lit(INBOX_SPAN);
    const newest = await sql<{ inbox: string; n: number | null }>`select ib.name as inbox,
        (select max(id) from emails where id between ib.id * ${span} + 1 and ib.id * ${span} + ${sql.lit(INBOX_SPAN - 1)})
          - ib.id * ${span} as n
      from email_inboxes ib`.execute(this.#db);
    const counts = newest.rows
      .filter((row): row is { inbox: string; n: number } => row.n !== null)
      .map((row) => ({ inbox: row.inbox, count: Number(row.n) }));
    const sum = counts.reduce((total, entry) => total + entry.count, 0);
    if (sum === (await this.count())) return counts;
    const exact = await sql<{ inbox: string; n: number }>`select ib.name as inbox,
        (select count(*) from emails where id between ib.id * ${span} and ib.id * ${span} + ${sql.lit(INBOX_SPAN - 1)}) as n
      from email_inboxes ib`.execute(this.#db);
    return exact.rows.filter((row) => row.n > 0).map((row) => ({ inbox: row.inbox, count: Number(row.n) }));
  }

  async count(inbox?: string): Promise<number> {
    if (inbox === undefined) return countEmails(this.#db);
    const id = await this.#inboxId(inbox);
    if (id === undefined) return 0;
    const row = await sql<{ n: number }>`select count(*) as n from emails
      where id between ${BigInt(id * INBOX_SPAN)} and ${BigInt(id * INBOX_SPAN + INBOX_SPAN - 1)}`.execute(this.#db);
    return Number(row.rows[0]?.n ?? 0);
  }

  /** The number of a SQLite inbox, or `undefined` when it holds no email. */
  async #inboxId(inbox: string): Promise<number | undefined> {
    const known = this.#inboxIds.get(inbox);
    if (known !== undefined) return known;
    const found = await sql<{ id: number }>`select id from email_inboxes where name = ${inbox}`.execute(this.#db);
    const id = found.rows[0]?.id;
    if (id !== undefined) this.#inboxIds.set(inbox, id);
    return id;
  }

  async search(words: readonly string[], inbox: string, limit: number): Promise<EmailSearchResult> {
    await this.#sqliteIndex();
    const inboxId = await this.#inboxId(inbox);
    if (inboxId === undefined) return { emails: [], total: 0, total_is_lower_bound: false };
    // Rowid bounds go to SQLite as integers (a JS number is bound as a REAL, and FTS5 then filters
    // every row of the doclists instead of seeking to the inbox's range).
    const low = BigInt(inboxId * INBOX_SPAN);
    const high = low + BigInt(INBOX_SPAN - 1);
    const match = ftsMatch(words);
    // The most recently stored matches, one more than are ranked: that one says whether more match.
    const pooled = await sql<{ id: number }>`select rowid as id from search.emails_fts
      where emails_fts match ${match} and rowid between ${low} and ${high}
      order by rowid desc limit ${SEARCH_CANDIDATES + 1}`.execute(this.#db);
    const more = pooled.rows.length > SEARCH_CANDIDATES;
    const pool = pooled.rows.slice(0, SEARCH_CANDIDATES).map((row) => row.id);
    const total = pool.length;
    if (total === 0) return { emails: [], total, total_is_lower_bound: false };
    // Every match from the pool's oldest rowid up is in the pool, so these subject queries, narrowed to
    // rows matching the whole query, return pool members only.
    const poolLow = BigInt(pool.at(-1) ?? low);
    const subjectWords = new Map<number, number[]>();
    for (const [index, word] of words.entries()) {
      const found = await sql<{ id: number }>`select rowid as id from search.emails_fts
        where emails_fts match ${`(subject : ${ftsTerm(word)}) AND (${match})`}
          and rowid between ${poolLow} and ${high}`.execute(this.#db);
      for (const { id } of found.rows) {
        const list = subjectWords.get(id);
        if (list === undefined) subjectWords.set(id, [index]);
        else list.push(index);
      }
    }
    const weights = await this.#inverseFrequencies(words, low, high);
    const saturate = (tf: number) => (tf * (K1 + 1)) / (tf + K1);
    const bodyScore = weights.reduce((sum, weight) => sum + weight * saturate(1), 0);
    const boost = weights.map((weight) => weight * (saturate(SUBJECT_WEIGHT) - saturate(1)));
    const scored = pool.map((id) => {
      let score = bodyScore;
      for (const index of subjectWords.get(id) ?? []) score += boost[index] ?? 0;
      return { id, score };
    });
    scored.sort((left, right) => right.score - left.score || right.id - left.id);
    const page = scored.slice(0, limit).map((entry) => entry.id);
    const rows = await sql<EmailHit & { id: number; body: string }>`
      select id, message_id, subject, sender, date, body from emails
      where id in (${sql.join(page.map(BigInt))})`.execute(this.#db);
    const byId = new Map(rows.rows.map((row) => [row.id, row]));
    const emails: EmailHit[] = [];
    for (const id of page) {
      const row = byId.get(id);
      if (row !== undefined) emails.push(toHit(row, words));
    }
    return { emails, total, total_is_lower_bound: more };
  }

  /**
   * BM25's idf of each word within one SQLite inbox, `ln(1 + (N - n + 0.5) / (n + 0.5))`, with N and n
   * counted over the inbox's most recent {@link FREQUENCY_SAMPLE} emails. A one-word query is ranked the
   * same whatever its idf, so it costs no count.
   */
  async #inverseFrequencies(words: readonly string[], low: bigint, high: bigint): Promise<number[]> {
    if (words.length === 1) return [1];
    const newest = await sql<{ id: number | null }>`select max(id) as id from emails
      where id between ${low} and ${high}`.execute(this.#db);
    const last = BigInt(newest.rows[0]?.id ?? low);
    const from = last - low > FREQUENCY_SAMPLE ? last - BigInt(FREQUENCY_SAMPLE - 1) : low + 1n;
    const documents = Number(last - from + 1n);
    const weights: number[] = [];
    for (const word of words) {
      const key = `${low}:${last}:${word}`;
      let frequency = this.#frequencies.get(key);
      if (frequency === undefined) {
        const counted = await sql<{ n: number }>`select count(*) as n from search.emails_fts
          where emails_fts match ${ftsTerm(word)} and rowid between ${from} and ${last}`.execute(this.#db);
        frequency = Number(counted.rows[0]?.n ?? 0);
        if (this.#frequencies.size >= MAX_CACHED_FREQUENCIES) this.#frequencies.clear();
        this.#frequencies.set(key, frequency);
      }
      weights.push(Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5)));
    }
    return weights;
  }
}
