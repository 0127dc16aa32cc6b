import { type Kysely, sql } from 'kysely';
import type { SchemaDialect } from '../migrations/schema-dialect.js';

/** Rows of one inbox get ids `inbox id × 2^32 + 1, + 2, …`, so an inbox is one contiguous rowid range. */
const INBOX_SPAN = 4294967296;

/**
 * The SQLite schema: ISO-8601 text timestamps, `blob`, `integer ... autoincrement`, and the email index
 * in FTS5 (see the `0002`–`0004` migrations for its history).
 *
 * @example
 * ```ts
 * const migrator = new Migrator({ db, provider: new ToolshedMigrationProvider(sqliteSchemaDialect), ...MIGRATION_TABLES });
 * ```
 */
export const sqliteSchemaDialect: SchemaDialect = {
  timestamp: { type: 'text', now: sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))` },
  binary: 'blob',
  byteOrderedText: 'text',
  serialKey: { type: 'integer', build: (column) => column.primaryKey().autoIncrement() },

  async createEmailSearch(db) {
    // The content "table" is a view, so the inbox token need not be a column of `emails`.
    await sql`create view if not exists emails_fts_source as
        select rowid as email_rowid, subject, body, 'ib' || lower(hex(inbox)) as inbox_tok from emails`.execute(db);
    await sql`create virtual table if not exists emails_fts using fts5(
        subject, body, inbox_tok,
        content = 'emails_fts_source', content_rowid = 'email_rowid',
        tokenize = 'porter unicode61 remove_diacritics 2'
      )`.execute(db);
    await sql`create trigger if not exists emails_fts_ai after insert on emails begin
        insert into emails_fts(rowid, subject, body, inbox_tok)
        values (new.rowid, new.subject, new.body, 'ib' || lower(hex(new.inbox)));
      end`.execute(db);
    await sql`create trigger if not exists emails_fts_ad after delete on emails begin
        insert into emails_fts(emails_fts, rowid, subject, body, inbox_tok)
        values ('delete', old.rowid, old.subject, old.body, 'ib' || lower(hex(old.inbox)));
      end`.execute(db);
    await sql`create trigger if not exists emails_fts_au after update on emails begin
        insert into emails_fts(emails_fts, rowid, subject, body, inbox_tok)
        values ('delete', old.rowid, old.subject, old.body, 'ib' || lower(hex(old.inbox)));
        insert into emails_fts(rowid, subject, body, inbox_tok)
        values (new.rowid, new.subject, new.body, 'ib' || lower(hex(new.inbox)));
      end`.execute(db);
  },

  async clusterEmailsByInbox(db) {
    await dropEmailSearch(db);
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

  async moveEmailSearchOut(db) {
    await dropEmailSearch(db);
  },

  async scopeEmailSearchToInbox() {
    // An inbox is already one rowid range of the FTS5 index: nothing to change.
  },
  async keepEmailSearchInline() {
    // FTS5 keeps its index apart from the rows: nothing to change.
  },
};

/** Drop the FTS5 index kept in the main database file and the triggers that fed it. */
async function dropEmailSearch(db: Kysely<unknown>): Promise<void> {
  for (const trigger of ['emails_fts_ai', 'emails_fts_ad', 'emails_fts_au']) {
    await sql`drop trigger if exists ${sql.ref(trigger)}`.execute(db);
  }
  await sql`drop table if exists emails_fts`.execute(db);
}
