import { type Kysely, sql } from 'kysely';
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

/** Rows per INSERT statement (SQLite allows 32 766 bound values; 7 columns × 500 stays far below). */
const ROWS_PER_STATEMENT = 500;

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
   */
  async insertBatch(emails: readonly EmailRecord[]): Promise<number> {
    if (emails.length === 0) return 0;
    const seen = new Set<string>();
    const rows: EmailsTable[] = [];
    for (const email of emails) {
      if (seen.has(email.message_id)) continue;
      seen.add(email.message_id);
      rows.push({
        message_id: email.message_id,
        inbox: email.inbox,
        subject: email.subject,
        sender: email.sender,
        recipients: JSON.stringify(email.recipients),
        date: email.date,
        body: email.body,
      });
    }
    return this.#db.transaction().execute(async (trx) => {
      let added = 0;
      for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
        const result = await trx
          .insertInto('emails')
          .values(rows.slice(start, start + ROWS_PER_STATEMENT))
          .onConflict((conflict) => conflict.column('message_id').doNothing())
          .executeTakeFirst();
        added += Number(result.numInsertedOrUpdatedRows ?? 0n);
      }
      return added;
    });
  }

  /**
   * The best `limit` (1 to 50) emails of `inbox` matching every word of `query` in subject or body,
   * best first, with a `<mark>` snippet, and the number that match in all. Throws
   * {@link EmailQueryError} when the query has no word to search.
   */
  async search(query: string, inbox: string, limit = 10): Promise<EmailSearchResult> {
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

  async #searchSqlite(words: string[], inbox: string, limit: number): Promise<EmailSearchResult> {
    const match = sqliteMatch(words, inbox);
    const { start, stop } = SNIPPET_MARKERS;
    const hits = await sql<EmailHit & { subject_mark: string; body_mark: string }>`
      select e.message_id, e.subject, e.sender, e.date,
        highlight(emails_fts, 0, ${start}, ${stop}) as subject_mark,
        snippet(emails_fts, 1, ${start}, ${stop}, '…', 24) as body_mark
      from emails_fts join emails e on e.rowid = emails_fts.rowid
      where emails_fts match ${match}
      order by bm25(emails_fts, 2.0, 1.0, 0.0), e.date desc
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

  async #searchPostgres(words: string[], inbox: string, limit: number): Promise<EmailSearchResult> {
    const text = words.join(' ');
    const options = `StartSel="${SNIPPET_MARKERS.start}", StopSel="${SNIPPET_MARKERS.stop}", MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "`;
    // Ranking and the limit first; ts_headline (slow on long bodies) only for the page returned.
    const hits = await sql<EmailHit & { subject_mark: string; body_mark: string }>`
      with q as (select plainto_tsquery('english', ${text}) as query),
      hits as (
        select e.message_id, e.subject, e.sender, e.date, e.body, ts_rank(e.search, q.query) as rank
        from emails e, q
        where e.inbox = ${inbox} and e.search @@ q.query
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
      where inbox = ${inbox} and search @@ plainto_tsquery('english', ${text})`.execute(this.#db);
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
