import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmailRecord } from '../../src/emails/email-record.js';
import { EmailStore } from '../../src/emails/email-store.js';
import { generateEmails } from '../../src/emails/generate-emails.js';
import { writeIndexBatch } from '../../src/emails/sqlite-email-index.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';
import { assertBuilt, runCli } from '../cli/run-cli.js';

const CORPUS = { count: 600, inboxes: 12, seed: 21 };

/** A word of the email's body, long enough to be rare. */
function wordOf(email: { body: string; subject: string }): string {
  return email.body.match(/[a-z]{8,}/)?.[0] ?? email.subject;
}

describe('the SQLite email index in its own file', () => {
  let folder: string;
  let path: string;
  let store: ToolshedStore | undefined;
  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'toolshed-search-file-'));
    path = join(folder, 'toolshed.db');
    store = await createStore(path);
    await store.migrate();
  });
  afterEach(async () => {
    await store?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  async function reopen(): Promise<EmailStore> {
    await store?.close();
    store = await createStore(path);
    return new EmailStore(store);
  }

  it('keeps the index in <database>-search and rebuilds it when that file is lost', async () => {
    const corpus = [...generateEmails(CORPUS)];
    const emails = new EmailStore(store!);
    expect(await emails.insertBatch(corpus)).toBe(CORPUS.count);
    expect(existsSync(`${path}-search`)).toBe(true);

    await store?.close();
    store = undefined;
    for (const suffix of ['-search', '-search-wal', '-search-shm']) rmSync(`${path}${suffix}`, { force: true });
    const again = await reopen();
    for (const email of corpus.filter((_, index) => index % 97 === 0)) {
      const hits = await again.search(wordOf(email), email.inbox, 50);
      expect(
        hits.emails.map((hit) => hit.message_id),
        wordOf(email),
      ).toContain(email.message_id);
    }
  });

  /**
   * What a crash between a batch's commit and its index rows' commit leaves: emails stored with the
   * next ids of their inboxes, and no index rows or marks for them.
   */
  async function storeUnindexed(db: Kysely<unknown>, lost: readonly EmailRecord[]): Promise<void> {
    for (const email of lost) {
      await sql`insert into email_inboxes (name) values (${email.inbox}) on conflict (name) do nothing`.execute(db);
      await sql`insert into emails (id, message_id, inbox, subject, sender, recipients, date, body)
        select coalesce((select max(e.id) from emails e
            where e.id between ib.id * 4294967296 and ib.id * 4294967296 + 4294967295), ib.id * 4294967296) + 1,
          ${email.message_id}, ${email.inbox}, ${email.subject}, ${email.sender}, ${JSON.stringify(email.recipients)},
          ${email.date}, ${email.body}
        from email_inboxes ib where ib.name = ${email.inbox}`.execute(db);
    }
  }

  /** Inboxes whose newest email is past the index's mark (the search schema must be attached). */
  async function inboxesBehind(db: Kysely<unknown>): Promise<number> {
    const found = await sql<{ behind: number }>`select count(*) as behind from email_inboxes ib
      where coalesce((select upto from search.emails_indexed m where m.inbox = ib.id), 0)
        < (select max(id) from emails e where e.id between ib.id * 4294967296 and ib.id * 4294967296 + 4294967295)`.execute(
      db,
    );
    return found.rows[0]?.behind ?? -1;
  }

  it('indexes the emails a crash left out of the index before it answers a search', async () => {
    const corpus = [...generateEmails(CORPUS)];
    const emails = new EmailStore(store!);
    await emails.insertBatch(corpus.slice(0, 300));
    const lost = corpus.slice(300);
    await storeUnindexed(store!.db as Kysely<unknown>, lost);
    const newest = lost.at(-1)!;
    expect((await emails.search(wordOf(newest), newest.inbox, 50)).emails.map((hit) => hit.message_id)).not.toContain(
      newest.message_id,
    );
    const again = await reopen();
    const hits = await again.search(wordOf(newest), newest.inbox, 50);
    expect(hits.emails.map((hit) => hit.message_id)).toContain(newest.message_id);
    expect(await inboxesBehind(store!.db as Kysely<unknown>)).toBe(0);
  });

  it('prepare() catches the index up before anything asks, and so does every service verb', async () => {
    const corpus = [...generateEmails(CORPUS)];
    await new EmailStore(store!).insertBatch(corpus.slice(0, 100));
    await storeUnindexed(store!.db as Kysely<unknown>, corpus.slice(100, 200));
    const again = await reopen();
    await again.prepare();
    expect(await inboxesBehind(store!.db as Kysely<unknown>)).toBe(0);

    await storeUnindexed(store!.db as Kysely<unknown>, corpus.slice(200));
    expect(await inboxesBehind(store!.db as Kysely<unknown>)).toBeGreaterThan(0);
    await store?.close();
    store = undefined;
    assertBuilt();
    const migrated = await runCli(['db', 'migrate'], { cwd: folder, env: { TOOLSHED_DATABASE_URL: path } });
    expect(migrated.exitCode, migrated.stderr).toBe(0);
    await reopen();
    await sql`attach database ${`${path}-search`} as search`.execute(store!.db);
    expect(await inboxesBehind(store!.db as Kysely<unknown>)).toBe(0);
  });

  it('makes no search file for a service database without emails', async () => {
    await store?.close();
    store = undefined;
    assertBuilt();
    const migrated = await runCli(['db', 'migrate'], { cwd: folder, env: { TOOLSHED_DATABASE_URL: path } });
    expect(migrated.exitCode, migrated.stderr).toBe(0);
    expect(existsSync(`${path}-search`)).toBe(false);
  });
  it('indexes every email exactly once, whichever writer gets to it first', async () => {
    const corpus = [...generateEmails({ ...CORPUS, inboxes: 1 })];
    const first = new EmailStore(store!);
    await first.insertBatch(corpus.slice(0, 100));
    // Another process's batch: stored, its index rows not written yet.
    const pending = corpus.slice(100, 200);
    await storeUnindexed(store!.db as Kysely<unknown>, pending);
    // This process's next batch comes after it: its writer indexes the pending emails first.
    await first.insertBatch(corpus.slice(200, 300));
    // The other process's index write arrives late, and finds its emails indexed already.
    const raw = new Database(path);
    try {
      raw.prepare('attach database ? as search').run(`${path}-search`);
      const rows = raw
        .prepare(
          'select id, subject, body from emails where message_id in (select value from json_each(?)) order by id',
        )
        .all(JSON.stringify(pending.map((email) => email.message_id))) as Array<{
        id: number;
        subject: string;
        body: string;
      }>;
      const inbox = Math.floor((rows[0]?.id ?? 0) / 4294967296);
      writeIndexBatch(raw, () => raw, 'search.', {
        rows: rows.flatMap((row) => [row.id, row.subject, row.body]),
        inboxes: [[inbox, rows.length, rows.at(-1)?.id ?? 0]],
      });
      // And a catch-up that read stale marks writes nothing twice either.
      writeIndexBatch(raw, () => raw, 'search.', { rows: [], inboxes: [[inbox, 0, rows.at(-1)?.id ?? 0]] });

      // A write that straddles the mark: its older rows are indexed already, its newer ones are not.
      await storeUnindexed(store!.db as Kysely<unknown>, corpus.slice(300, 350));
      const straddling = raw
        .prepare('select id, subject, body from emails order by id desc limit 80')
        .all()
        .reverse() as Array<{ id: number; subject: string; body: string }>;
      writeIndexBatch(raw, () => raw, 'search.', {
        rows: straddling.flatMap((row) => [row.id, row.subject, row.body]),
        inboxes: [[inbox, straddling.length, straddling.at(-1)?.id ?? 0]],
      });

      const ids = raw.prepare('select id, message_id from emails').all() as Array<{ id: number; message_id: string }>;
      const idOf = new Map(ids.map((row) => [row.message_id, row.id]));
      const count = raw.prepare('select count(*) as n from search.emails_fts where emails_fts match ? and rowid = ?');
      for (const email of corpus.slice(0, 350)) {
        const word = `"${`${email.subject} ${email.body}`.split(/[^A-Za-z0-9]+/).find((part) => part.length > 2)}"`;
        const found = count.get(word, BigInt(idOf.get(email.message_id) ?? 0)) as { n: number };
        expect(found.n, `${email.message_id} (${word})`).toBe(1);
      }
    } finally {
      raw.close();
    }
  });
});
