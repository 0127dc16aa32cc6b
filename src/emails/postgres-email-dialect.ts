import { type Kysely, sql } from 'kysely';
import {
  columnsOf,
  countEmails,
  type EmailDatabase,
  type EmailDialect,
  SEARCH_CANDIDATES,
  toHit,
} from './email-dialect.js';
import type { EmailHit, EmailRecord, EmailSearchResult, InboxCount } from './email-record.js';

/** The PostgreSQL GIN index: over `search` (migration `0002_emails`), over the inbox keys and `search` since `0015`. */
const SEARCH_INDEX = 'idx_emails_search';

/**
 * The keys the GIN index holds beside the words (migration `0015`): the inbox (`<inbox> *`) and its
 * month (`<inbox> 2001-05`, or `<inbox> other` for a date that does not start with a year and month).
 * Each ends with a part that has no space and is never `*` in the other kind, so no two inboxes share a
 * key. A query names this expression word for word, or the planner cannot use the index.
 */
const INBOX_KEYS = sql`(array[inbox || ' *', inbox || ' ' || case when date ~ '^[0-9]{4}-(0[1-9]|1[0-2])' then left(date, 7) else 'other' end])`;

/** A date's year and month as a month count, when it starts with them (as every stored ISO date does). */
const MONTH = /^(\d{4})-(0[1-9]|1[0-2])/;

/** Past this many months between an inbox's oldest and newest email, a search reads the inbox as one window. */
const MAX_WINDOW_MONTHS = 1200;

/**
 * How many of an inbox's most recent months a search reads one at a time before its windows double. A
 * window's matches are all read before they are sorted by date, so a long last window reads many
 * matches that are not kept; each window also probes the index once more (decision 018).
 */
const SINGLE_MONTH_WINDOWS = 48;

/**
 * The windows a search reads an inbox's matches in, newest first: each a run of the `keys` it lists
 * (1-based, inclusive): one month each for the {@link SINGLE_MONTH_WINDOWS} most recent, then runs of
 * 2, 4, 8… months, then the dates without a month. Months partition the dates in date order, so the
 * first 2 001 matches met, window after window, each window sorted by date, are the 2 001 most recent.
 * An inbox whose oldest or newest date has no month is one window over the whole inbox.
 */
function searchWindows(
  inbox: string,
  oldest: string,
  newest: string,
): { keys: string[]; starts: number[]; ends: number[] } {
  const low = MONTH.exec(oldest);
  const high = MONTH.exec(newest);
  const first = low === null ? undefined : Number(low[1]) * 12 + Number(low[2]) - 1;
  const last = high === null ? undefined : Number(high[1]) * 12 + Number(high[2]) - 1;
  if (first === undefined || last === undefined || last < first || last - first >= MAX_WINDOW_MONTHS) {
    return { keys: [`${inbox} *`], starts: [1], ends: [1] };
  }
  const keys: string[] = [];
  for (let month = last; month >= first; month -= 1) {
    keys.push(
      `${inbox} ${String(Math.floor(month / 12)).padStart(4, '0')}-${String((month % 12) + 1).padStart(2, '0')}`,
    );
  }
  const starts: number[] = [];
  const ends: number[] = [];
  for (
    let start = 1, size = 1;
    start <= keys.length;
    start += size, size = starts.length < SINGLE_MONTH_WINDOWS ? 1 : size * 2
  ) {
    starts.push(start);
    ends.push(Math.min(start + size - 1, keys.length));
  }
  keys.push(`${inbox} other`);
  starts.push(keys.length);
  ends.push(keys.length);
  return { keys, starts, ends };
}

/**
 * The email corpus on PostgreSQL: a stored generated `tsvector` with a GIN index over the inbox's keys
 * and `search` (migration `0015`), searched a few months at a time and ranked by `ts_rank`; batches
 * inserted as one array parameter per column; the GIN index built once at the end of a bulk load into an
 * empty table.
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
   * The whole batch is one statement with one parameter per column (a text array each, zipped back
   * into rows by `unnest`): one statement per row would cost a round trip each. At 100 000 emails
   * into a table without the search column this took 3.6–6.0 s, against 13.0–13.7 s for the rows
   * as one JSON array (whose `->>` parses every element again for each column) and 5.5–5.9 s for
   * `COPY` into a staging table (`COPY` alone cannot skip stored message ids).
   */
  async insertBatch(emails: readonly EmailRecord[]): Promise<number> {
    const columns: string[][] = [[], [], [], [], [], [], []];
    for (const email of emails) {
      const values = columnsOf(email);
      for (let index = 0; index < values.length; index += 1) columns[index]?.push(values[index] as string);
    }
    const [ids, inboxes, subjects, senders, recipients, dates, bodies] = columns;
    // One statement is one transaction: nothing of a batch is stored when any row of it fails.
    const result = await sql`insert into emails (message_id, inbox, subject, sender, recipients, date, body)
      select * from unnest(${ids}::text[], ${inboxes}::text[], ${subjects}::text[], ${senders}::text[],
        ${recipients}::text[], ${dates}::text[], ${bodies}::text[])
      on conflict (message_id) do nothing`.execute(this.#db);
    return Number(result.numAffectedRows ?? 0n);
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
        // One sort in memory instead of many runs on disk for a large table; building the index of a
        // large corpus outlasts the store's statement timeout (over a minute at 500 000 emails).
        await sql`set local maintenance_work_mem = '256MB'`.execute(trx);
        await sql`set local statement_timeout = 0`.execute(trx);
        await sql`create index if not exists ${sql.ref(SEARCH_INDEX)} on emails using gin (${INBOX_KEYS}, search)`.execute(
          trx,
        );
      });
      await sql`analyze emails`.execute(this.#db);
    };
  }

  /** The GIN index is maintained with every insert (or built at the end of a bulk load). */
  readonly indexBuiltApart = false;

  async prepare(): Promise<void> {}

  async hasSearchIndex(): Promise<boolean> {
    const found = await sql<{ name: string | null }>`select to_regclass(${SEARCH_INDEX})::text as name`.execute(
      this.#db,
    );
    return found.rows[0]?.name != null;
  }

  /**
   * The inbox's {@link SEARCH_CANDIDATES} most recent matches (by date; one more to tell whether more
   * match) are ranked by `ts_rank`, and only the page's rows are read whole.
   *
   * The GIN index finds a word's matches within one month of one inbox (see {@link INBOX_KEYS}), but
   * cannot give them in date order: every match it yields is read from the table to be sorted. So the
   * matches are taken newest first, a month at a time for the {@link SINGLE_MONTH_WINDOWS} most recent
   * months, then in windows of 2, 4, 8… months ({@link searchWindows}), and reading stops at the window
   * that brings the 2 001st: a common word in a busy inbox reads a few thousand rows instead of every one
   * of its tens of thousands of matches. One statement after the inbox's oldest and newest dates are read
   * (two probes of `(inbox, date)`).
   */
  async search(words: readonly string[], inbox: string, limit: number): Promise<EmailSearchResult> {
    const span = await sql<{ oldest: string | null; newest: string | null }>`
      select min(date) as oldest, max(date) as newest from emails where inbox = ${inbox}`.execute(this.#db);
    const { oldest, newest } = span.rows[0] ?? { oldest: null, newest: null };
    if (oldest === null || newest === null) return { emails: [], total: 0, total_is_lower_bound: false };
    const { keys, starts, ends } = searchWindows(inbox, oldest, newest);
    const text = words.join(' ');
    // The windows are a lateral join read in order and cut by the outer limit: the executor runs a
    // window only while fewer than 2 001 matches have come out of the earlier ones. Each match is ranked
    // as it comes out of its window, from the row just read (its `tsvector` is kept in the row since
    // migration 0016, decision 018), not read again afterwards. The tsquery is inline so the planner
    // sees each word's frequency. The snippets of the page returned are built here, as on SQLite
    // (ts_headline is slow on long bodies and marks differently).
    const found = await sql<EmailHit & { body: string; candidates: string | number }>`
      with candidates as materialized (
        select message_id, date, rank, row_number() over (order by date desc, message_id desc) as position
        from (
          select found.message_id, found.date, found.rank
          from unnest(${starts}::int[], ${ends}::int[]) with ordinality as window_run(first, last, n)
          cross join lateral (
            select message_id, date, ts_rank(search, plainto_tsquery('english', ${text})) as rank from emails
            where ${INBOX_KEYS} && (${keys}::text[])[window_run.first:window_run.last]
              and search @@ plainto_tsquery('english', ${text})
            order by date desc, message_id desc
            limit ${SEARCH_CANDIDATES + 1}
          ) found
          limit ${SEARCH_CANDIDATES + 1}
        ) recent
      ),
      page as (
        select message_id, date, rank from candidates
        where position <= ${SEARCH_CANDIDATES}
        order by rank desc, date desc, message_id desc
        limit ${limit}
      )
      select e.message_id, e.subject, e.sender, e.date, left(e.body, 200000) as body,
        (select count(*) from candidates) as candidates
      from page join emails e on e.message_id = page.message_id
      order by page.rank desc, page.date desc, page.message_id desc`.execute(this.#db);
    const matched = Number(found.rows[0]?.candidates ?? 0);
    return {
      emails: found.rows.map((row) => toHit(row, words)),
      total: Math.min(matched, SEARCH_CANDIDATES),
      total_is_lower_bound: matched > SEARCH_CANDIDATES,
    };
  }

  /** The words whose `english` tsquery is empty. */
  async stopWords(words: readonly string[]): Promise<ReadonlySet<string>> {
    const found = await sql<{ word: string }>`
      select word from unnest(${[...words]}::text[]) as word
      where numnode(plainto_tsquery('english', word)) = 0`.execute(this.#db);
    return new Set(found.rows.map((row) => row.word));
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
