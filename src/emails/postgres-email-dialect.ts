import { type Kysely, sql } from 'kysely';
import { columnsOf, countEmails, type EmailDatabase, type EmailDialect, toHit } from './email-dialect.js';
import type { EmailHit, EmailRecord, EmailSearchResult, InboxCount } from './email-record.js';

/** The PostgreSQL GIN index of migration `0002_emails`. */
const SEARCH_INDEX = 'idx_emails_search';

/**
 * The email corpus on PostgreSQL: a stored generated `tsvector` with a GIN index, ranked by `ts_rank`
 * with the inbox as a btree filter; batches inserted as one JSON parameter; the GIN index built once
 * at the end of a bulk load into an empty table.
 *
 * @example
 * ```ts
 * const dialect = new PostgresEmailDialect(store.db as Kysely<EmailDatabase>);
 * await dialect.insertBatch([email]);
 * ```
 */
export class PostgresEmailDialect implements EmailDialect {
  /**
   * PostgreSQL does most of a batch's work (to_tsvector) in its own process: with two batches in
   * flight on two connections, the next batch is read while the last one is stored.
   */
  readonly importParallelism = 2;
  readonly #db: Kysely<EmailDatabase>;

  constructor(db: Kysely<EmailDatabase>) {
    this.#db = db;
  }

  importBatchSize(): number {
    return 1000;
  }

  storable(text: string): boolean {
    // PostgreSQL text cannot hold NUL (the driver would fail the query), so no row has one.
    return !text.includes('\0');
  }

  /**
   * The whole batch is one statement with one parameter (the rows as a JSON array, unpacked by
   * `json_array_elements`): one statement per row would cost a round trip each.
   */
  async insertBatch(emails: readonly EmailRecord[]): Promise<number> {
    const rows = emails.map((email) => JSON.stringify(columnsOf(email)));
    const json = `[${rows.join(',')}]`;
    return this.#db.transaction().execute(async (trx) => {
      const result = await sql`insert into emails (message_id, inbox, subject, sender, recipients, date, body)
        select row->>0, row->>1, row->>2, row->>3, row->>4, row->>5, row->>6
        from json_array_elements(${json}::json) as rows(row)
        on conflict (message_id) do nothing`.execute(trx);
      return Number(result.numAffectedRows ?? 0n);
    });
  }

  /**
   * A GIN index maintained row by row makes a large load several times slower than building the index
   * once afterwards. So when `large` is true and the table is empty, `idx_emails_search` is dropped
   * here and built again by the returned function. An index found missing (a bulk load that was
   * killed) is built by the returned function too, whatever `large` is.
   */
  async beginBulkLoad(large: boolean): Promise<() => Promise<void>> {
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

  async prepare(): Promise<void> {}

  async hasSearchIndex(): Promise<boolean> {
    const found = await sql<{ name: string | null }>`select to_regclass(${SEARCH_INDEX})::text as name`.execute(
      this.#db,
    );
    return found.rows[0]?.name != null;
  }

  async search(words: readonly string[], inbox: string, limit: number): Promise<EmailSearchResult> {
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

  async hasInbox(inbox: string): Promise<boolean> {
    const found = await sql<{
      found: boolean;
    }>`select exists (select 1 from emails where inbox = ${inbox}) as found`.execute(this.#db);
    return found.rows[0]?.found === true;
  }

  /** A `group by` over the `inbox` index (an index-only scan once the table is vacuumed). */
  async inboxCounts(): Promise<InboxCount[]> {
    const rows = await sql<{ inbox: string; n: string | number }>`select inbox, count(*) as n
      from emails group by inbox`.execute(this.#db);
    return rows.rows.map((row) => ({ inbox: row.inbox, count: Number(row.n) }));
  }

  count(inbox?: string): Promise<number> {
    return countEmails(this.#db, inbox);
  }
}
