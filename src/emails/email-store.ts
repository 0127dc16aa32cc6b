import type { Kysely } from 'kysely';
import type { StoreDialectName, ToolshedStore } from '../store/index.js';
import { closestInboxes } from './closest-inboxes.js';
import type { EmailDatabase, EmailDialect, EmailsTable } from './email-dialect.js';
import { DEFAULT_EMAIL_INBOXES_LIMIT, MAX_EMAIL_INBOXES_LIMIT, MAX_EMAIL_SEARCH_LIMIT } from './email-limits.js';
import { EmailQueryError } from './email-query-error.js';
import {
  type EmailInboxList,
  type EmailRecord,
  type EmailSearchResult,
  type InboxCount,
  MAX_WORDS_CHECKED,
} from './email-record.js';
import { PostgresEmailDialect } from './postgres-email-dialect.js';
import { queryWords } from './search-query.js';
import { SqliteEmailDialect } from './sqlite-email-dialect.js';
import { UnknownInboxError } from './unknown-inbox-error.js';

export type { EmailDatabase, EmailsTable };

/**
 * What {@link EmailStore} needs of a store: its Kysely instance, its dialect's name, and on SQLite the
 * driver under it (a {@link ToolshedStore} is one).
 *
 * @example
 * ```ts
 * const source: EmailStoreSource = await createStore(':memory:');
 * ```
 */
export type EmailStoreSource = Pick<ToolshedStore, 'db' | 'dialect' | 'sqliteDriver'>;

/** An unknown inbox is compared with the names of this many of the largest inboxes at most. */
const SUGGESTION_POOL = 20_000;

/** The largest inboxes an {@link UnknownInboxError} names. */
const LARGEST_NAMED = 3;

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
 * match, the 2 000 most recently stored are ranked (on PostgreSQL the 2 000 most recent by date), and
 * on both databases `total` counts matches up to 2 000 (`total_is_lower_bound` says when more match).
 * Snippets are built for the returned page only.
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
  /** The database's dialect, for reports (the store asks {@link EmailDialect} what differs). */
  readonly dialect: StoreDialectName;
  readonly #db: Kysely<EmailDatabase>;
  readonly #dialect: EmailDialect;

  constructor(store: EmailStoreSource) {
    this.#db = store.db as unknown as Kysely<EmailDatabase>;
    this.dialect = store.dialect;
    this.#dialect = EMAIL_DIALECTS[store.dialect](store, this.#db);
  }

  /**
   * The emails per import transaction when none is given: 1 000 on PostgreSQL; on SQLite 5 000, or
   * 20 000 in a bulk load.
   *
   * @example
   * ```ts
   * emails.importBatchSize(false); // 5000 on SQLite
   * ```
   */
  importBatchSize(bulk: boolean): number {
    return this.#dialect.importBatchSize(bulk);
  }

  /**
   * How many import batches may be stored at once: 2 on PostgreSQL, where the server does most of a
   * batch's work, so the next batch is read meanwhile; 1 on SQLite.
   *
   * @example
   * ```ts
   * const inFlight = emails.importParallelism;
   * ```
   */
  get importParallelism(): number {
    return this.#dialect.importParallelism;
  }

  /**
   * Insert emails in one transaction; a `message_id` already stored (or repeated in the batch) is
   * skipped. Returns how many rows were added.
   *
   * On PostgreSQL the whole batch is one statement with one text array per column, unpacked by
   * `unnest`: one statement per row would cost a round trip each. On SQLite it is prepared statements on the store's
   * connection, each new email getting the next id of its inbox's range.
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
    return this.#dialect.insertBatch(unique);
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
  beginBulkLoad(large: boolean): Promise<() => Promise<void>> {
    return this.#dialect.beginBulkLoad(large);
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
  prepare(): Promise<void> {
    return this.#dialect.prepare();
  }

  /**
   * What a server runs before it answers: {@link EmailStore.prepare} when the database holds emails and
   * its search index is built apart from the rows (SQLite's search file, which a database migrated to
   * `0004_emails_search_file` lacks), so the first `email_search` does not pay for it. A database
   * without emails gets no search file; on PostgreSQL the index is kept with the rows, so nothing runs.
   *
   * @example
   * ```ts
   * await store.migrate();
   * await new EmailStore(store).prepareForService();
   * ```
   */
  async prepareForService(): Promise<void> {
    if (!this.#dialect.indexBuiltApart) return;
    const found = await this.#db.selectFrom('emails').select('message_id').limit(1).executeTakeFirst();
    if (found !== undefined) await this.#dialect.prepare();
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
  hasSearchIndex(): Promise<boolean> {
    return this.#dialect.hasSearchIndex();
  }

  /**
   * The best `limit` (1 to 50) emails of `inbox` matching every word of `query` in subject or body,
   * best first, with a `<mark>` snippet, and the number of the inbox's emails that match up to 2 000
   * (`total_is_lower_bound` is true when more match). Throws
   * {@link EmailQueryError} when the query has no word to search, and {@link UnknownInboxError} when
   * the inbox holds no email (checked only when nothing matched, so a search that finds emails costs
   * nothing more). When nothing matched, `unmatched_words` lists the words no email of the inbox holds
   * (each of the first 10 searched alone), so the caller knows which to drop, and `ignored_words` the
   * words the search left out as too common (PostgreSQL's stop words), which are never the reason.
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
    const result = this.#dialect.storable(inbox)
      ? await this.#dialect.search(words, inbox, size)
      : { emails: [], total: 0, total_is_lower_bound: false };
    if (result.total === 0) {
      if (!(await this.hasInbox(inbox))) throw await this.#unknownInbox(inbox);
      return { ...result, ...(await this.#unmatchedWords(words, inbox)) };
    }
    return result;
  }

  /**
   * The words no email of `inbox` holds, each looked for alone (one word needs no second search). A
   * stop word, which the search leaves out, is never the reason nothing matched: it is not listed.
   */
  async #unmatchedWords(
    words: readonly string[],
    inbox: string,
  ): Promise<Pick<EmailSearchResult, 'unmatched_words' | 'ignored_words'>> {
    const checked = words.slice(0, MAX_WORDS_CHECKED);
    const stop = await this.#dialect.stopWords(checked);
    const searched = checked.filter((word) => !stop.has(word));
    const ignored = stop.size === 0 ? {} : { ignored_words: checked.filter((word) => stop.has(word)) };
    if (words.length === 1) return { unmatched_words: searched, ...ignored };
    const unmatched: string[] = [];
    for (const word of searched) {
      if ((await this.#dialect.search([word], inbox, 1)).total === 0) unmatched.push(word);
    }
    return { unmatched_words: unmatched, ...ignored };
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
    return this.#dialect.storable(inbox) && this.#dialect.hasInbox(inbox);
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

  /**
   * The whole email, or `undefined` when no email has this id.
   *
   * @example
   * ```ts
   * const email = await emails.get('<1.0.generated@enron.example>');
   * ```
   */
  async get(messageId: string): Promise<EmailRecord | undefined> {
    if (!this.#dialect.storable(messageId)) return undefined;
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
  count(inbox?: string): Promise<number> {
    if (inbox !== undefined && !this.#dialect.storable(inbox)) return Promise.resolve(0);
    return this.#dialect.count(inbox);
  }

  /** Every inbox holding emails with its count, largest first, then by name (code-point order). */
  async #inboxCounts(): Promise<InboxCount[]> {
    const counts = await this.#dialect.inboxCounts();
    return counts.sort(
      (left, right) => right.count - left.count || (left.inbox < right.inbox ? -1 : left.inbox > right.inbox ? 1 : 0),
    );
  }

  /** The error for an inbox that holds no email: the closest names and the largest inboxes. */
  async #unknownInbox(inbox: string): Promise<UnknownInboxError> {
    const counts = await this.#inboxCounts();
    const names = counts.slice(0, SUGGESTION_POOL).map((entry) => entry.inbox);
    return new UnknownInboxError(inbox, closestInboxes(inbox, names), counts.slice(0, LARGEST_NAMED));
  }
}

/**
 * Each database's email search part, chosen once per {@link EmailStore} from the store's dialect: the
 * only place the email code reads the dialect's name (a new dialect fails to compile until it has one).
 */
const EMAIL_DIALECTS: {
  readonly [name in StoreDialectName]: (store: EmailStoreSource, db: Kysely<EmailDatabase>) => EmailDialect;
} = {
  sqlite: (store, db) => new SqliteEmailDialect(db, () => store.sqliteDriver()),
  postgres: (_store, db) => new PostgresEmailDialect(db),
};

function parseRecipients(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}
