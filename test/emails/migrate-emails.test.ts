import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, Migrator, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { EmailRecord } from '../../src/emails/email-record.js';
import { EmailStore } from '../../src/emails/email-store.js';
import { generateEmails } from '../../src/emails/generate-emails.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';
import { MIGRATION_TABLES, ToolshedMigrationProvider } from '../../src/store/migrations/toolshed-migration-provider.js';
import { postgresSchemaDialect } from '../../src/store/postgres/postgres-schema-dialect.js';
import { sqliteSchemaDialect } from '../../src/store/sqlite/sqlite-schema-dialect.js';
import { migrationsFrom } from '../support/migration-names.js';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../support/postgres-test-database.js';

const SCHEMA_DIALECTS = { sqlite: sqliteSchemaDialect, postgres: postgresSchemaDialect };

type Dialect = keyof typeof SCHEMA_DIALECTS;

/** Every migration before `target`, as a database of the release before `target` has them. */
async function migrateBefore(target: string, db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const all = await new ToolshedMigrationProvider(SCHEMA_DIALECTS[dialect]).getMigrations();
  const earlier = Object.fromEntries(Object.entries(all).filter(([name]) => name < target));
  const migrator = new Migrator({ db, provider: { getMigrations: async () => earlier }, ...MIGRATION_TABLES });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}

/**
 * `migration <target> on <dialect>` for each dialect, with one test, `name`: `test` gets a store (in a
 * fresh folder, or a fresh PostgreSQL database) with every migration before `target` applied. The
 * store and its database are removed after it.
 */
function describeMigration(
  target: string,
  name: string,
  test: (store: ToolshedStore, dialect: Dialect) => Promise<void>,
): void {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    describe(`migration ${target} on ${dialect}`, () => {
      let folder: string | undefined;
      let database: PostgresTestDatabase | undefined;
      let store: ToolshedStore | undefined;
      afterAll(async () => {
        await store?.close();
        await database?.drop();
        if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
      });

      it(name, async () => {
        if (dialect === 'sqlite') {
          folder = mkdtempSync(join(tmpdir(), 'toolshed-emails-migrate-'));
          store = await createStore(join(folder, 'toolshed.db'));
        } else {
          database = await createPostgresTestDatabase('toolshed_emails_migrate', 'The email migration test');
          store = await createStore(database.url, { notifications: false });
        }
        await migrateBefore(target, store.db as Kysely<unknown>, dialect);
        await test(store, dialect);
      });
    });
  }
}

const ALICE = 'alice@enron.com';
const BOB = 'bob@enron.com';

function email(id: number, inbox: string, subject: string, body: string, date: string): EmailRecord {
  return {
    message_id: `<${id}.migrate@enron.com>`,
    inbox,
    subject,
    sender: 'jane.doe@enron.com',
    recipients: [inbox],
    date,
    body,
  };
}

/** Stored through the `0002_emails` schema, interleaving the inboxes and out of date order. */
const OLD = [
  email(1, ALICE, 'Gas forecast', 'The gas forecast for May.', '2001-05-03T00:00:00.000Z'),
  email(2, BOB, 'Gas desk', 'Bob reads the gas desk notes.', '2001-05-01T00:00:00.000Z'),
  email(3, ALICE, 'Lunch', 'Lunch & gas <stations>.', '2001-05-01T00:00:00.000Z'),
  email(4, BOB, 'Power', 'Power prices.', '2001-05-02T00:00:00.000Z'),
];

describeMigration(
  '0003_emails_by_inbox',
  'keeps the emails of an existing database searchable, and new ones go to their inbox',
  async (store, dialect) => {
    for (const row of OLD) {
      await sql`insert into emails (message_id, inbox, subject, sender, recipients, date, body)
        values (${row.message_id}, ${row.inbox}, ${row.subject}, ${row.sender}, ${JSON.stringify(row.recipients)},
          ${row.date}, ${row.body})`.execute(store.db);
    }
    expect(await store.migrate()).toEqual({
      applied: migrationsFrom('0003_emails_by_inbox'),
    });
    const emails = new EmailStore(store);

    expect(await emails.count()).toBe(4);
    expect(await emails.count(ALICE)).toBe(2);
    expect(await emails.get('<3.migrate@enron.com>')).toEqual(OLD[2]);
    const gas = await emails.search('gas', ALICE, 10);
    expect(gas.total).toBe(2);
    expect(gas.emails.map((hit) => hit.message_id)).toEqual(['<1.migrate@enron.com>', '<3.migrate@enron.com>']);
    expect(gas.emails[1]?.snippet).toBe('Body: Lunch &amp; <mark>gas</mark> &lt;stations&gt;.');
    expect((await emails.search('gas', BOB, 10)).emails.map((hit) => hit.message_id)).toEqual([
      '<2.migrate@enron.com>',
    ]);

    const added = email(5, ALICE, 'Gas again', 'More gas.', '2001-04-01T00:00:00.000Z');
    expect(await emails.insertBatch([added, OLD[0] as EmailRecord])).toBe(1);
    expect((await emails.search('gas', ALICE, 10)).total).toBe(3);
    // The migration numbers each inbox's rows from 1, so inboxes are counted from their newest ids.
    expect(await emails.inboxes()).toEqual({
      inboxes: [
        { inbox: ALICE, count: 3 },
        { inbox: BOB, count: 2 },
      ],
      total: 2,
    });
    if (dialect === 'sqlite') {
      const ids = await sql<{ id: number; message_id: string }>`
        select id, message_id from emails order by id`.execute(store.db);
      // Alice is inbox 1 (names in order), rows by date within it; Bob's rows follow in their own range.
      expect(ids.rows).toEqual([
        { id: 2 ** 32 + 1, message_id: '<3.migrate@enron.com>' },
        { id: 2 ** 32 + 2, message_id: '<1.migrate@enron.com>' },
        { id: 2 ** 32 + 3, message_id: '<5.migrate@enron.com>' },
        { id: 2 * 2 ** 32 + 1, message_id: '<2.migrate@enron.com>' },
        { id: 2 * 2 ** 32 + 2, message_id: '<4.migrate@enron.com>' },
      ]);
      // Throws when the index and the table disagree.
      await sql`insert into emails_fts (emails_fts) values ('integrity-check')`.execute(store.db);
    }
  },
);

/** Generated emails, each with a word of its own (`mark<n>x`), in three inboxes. */
const MARKED = [...generateEmails({ count: 240, inboxes: 3, seed: 15 })].map((item, index) => ({
  ...item,
  body: `${item.body} mark${index}x`,
}));

describeMigration(
  '0015_emails_search_by_inbox',
  'keeps every stored email searchable in its inbox, with the same answers as before',
  async (store, dialect) => {
    const before = new EmailStore(store);
    expect(await before.insertBatch(MARKED)).toBe(MARKED.length);
    const inboxes = [...new Set(MARKED.map((item) => item.inbox))];
    const queries = ['gas', 'meeting schedule', 'the', 'contract price'];
    const answers = async (emails: EmailStore) =>
      Promise.all(inboxes.flatMap((inbox) => queries.map((query) => emails.search(query, inbox, 50))));
    const earlier = await answers(before);
    expect(earlier.some((answer) => answer.total > 0)).toBe(true);

    expect(await store.migrate()).toEqual({ applied: migrationsFrom('0015_emails_search_by_inbox') });
    const emails = new EmailStore(store);
    expect(await answers(emails)).toEqual(earlier);
    for (const [index, item] of MARKED.entries()) {
      const found = await emails.search(`mark${index}x`, item.inbox, 10);
      expect({ index, ids: found.emails.map((hit) => hit.message_id), total: found.total }).toEqual({
        index,
        ids: [item.message_id],
        total: 1,
      });
      // Another inbox does not have it.
      const other = inboxes.find((inbox) => inbox !== item.inbox) ?? '';
      expect((await emails.search(`mark${index}x`, other, 10)).total).toBe(0);
    }

    const added = { ...(MARKED[0] as EmailRecord), message_id: '<added.migrate@enron.com>', body: 'fresh wordzz' };
    expect(await emails.insertBatch([added])).toBe(1);
    expect((await emails.search('wordzz', added.inbox, 10)).emails.map((hit) => hit.message_id)).toEqual([
      added.message_id,
    ]);
    if (dialect === 'postgres') {
      const index = await sql<{ definition: string }>`
        select indexdef as definition from pg_indexes where indexname = 'idx_emails_search'`.execute(store.db);
      // PostgreSQL prints the index's expression over several lines.
      expect(index.rows.map((item) => item.definition.replace(/\s+/g, ' '))).toEqual([
        "CREATE INDEX idx_emails_search ON public.emails USING gin ((ARRAY[(inbox || ' *'::text), ((inbox || ' '::text) || CASE WHEN (date ~ '^[0-9]{4}-(0[1-9]|1[0-2])'::text) THEN \"left\"(date, 7) ELSE 'other'::text END)]), search)",
      ]);
      // The store's statement timeout is back for what runs after the rebuild.
      const timeout = await sql<{ value: string }>`select current_setting('statement_timeout') as value`.execute(
        store.db,
      );
      expect(timeout.rows[0]?.value).toBe('30s');
    }
  },
);

/** A long body of words of its own, so that its row is over PostgreSQL's 2 kB and something leaves it. */
function longBody(index: number): string {
  return Array.from({ length: 400 }, (_, word) => `w${index}x${word}`).join(' ');
}

describeMigration(
  '0016_emails_search_inline',
  "keeps every email's answers, ranks included, and lays out the rows written after it so",
  async (store, dialect) => {
    const stored = MARKED.slice(0, 60).map((item, index) =>
      index % 3 === 0 ? { ...item, body: `${item.body} ${longBody(index)}` } : item,
    );
    const before = new EmailStore(store);
    expect(await before.insertBatch(stored)).toBe(stored.length);
    const inboxes = [...new Set(stored.map((item) => item.inbox))];
    const queries = ['gas', 'meeting schedule', 'the', 'w0x7', 'w3x100 w3x5'];
    const answers = async (emails: EmailStore) =>
      Promise.all(inboxes.flatMap((inbox) => queries.map((query) => emails.search(query, inbox, 50))));
    const earlier = await answers(before);
    expect(earlier.filter((answer) => answer.total > 0).length).toBeGreaterThan(inboxes.length);

    expect(await store.migrate()).toEqual({ applied: ['0016_emails_search_inline'] });
    const emails = new EmailStore(store);
    expect(await answers(emails)).toEqual(earlier);

    const added = { ...(MARKED[70] as EmailRecord), message_id: '<inline.migrate@enron.com>', body: longBody(999) };
    expect(await emails.insertBatch([added])).toBe(1);
    const found = await emails.search('w999x399 w999x0', added.inbox, 10);
    expect(found.emails.map((hit) => hit.message_id)).toEqual([added.message_id]);
    expect(found.emails[0]?.snippet).toContain('<mark>w999x0</mark>');
    if (dialect === 'postgres') {
      const storage = await sql<{ name: string; storage: string }>`
        select attname as name, attstorage as storage from pg_attribute
        where attrelid = 'emails'::regclass and attname in ('message_id', 'inbox', 'date', 'search', 'body')
        order by attname`.execute(store.db);
      // `m`: compressed in the row, out of it only as a last resort; `p`: never moved; `x`: the default.
      expect(storage.rows).toEqual([
        { name: 'body', storage: 'x' },
        { name: 'date', storage: 'p' },
        { name: 'inbox', storage: 'p' },
        { name: 'message_id', storage: 'p' },
        { name: 'search', storage: 'm' },
      ]);
    }
  },
);
