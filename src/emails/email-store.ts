import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { StoreDialectName } from '../store/store-records.js';
import type { EmailHit, EmailRecord, EmailSearchResult } from './email-record.js';
import { markSnippet, queryWords, SNIPPET_MARKERS, sqliteMatch } from './search-query.js';

/** The `emails` table as the store's migration `0002_emails` creates it. */
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

/** The most results one search returns. */
export const MAX_EMAIL_SEARCH_LIMIT = 50;

/** The PostgreSQL GIN index of migration `0002_emails`. */
const SEARCH_INDEX = 'idx_emails_search';

/** FTS5 ranking: subject matches count twice, the inbox token not at all. */
const SQLITE_RANK = 'bm25(2.0, 1.0, 0.0)';

/** Raised by {@link EmailStore.search} for a query with no searchable words. */
export class EmailQueryError extends Error {
  override readonly name = 'EmailQueryError';
}

/**
 * The email corpus over the store's database (run `store.migrate()` first): batched idempotent
 * inserts, ranked full-text search within one inbox, and lookup by message id. User text never
 * reaches the full-text syntax: only its words (letters and digits) are searched, each quoted.
 *
 * @example
 * ```ts
 * const store = await createStore(':memory:');
 * await store.migrate();
 * const emails = new EmailStore(store.db, store.dialect);
 * await emails.insertBatch([email]);
 * const { emails: hits, total } = await emails.search('budget report', 'jane@enron.com', 10);
 * ```
 */
export class EmailStore {
  readonly dialect: StoreDialectName;
  readonly #db: Kysely<EmailDatabase>;

  constructor(db: Kysely<unknown> | Kysely<never> | object, dialect: StoreDialectName) {
    this.#db = db as Kysely<EmailDatabase>;
    this.dialect = dialect;
  }

  /**
   * Insert emails in one transaction; a `message_id` already stored (or repeated in the batch) is
   * skipped. Returns how many rows were added.
   *
   * The whole batch is one statement with one parameter (the rows as a JSON array, unpacked by
   * `json_each` or `json_to_recordset`): SQLite's FTS5 writes its pending terms to disk at the start
   * of every statement that touches it, so a statement per row (or per few hundred rows) would write
   * thousands of tiny index segments and spend most of an import merging them.
   */
  async insertBatch(emails: readonly EmailRecord[]): Promise<number> {
    if (emails.length === 0) return 0;
    const seen = new Set<string>();
    const rows: string[] = [];
    for (const email of emails) {
      if (seen.has(email.message_id)) continue;
      seen.add(email.message_id);
      rows.push(
        JSON.stringify([
          email.message_id,
          email.inbox,
          email.subject,
          email.sender,
          JSON.stringify(email.recipients),
          email.date,
          email.body,
        ]),
      );
    }
    const json = `[${rows.join(',')}]`;
    // `where true` keeps SQLite from reading `on conflict` as a join constraint of the select.
    const statement =
      this.dialect === 'postgres'
        ? sql`insert into emails (message_id, inbox, subject, sender, recipients, date, body)
            select row->>0, row->>1, row->>2, row->>3, row->>4, row->>5, row->>6
            from json_array_elements(${json}::json) as rows(row)
            on conflict (message_id) do nothing`
        : sql`insert into emails (message_id, inbox, subject, sender, recipients, date, body)
            select value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6
            from json_each(${json}) where true
            on conflict (message_id) do nothing`;
    return this.#db.transaction().execute(async (trx) => {
      const result = await statement.execute(trx);
      return Number(result.numAffectedRows ?? 0n);
    });
  }

  /**
   * Get ready for a bulk load and return the function that ends it (call it in a `finally`).
   *
   * On PostgreSQL, a GIN index maintained row by row makes a large load several times slower than
   * building the index once afterwards. So when `large` is true and the table is empty, the full-text
   * index `idx_emails_search` is dropped here and built again by the returned function. An index found
   * missing (a bulk load that was killed) is built by the returned function too, whatever `large` is,
   * so the next import repairs it; until then searches still work, without the index. On SQLite the
   * FTS5 index stays in step with every batch (its triggers are part of each batch's transaction), so
   * there is nothing to do.
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
    if (this.dialect !== 'postgres') return async () => undefined;
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
   * The best `limit` (1 to 50) emails of `inbox` (of every inbox when it is `undefined`) matching
   * every word of `query` in subject or body, best first, with a `<mark>` snippet, and the number that
   * match in all. Throws {@link EmailQueryError} when the query has no word to search.
   */
  async search(query: string, inbox: string | undefined, limit = 10): Promise<EmailSearchResult> {
    const words = queryWords(query);
    if (words.length === 0) {
      throw new EmailQueryError(
        'The query has no words to search: use letters or digits, for example "budget report".',
      );
    }
    const size = Math.min(Math.max(Math.trunc(limit), 1), MAX_EMAIL_SEARCH_LIMIT);
    return this.dialect === 'postgres'
      ? this.#searchPostgres(words, inbox, size)
      : this.#searchSqlite(words, inbox, size);
  }

  /** The whole email, or `undefined` when no email has this id. */
  async get(messageId: string): Promise<EmailRecord | undefined> {
    const row = await this.#db
      .selectFrom('emails')
      .select(['message_id', 'inbox', 'subject', 'sender', 'recipients', 'date', 'body'])
      .where('message_id', '=', messageId)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return { ...row, recipients: parseRecipients(row.recipients) };
  }

  /** How many emails are stored (in one inbox when given). */
  async count(inbox?: string): Promise<number> {
    let query = this.#db.selectFrom('emails').select((eb) => eb.fn.countAll<number | string | bigint>().as('n'));
    if (inbox !== undefined) query = query.where('inbox', '=', inbox);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async #searchSqlite(words: string[], inbox: string | undefined, limit: number): Promise<EmailSearchResult> {
    const match = sqliteMatch(words, inbox);
    const { start, stop } = SNIPPET_MARKERS;
    // `order by rank` with a limit lets FTS5 rank every match itself and run highlight() and
    // snippet() (and the join) only for the rows returned; an `order by bm25(...)` expression would
    // compute them for every match before sorting.
    const hits = await sql<EmailHit & { subject_mark: string; body_mark: string }>`
      select e.message_id, e.subject, e.sender, e.date,
        highlight(emails_fts, 0, ${start}, ${stop}) as subject_mark,
        snippet(emails_fts, 1, ${start}, ${stop}, '…', 24) as body_mark
      from emails_fts join emails e on e.rowid = emails_fts.rowid
      where emails_fts match ${match} and rank match ${SQLITE_RANK}
      order by rank
      limit ${limit}`.execute(this.#db);
    const total = await sql<{ n: number }>`
      select count(*) as n from emails_fts where emails_fts match ${match}`.execute(this.#db);
    return {
      emails: hits.rows.map((row) => ({
        message_id: row.message_id,
        subject: row.subject,
        sender: row.sender,
        date: row.date,
        snippet: combineSnippet(row.subject_mark ?? '', row.body_mark ?? ''),
      })),
      total: Number(total.rows[0]?.n ?? 0),
    };
  }

  async #searchPostgres(words: string[], inbox: string | undefined, limit: number): Promise<EmailSearchResult> {
    const text = words.join(' ');
    const options = `StartSel="${SNIPPET_MARKERS.start}", StopSel="${SNIPPET_MARKERS.stop}", MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "`;
    // Ranking and the limit first; ts_headline (slow on long bodies) only for the page returned.
    const hits = await sql<EmailHit & { subject_mark: string; body_mark: string }>`
      with q as (select plainto_tsquery('english', ${text}) as query),
      hits as (
        select e.message_id, e.subject, e.sender, e.date, e.body, ts_rank(e.search, q.query) as rank
        from emails e, q
        where ${inboxFilter(inbox, sql.ref('e.inbox'))} and e.search @@ q.query
        order by rank desc, e.date desc
        limit ${limit}
      )
      select hits.message_id, hits.subject, hits.sender, hits.date,
        ts_headline('english', hits.subject, q.query, ${`${options}, HighlightAll=true`}) as subject_mark,
        ts_headline('english', left(hits.body, 200000), q.query, ${options}) as body_mark
      from hits, q
      order by hits.rank desc, hits.date desc`.execute(this.#db);
    const total = await sql<{ n: string | number }>`
      select count(*) as n from emails
      where ${inboxFilter(inbox, sql.ref('inbox'))} and search @@ plainto_tsquery('english', ${text})`.execute(
      this.#db,
    );
    return {
      emails: hits.rows.map((row) => ({
        message_id: row.message_id,
        subject: row.subject,
        sender: row.sender,
        date: row.date,
        snippet: combineSnippet(row.subject_mark ?? '', row.body_mark ?? ''),
      })),
      total: Number(total.rows[0]?.n ?? 0),
    };
  }
}

/** `column = inbox`, or true when there is no inbox to filter on. */
function inboxFilter(inbox: string | undefined, column: RawBuilder<unknown>) {
  return inbox === undefined ? sql`true` : sql`${column} = ${inbox}`;
}

/** `Subject: … | Body: …`, with the subject left out when it has no match and the body has one. */
function combineSnippet(subject: string, body: string): string {
  const subjectHit = subject.includes(SNIPPET_MARKERS.start);
  const bodyHit = body.includes(SNIPPET_MARKERS.start);
  const parts: string[] = [];
  if (subjectHit || !bodyHit) parts.push(`Subject: ${markSnippet(subject)}`);
  if (bodyHit || !subjectHit) parts.push(`Body: ${markSnippet(body)}`);
  return parts.join(' | ');
}

function parseRecipients(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}
