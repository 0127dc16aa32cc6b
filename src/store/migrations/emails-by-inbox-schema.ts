import { type Kysely, type Migration, sql } from 'kysely';
import type { StoreDialectName } from '../store-records.js';

/** Rows of one inbox get ids `inbox id × 2^32 + 1, + 2, …`, so an inbox is one contiguous rowid range. */
const INBOX_SPAN = 4294967296;

/**
 * The email corpus clustered by inbox (SQLite), converting the rows `0002_emails` stored.
 *
 * - **SQLite**: `email_inboxes(id INTEGER PRIMARY KEY, name UNIQUE)` numbers the inboxes, and
 *   `emails` gets an explicit `id INTEGER PRIMARY KEY` of `inbox id × 2^32 + n` (n counts up within the
 *   inbox), so an inbox is one contiguous rowid range and FTS5 answers `rowid BETWEEN` by seeking in
 *   its doclists instead of matching an inbox token. `emails_fts(subject, body)` is an external-content
 *   FTS5 table over `emails` with `detail=column, columnsize=0`: no positions and no per-row sizes,
 *   because ranking and snippets are computed in the application and only need which rows match and
 *   in which column. Triggers keep it in sync inside each writing transaction. Existing rows keep their
 *   order within an inbox (by date, then old rowid) and the index is rebuilt from them.
 * - **PostgreSQL**: nothing changes in the tables (the inbox is a btree filter beside the GIN index).
 *
 * @example
 * ```ts
 * const migrations = { '0003_emails_by_inbox': emailsByInboxSchema('sqlite') };
 * ```
 */
export function emailsByInboxSchema(dialect: StoreDialectName): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') return;
      for (const trigger of ['emails_fts_ai', 'emails_fts_ad', 'emails_fts_au']) {
        await sql`drop trigger if exists ${sql.ref(trigger)}`.execute(db);
      }
      await sql`drop table if exists emails_fts`.execute(db);
      await sql`drop view if exists emails_fts_source`.execute(db);
      await sql`drop index if exists idx_emails_inbox_date`.execute(db);
      await sql`alter table emails rename to emails_0002`.execute(db);

      await sql`create table email_inboxes (
        id integer primary key,
        name text not null unique
      )`.execute(db);
      await sql`create table emails (
        id integer primary key,
        message_id text not null unique,
        inbox text not null,
        subject text not null default '',
        sender text not null default '',
        recipients text not null default '[]',
        date text not null,
        body text not null default ''
      )`.execute(db);
      await sql`insert into email_inboxes (name) select distinct inbox from emails_0002 order by inbox`.execute(db);
      await sql`insert into emails (id, message_id, inbox, subject, sender, recipients, date, body)
        select ib.id * ${sql.lit(INBOX_SPAN)} + row_number() over (partition by ib.id order by old.date, old.rowid),
          old.message_id, old.inbox, old.subject, old.sender, old.recipients, old.date, old.body
        from emails_0002 old join email_inboxes ib on ib.name = old.inbox
        order by 1`.execute(db);
      await sql`drop table emails_0002`.execute(db);

      await sql`create virtual table emails_fts using fts5(
        subject, body,
        content = 'emails', content_rowid = 'id',
        detail = column, columnsize = 0,
        tokenize = 'porter unicode61 remove_diacritics 2'
      )`.execute(db);
      await sql`insert into emails_fts (emails_fts) values ('rebuild')`.execute(db);
      await sql`create trigger emails_fts_ai after insert on emails begin
        insert into emails_fts (rowid, subject, body) values (new.id, new.subject, new.body);
      end`.execute(db);
      await sql`create trigger emails_fts_ad after delete on emails begin
        insert into emails_fts (emails_fts, rowid, subject, body) values ('delete', old.id, old.subject, old.body);
      end`.execute(db);
      await sql`create trigger emails_fts_au after update on emails begin
        insert into emails_fts (emails_fts, rowid, subject, body) values ('delete', old.id, old.subject, old.body);
        insert into emails_fts (rowid, subject, body) values (new.id, new.subject, new.body);
      end`.execute(db);
    },
  };
}
