import { type Kysely, sql } from 'kysely';
import { ToolshedError } from '../core/errors/toolshed-error.js';
import type { SqliteDriver, StoreDialectName, ToolshedStore } from '../store/index.js';
import { closestInboxes } from './closest-inboxes.js';
import type { EmailHit, EmailInboxList, EmailRecord, EmailSearchResult, InboxCount } from './email-record.js';
import { emailSnippet } from './email-snippet.js';
import { ftsMatch, ftsTerm, queryWords } from './search-query.js';
import { INBOX_SPAN, type IndexBatch, SqliteEmailIndex, type SqliteQuery } from './sqlite-email-index.js';
import { UnknownInboxError } from './unknown-inbox-error.js';

/**
 * The `emails` table as the store's migrations `0002_emails` and `0003_emails_by_inbox` leave it (on
 * SQLite it also has `id INTEGER PRIMARY KEY`: the inbox's number × 2^32 + n, see {@link EmailStore}).
 */
export interface EmailsTable {
  message_id: string;
  inbox: string;
  subject: string;
  sender: string;
  /** JSON array text. */
  recipients: string;
  date: string;
  body: string;
}

/** The tables {@link EmailStore} queries. */
export interface EmailDatabase {
  emails: EmailsTable;
}

/**
 * What {@link EmailStore} needs of a store: its Kysely instance, its dialect, and on SQLite the
 * driver under it (a {@link ToolshedStore} is one).
 *
 * @example
 * ```ts
 * const source: EmailStoreSource = await createStore(':memory:');
 * ```
 */
export type EmailStoreSource = Pick<ToolshedStore, 'db' | 'dialect' | 'sqliteDriver'>;

/** The most results one search returns. */
export const MAX_EMAIL_SEARCH_LIMIT = 50;

/** How many inboxes {@link EmailStore.inboxes} returns unless told otherwise. */
export const DEFAULT_EMAIL_INBOXES_LIMIT = 20;

/** The most inboxes one {@link EmailStore.inboxes} returns. */
export const MAX_EMAIL_INBOXES_LIMIT = 200;

/** An unknown inbox is compared with the names of this many of the largest inboxes at most. */
const SUGGESTION_POOL = 20_000;

/** The largest inboxes an {@link UnknownInboxError} names. */
const LARGEST_NAMED = 3;

/** The PostgreSQL GIN index of migration `0002_emails`. */
const SEARCH_INDEX = 'idx_emails_search';

/** At most this many matches of an inbox (the most recently stored) are ranked on SQLite. */
const RANKED_POOL = 2000;

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

/** An email's columns after the id, in table order: message_id, inbox, subject, sender, recipients, date, body. */
function columnsOf(email: EmailRecord): [string, string, string, string, string, string, string] {
  return [
    email.message_id,
    email.inbox,
    email.subject,
    email.sender,
    JSON.stringify(email.recipients),
    email.date,
    email.body,
  ];
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

/** Raised by {@link EmailStore.search} for a query with no searchable words. */
export class EmailQueryError extends ToolshedError<'INVALID_QUERY'> {
  override readonly name = 'EmailQueryError';

  constructor(message: string) {
    super('INVALID_QUERY', message);
  }
}

/**
 * The email corpus over the store's database (run `store.migrate()` first): batched idempotent
 * inserts, ranked full-text search within one inbox, and lookup by message id. User text never
 * reaches the full-text syntax: only its words (letters and digits) are searched, each quoted.
 *
 * On SQLite an inbox is one contiguous range of rowids (`inbox id × 2^32 + n`), so FTS5 reads only
 * that inbox's part of each word's doclist. Ranking is BM25 over field presence, computed here rather
 * than by FTS5's `bm25()` (which counts every word's whole doclist on every query): each query word
 * adds `idf × tf·(k1+1)/(tf+k1)`, with tf 2 when the word is in the subject and 1 when it is only in
 * the body, idf measured within the inbox (over its 20 000 most recent emails, cached until the inbox
 * changes), and ties going to the most recently stored email. When more than 2 000 emails of the inbox
 * match, the 2 000 most recently stored are ranked; `total` still counts every match. Snippets are
 * built for the returned page only.
 *
 * @example
 * ```ts
 * const store = await createStore(':memory:');
 * await store.migrate();
 * const emails = new EmailStore(store);
 * await emails.insertBatch([email]);
 * const { emails: hits, total } = await emails.search('budget report', email.inbox, 10);
 * ```
 */
export class EmailStore {
  readonly dialect: StoreDialectName;
  readonly #db: Kysely<EmailDatabase>;
  /** SQLite inbox numbers by name; an inbox keeps its number for good. */
  readonly #inboxIds = new Map<string, number>();
  /** Document frequencies by `inbox:newest id:word`: a new email in the inbox changes the key. */
  readonly #frequencies = new Map<string, number>();
  /** The SQLite statements of {@link EmailStore.insertBatch}, prepared once per connection. */
  #sqlite: { driver: SqliteDriver; index: SqliteEmailIndex; statements: SqliteStatements } | undefined;

  readonly #store: EmailStoreSource;

  constructor(store: EmailStoreSource) {
    this.#store = store;
    this.#db = store.db as unknown as Kysely<EmailDatabase>;
    this.dialect = store.dialect;
  }

  /**
   * Insert emails in one transaction; a `message_id` already stored (or repeated in the batch) is
   * skipped. Returns how many rows were added.
   *
   * The whole batch is one statement with one parameter (the rows as a JSON array, unpacked by
   * `json_each` or `json_array_elements`): one statement per row would cost a round trip (PostgreSQL)
   * or a statement run (SQLite) each. On SQLite a new email gets the next id of its inbox's range.
   *
   * @example
   * ```ts
   * const added = await emails.insertBatch([email]); // 1, then 0 when run again
   * ```
   */
  async insertBatch(emails: readonly EmailRecord[]): Promise<number> {
    if (emails.length === 0) return 0;
    const seen = new Set<string>();
    const unique: EmailRecord[] = [];
    for (const email of emails) {
      if (seen.has(email.message_id)) continue;
      seen.add(email.message_id);
      unique.push(email);
    }
    if (this.dialect === 'postgres') {
      const rows = unique.map((email) => JSON.stringify(columnsOf(email)));
      const json = `[${rows.join(',')}]`;
      return this.#db.transaction().execute(async (trx) => {
        const result = await sql`insert into emails (message_id, inbox, subject, sender, recipients, date, body)
          select row->>0, row->>1, row->>2, row->>3, row->>4, row->>5, row->>6
          from json_array_elements(${json}::json) as rows(row)
          on conflict (message_id) do nothing`.execute(trx);
        return Number(result.numAffectedRows ?? 0n);
      });
    }
    return this.#insertSqlite(unique);
  }

  /**
   * SQLite: one transaction of small prepared statements on the store's connection, each new email
   * getting the next id of its inbox's range; then the new emails' index rows (see
   * {@link SqliteEmailIndex}). Inboxes go in ascending id order, so the rowids FTS5 is given only grow:
   * it flushes its pending terms to a new segment whenever a rowid is lower than the last one.
   */
  async #insertSqlite(emails: readonly EmailRecord[]): Promise<number> {
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
      const driver = this.#store.sqliteDriver();
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
   * Get ready for a bulk load and return the function that ends it (call it in a `finally`).
   *
   * On PostgreSQL, a GIN index maintained row by row makes a large load several times slower than
   * building the index once afterwards. So when `large` is true and the table is empty, the full-text
   * index `idx_emails_search` is dropped here and built again by the returned function. An index found
   * missing (a bulk load that was killed) is built by the returned function too, whatever `large` is,
   * so the next import repairs it; until then searches still work, without the index.
   *
   * On SQLite a bulk load into a file database indexes on a thread of its own, with its own connection
   * to the search file (see {@link SqliteEmailIndex}), while the import stores the next batch. FTS5
   * keeps its index as segments that it merges as they pile up; during a bulk load that merging would
   * redo most of the work again and again, so it is switched off (`automerge` 0, a larger in-memory
   * buffer, fewer batches' worth of segments before an emergency merge) and the returned function waits
   * for the thread, merges everything once (`optimize`) and restores the defaults. A bulk load that was
   * killed leaves merging off; the next import, of any size, finds it so and merges at its end.
   *
   * @example
   * ```ts
   * const finish = await emails.beginBulkLoad(true);
   * try {
   *   await emails.insertBatch(batch);
   * } finally {
   *   await finish();
   * }
   * ```
   */
  async beginBulkLoad(large: boolean): Promise<() => Promise<void>> {
    if (this.dialect !== 'postgres') return (await this.#sqliteIndex()).index.beginLoad(large);
    let rebuild = !(await this.hasSearchIndex());
    if (!rebuild && large) {
      const empty = await sql<{ any: boolean }>`select not exists (select 1 from emails) as any`.execute(this.#db);
      if (empty.rows[0]?.any === true) {
        await sql`drop index if exists ${sql.ref(SEARCH_INDEX)}`.execute(this.#db);
        rebuild = true;
      }
    }
    return async () => {
      if (!rebuild) return;
      await this.#db.transaction().execute(async (trx) => {
        // One sort in memory instead of many runs on disk for a large table.
        await sql`set local maintenance_work_mem = '256MB'`.execute(trx);
        await sql`create index if not exists ${sql.ref(SEARCH_INDEX)} on emails using gin (search)`.execute(trx);
      });
      await sql`analyze emails`.execute(this.#db);
    };
  }

  /**
   * Bring the SQLite index up to date now: attach its file and index the emails it lacks (after a
   * crash, a lost search file or migration `0004`). Every search and insert does this on first use;
   * call it up front so that a large catch-up does not fall on the first search. Nothing on PostgreSQL.
   *
   * @example
   * ```ts
   * await store.migrate();
   * await new EmailStore(store).prepare();
   * ```
   */
  async prepare(): Promise<void> {
    if (this.dialect === 'sqlite') await this.#sqliteIndex();
  }

  /**
   * Whether the full-text index is in place: always on SQLite; on PostgreSQL, whether
   * `idx_emails_search` exists (a bulk load that was killed leaves it missing until the next import).
   *
   * @example
   * ```ts
   * if (!(await emails.hasSearchIndex())) console.warn('searches scan the table until the next import');
   * ```
   */
  async hasSearchIndex(): Promise<boolean> {
    if (this.dialect !== 'postgres') return true;
    const found = await sql<{ name: string | null }>`select to_regclass(${SEARCH_INDEX})::text as name`.execute(
      this.#db,
    );
    return found.rows[0]?.name != null;
  }

  /**
   * The best `limit` (1 to 50) emails of `inbox` matching every word of `query` in subject or body,
   * best first, with a `<mark>` snippet, and the number of the inbox's emails that match. Throws
   * {@link EmailQueryError} when the query has no word to search, and {@link UnknownInboxError} when
   * the inbox holds no email (checked only when nothing matched, so a search that finds emails costs
   * nothing more).
   *
   * @example
   * ```ts
   * const { emails: hits, total } = await emails.search('meeting schedule', 'john.arnold@enron.example', 5);
   * ```
   */
  async search(query: string, inbox: string, limit = 10): Promise<EmailSearchResult> {
    const words = queryWords(query);
    if (words.length === 0) {
      throw new EmailQueryError(
        'The query has no words to search: use letters or digits, for example "budget report".',
      );
    }
    const size = Math.min(Math.max(Math.trunc(limit), 1), MAX_EMAIL_SEARCH_LIMIT);
    const result =
      this.dialect === 'postgres'
        ? await this.#searchPostgres(words, inbox, size)
        : await this.#searchSqlite(words, inbox, size);
    if (result.total === 0 && !(await this.hasInbox(inbox))) throw await this.#unknownInbox(inbox);
    return result;
  }

  /**
   * Whether `inbox` holds at least one email (names are compared exactly, case included).
   *
   * @example
   * ```ts
   * await emails.hasInbox('john.arnold@enron.example'); // true in a generated corpus
   * ```
   */
  async hasInbox(inbox: string): Promise<boolean> {
    if (this.dialect === 'postgres') {
      if (inbox.includes('\0')) return false;
      const found = await sql<{
        found: boolean;
      }>`select exists (select 1 from emails where inbox = ${inbox}) as found`.execute(this.#db);
      return found.rows[0]?.found === true;
    }
    const id = await this.#inboxId(inbox);
    if (id === undefined) return false;
    const found = await sql<{ id: number | null }>`select max(id) as id from emails
      where id between ${BigInt(id * INBOX_SPAN + 1)} and ${BigInt(id * INBOX_SPAN + INBOX_SPAN - 1)}`.execute(
      this.#db,
    );
    return found.rows[0]?.id != null;
  }

  /**
   * The `limit` (1 to 200, default 20) largest inboxes with their number of emails, largest first
   * (ties by name, in code-point order), and how many inboxes hold emails in all. An inbox without
   * emails is not listed.
   *
   * The counts are exact. On SQLite an inbox's emails have the ids `base + 1 … base + n` of its range
   * (ids are handed out one after the other and nothing deletes an email), so its count is its newest
   * id minus its base: one index seek per inbox. That is checked, not assumed: when these counts do not
   * add up to the table's row count (rows deleted or added by hand), every inbox is counted row by row
   * (about 0.5 ms per 1 000 emails). On PostgreSQL it is a `group by` over the `inbox` index.
   *
   * @example
   * ```ts
   * const { inboxes, total } = await emails.inboxes(3);
   * // inboxes: [{inbox: 'john.arnold@enron.example', count: 53311}, …], total: 150
   * ```
   */
  async inboxes(limit = DEFAULT_EMAIL_INBOXES_LIMIT): Promise<EmailInboxList> {
    const size = Math.min(Math.max(Math.trunc(limit), 1), MAX_EMAIL_INBOXES_LIMIT);
    const counts = await this.#inboxCounts();
    return { inboxes: counts.slice(0, size), total: counts.length };
  }

  /** Every inbox holding emails with its count, largest first, then by name. */
  async #inboxCounts(): Promise<InboxCount[]> {
    let counts: InboxCount[];
    if (this.dialect === 'postgres') {
      const rows = await sql<{ inbox: string; n: string | number }>`select inbox, count(*) as n
        from emails group by inbox`.execute(this.#db);
      counts = rows.rows.map((row) => ({ inbox: row.inbox, count: Number(row.n) }));
    } else {
      counts = await this.#sqliteInboxCounts();
    }
    return counts.sort(
      (left, right) => right.count - left.count || (left.inbox < right.inbox ? -1 : left.inbox > right.inbox ? 1 : 0),
    );
  }

  /** SQLite: each inbox's count from its newest id, or row by row when those do not add up (see `inboxes`). */
  async #sqliteInboxCounts(): Promise<InboxCount[]> {
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

  /** The error for an inbox that holds no email: the closest names and the largest inboxes. */
  async #unknownInbox(inbox: string): Promise<UnknownInboxError> {
    const counts = await this.#inboxCounts();
    const names = counts.slice(0, SUGGESTION_POOL).map((entry) => entry.inbox);
    return new UnknownInboxError(inbox, closestInboxes(inbox, names), counts.slice(0, LARGEST_NAMED));
  }

  /**
   * The whole email, or `undefined` when no email has this id.
   *
   * @example
   * ```ts
   * const email = await emails.get('<1.0.generated@enron.example>');
   * ```
   */
  async get(messageId: string): Promise<EmailRecord | undefined> {
    // PostgreSQL text cannot hold NUL (the driver would fail the query), so no stored id has one.
    if (this.dialect === 'postgres' && messageId.includes('\0')) return undefined;
    const row = await this.#db
      .selectFrom('emails')
      .select(['message_id', 'inbox', 'subject', 'sender', 'recipients', 'date', 'body'])
      .where('message_id', '=', messageId)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return { ...row, recipients: parseRecipients(row.recipients) };
  }

  /**
   * How many emails are stored (in one inbox when given).
   *
   * @example
   * ```ts
   * await emails.count(); // every email
   * await emails.count('john.arnold@enron.example');
   * ```
   */
  async count(inbox?: string): Promise<number> {
    if (inbox !== undefined && this.dialect !== 'postgres') {
      const id = await this.#inboxId(inbox);
      if (id === undefined) return 0;
      const row = await sql<{ n: number }>`select count(*) as n from emails
        where id between ${BigInt(id * INBOX_SPAN)} and ${BigInt(id * INBOX_SPAN + INBOX_SPAN - 1)}`.execute(this.#db);
      return Number(row.rows[0]?.n ?? 0);
    }
    let query = this.#db.selectFrom('emails').select((eb) => eb.fn.countAll<number | string | bigint>().as('n'));
    if (inbox !== undefined) query = query.where('inbox', '=', inbox);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.n);
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

  async #searchSqlite(words: string[], inbox: string, limit: number): Promise<EmailSearchResult> {
    await this.#sqliteIndex();
    const inboxId = await this.#inboxId(inbox);
    if (inboxId === undefined) return { emails: [], total: 0 };
    // Rowid bounds go to SQLite as integers (a JS number is bound as a REAL, and FTS5 then filters
    // every row of the doclists instead of seeking to the inbox's range).
    const low = BigInt(inboxId * INBOX_SPAN);
    const high = low + BigInt(INBOX_SPAN - 1);
    const match = ftsMatch(words);
    const counted = await sql<{ n: number }>`select count(*) as n from search.emails_fts
      where emails_fts match ${match} and rowid between ${low} and ${high}`.execute(this.#db);
    const total = Number(counted.rows[0]?.n ?? 0);
    if (total === 0) return { emails: [], total };

    const pooled = await sql<{ id: number }>`select rowid as id from search.emails_fts
      where emails_fts match ${match} and rowid between ${low} and ${high}
      order by rowid desc limit ${RANKED_POOL}`.execute(this.#db);
    const pool = pooled.rows.map((row) => row.id);
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
    return { emails, total };
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

  async #searchPostgres(words: string[], inbox: string, limit: number): Promise<EmailSearchResult> {
    if (inbox.includes('\0')) return { emails: [], total: 0 };
    const text = words.join(' ');
    // Ranking and the limit in the database; the snippets of the page returned are built here, as
    // on SQLite (ts_headline is slow on long bodies and marks differently).
    const hits = await sql<EmailHit & { body: string }>`
      with q as (select plainto_tsquery('english', ${text}) as query)
      select e.message_id, e.subject, e.sender, e.date, left(e.body, 200000) as body
      from emails e, q
      where e.inbox = ${inbox} and e.search @@ q.query
      order by ts_rank(e.search, q.query) desc, e.date desc
      limit ${limit}`.execute(this.#db);
    const total = await sql<{ n: string | number }>`
      select count(*) as n from emails
      where inbox = ${inbox} and search @@ plainto_tsquery('english', ${text})`.execute(this.#db);
    return {
      emails: hits.rows.map((row) => toHit(row, words)),
      total: Number(total.rows[0]?.n ?? 0),
    };
  }
}

/** One search hit with its snippet. */
function toHit(row: EmailHit & { body: string }, words: readonly string[]): EmailHit {
  return {
    message_id: row.message_id,
    subject: row.subject,
    sender: row.sender,
    date: row.date,
    snippet: emailSnippet(row.subject, row.body, words),
  };
}

function parseRecipients(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}
