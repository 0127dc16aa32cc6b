import { type Kysely, type Migration, sql } from 'kysely';
import type { StoreDialectName } from '../store-records.js';

/**
 * The email corpus behind `email_search` / `email_get`: `emails(message_id PK, inbox, subject, sender,
 * recipients, date, body)` plus a full-text index.
 *
 * - **SQLite**: an FTS5 external-content table `emails_fts(subject, body, inbox_tok)` over the view
 *   `emails_fts_source`, kept in sync by triggers on `emails`. `inbox_tok` is one token per inbox
 *   (`ib` + the hex of the inbox), so the inbox filter is part of the index lookup
 *   (`inbox_tok : "ib…" AND {subject body} : (…)`) rather than a post-filter over every match.
 * - **PostgreSQL**: a stored generated `tsvector` (`english`; subject weighted A, body B), a GIN index
 *   on it and a btree on `inbox`; snippets come from `ts_headline`.
 *
 * `recipients` is a JSON array as text; `date` ISO-8601 text in both dialects.
 *
 * @example
 * ```ts
 * const migrations = { '0002_emails': emailsSchema('sqlite') };
 * ```
 */
export function emailsSchema(dialect: StoreDialectName): Migration {
  const postgres = dialect === 'postgres';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('emails')
        .ifNotExists()
        .addColumn('message_id', 'text', (column) => column.primaryKey())
        .addColumn('inbox', 'text', (column) => column.notNull())
        .addColumn('subject', 'text', (column) => column.notNull().defaultTo(''))
        .addColumn('sender', 'text', (column) => column.notNull().defaultTo(''))
        .addColumn('recipients', 'text', (column) => column.notNull().defaultTo('[]'))
        .addColumn('date', 'text', (column) => column.notNull())
        .addColumn('body', 'text', (column) => column.notNull().defaultTo(''))
        .execute();
      await db.schema
        .createIndex('idx_emails_inbox_date')
        .ifNotExists()
        .on('emails')
        .columns(['inbox', 'date'])
        .execute();

      if (postgres) {
        await sql`alter table emails add column if not exists search tsvector generated always as (
          setweight(to_tsvector('english', coalesce(subject, '')), 'A') ||
          setweight(to_tsvector('english', coalesce(body, '')), 'B')
        ) stored`.execute(db);
        await sql`create index if not exists idx_emails_search on emails using gin (search)`.execute(db);
        await sql`create index if not exists idx_emails_inbox on emails (inbox)`.execute(db);
        return;
      }

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
  };
}
