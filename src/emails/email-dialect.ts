import type { Kysely } from 'kysely';
import type { EmailHit, EmailRecord, EmailSearchResult, InboxCount } from './email-record.js';
import { emailSnippet } from './email-snippet.js';

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

/**
 * A search ranks at most this many matches of an inbox, the most recent ones, and counts its matches
 * up to this many (past it the count is a lower bound), on both databases: neither visits every match
 * of a common word in a large inbox.
 *
 * @example
 * ```ts
 * const total_is_lower_bound = matches.length > SEARCH_CANDIDATES;
 * ```
 */
export const SEARCH_CANDIDATES = 2000;

/** The tables {@link EmailStore} queries. */
export interface EmailDatabase {
  emails: EmailsTable;
}

/**
 * What differs between the databases for the email corpus: how emails are stored, indexed, searched
 * and counted. {@link EmailStore} holds what they share (deduplication, query words, limits, the
 * unknown-inbox answer) and asks its dialect for the rest, never the database's name. One
 * implementation per database: `sqlite-email-dialect.ts`, `postgres-email-dialect.ts`.
 *
 * @example
 * ```ts
 * const dialect: EmailDialect = new PostgresEmailDialect(store.db as Kysely<EmailDatabase>);
 * const { emails: hits, total } = await dialect.search(['budget'], 'ann@example.com', 10);
 * ```
 */
export interface EmailDialect {
  /** Emails per import transaction unless told otherwise; `bulk` for a bulk load. */
  importBatchSize(bulk: boolean): number;
  /** How many import batches may be stored at once. */
  readonly importParallelism: number;
  /** Whether a text can be stored at all (PostgreSQL text cannot hold NUL): a text that cannot is in no row. */
  storable(text: string): boolean;
  /** Insert emails of distinct message ids in one transaction, skipping stored ids; returns how many were added. */
  insertBatch(emails: readonly EmailRecord[]): Promise<number>;
  /** Get ready for a bulk load; returns the function that ends it (see `EmailStore.beginBulkLoad`). */
  beginBulkLoad(large: boolean): Promise<() => Promise<void>>;
  /**
   * Whether the search index is kept apart from the rows and brought up to date by {@link prepare}
   * (SQLite's search file), rather than with every insert (PostgreSQL's GIN index).
   */
  readonly indexBuiltApart: boolean;
  /** Bring the search index up to date now (see `EmailStore.prepare`). */
  prepare(): Promise<void>;
  /** Whether the full-text index is in place. */
  hasSearchIndex(): Promise<boolean>;
  /**
   * The best `limit` emails of `inbox` having every word (lowercase, distinct, at least one), best
   * first, among its {@link SEARCH_CANDIDATES} most recent matches, and the number of matches up to
   * that many.
   */
  search(words: readonly string[], inbox: string, limit: number): Promise<EmailSearchResult>;
  /**
   * The words of `words` the full-text search leaves out of every query (PostgreSQL's `english` stop
   * words): alone they match nothing, and beside other words they ask for nothing.
   */
  stopWords(words: readonly string[]): Promise<ReadonlySet<string>>;
  /** Whether `inbox` holds at least one email. */
  hasInbox(inbox: string): Promise<boolean>;
  /** Every inbox that holds emails, with its exact count, in no particular order. */
  inboxCounts(): Promise<InboxCount[]>;
  /** How many emails are stored (in one inbox when given). */
  count(inbox?: string): Promise<number>;
}

/**
 * An email's columns after the id, in table order: message_id, inbox, subject, sender, recipients
 * (JSON text), date, body.
 *
 * @example
 * ```ts
 * statement.run([id, ...columnsOf(email)]);
 * ```
 */
export function columnsOf(email: EmailRecord): [string, string, string, string, string, string, string] {
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

/**
 * One search hit with its snippet, from a row of `emails`.
 *
 * @example
 * ```ts
 * const hits = rows.map((row) => toHit(row, ['budget']));
 * ```
 */
export function toHit(row: EmailHit & { body: string }, words: readonly string[]): EmailHit {
  return {
    message_id: row.message_id,
    subject: row.subject,
    sender: row.sender,
    date: row.date,
    snippet: emailSnippet(row.subject, row.body, words),
  };
}

/**
 * How many emails are stored, by Kysely (one inbox when given): the same on both databases.
 *
 * @example
 * ```ts
 * await countEmails(db, 'ann@example.com');
 * ```
 */
export async function countEmails(db: Kysely<EmailDatabase>, inbox?: string): Promise<number> {
  let query = db.selectFrom('emails').select((eb) => eb.fn.countAll<number | string | bigint>().as('n'));
  if (inbox !== undefined) query = query.where('inbox', '=', inbox);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}
