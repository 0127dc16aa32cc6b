import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmailStore } from '../../src/emails/email-store.js';
import { generateEmails, writeGeneratedJsonl } from '../../src/emails/generate-emails.js';
import { createStore } from '../../src/store/index.js';
import { assertBuilt, ROOT, runCli, startCli } from '../cli/run-cli.js';

/** Big enough that ten runs, each killed after adding at most a few batches, never finish it. */
const CORPUS = { count: 30_000, inboxes: 120, seed: 9 };
const KILLS = 10;
/** Small batches: many commits, so the kills fall between, and inside, many transactions. */
const BATCH = '400';

/** The CLI runs dist/: fail clearly when dist/emails is older than src/emails. */
function assertEmailsBuilt(): void {
  assertBuilt();
  const sources = join(ROOT, 'src', 'emails');
  for (const entry of readdirSync(sources)) {
    if (!entry.endsWith('.ts') || entry.endsWith('.test.ts')) continue;
    const built = join(ROOT, 'dist', 'emails', entry.replace(/\.ts$/, '.js'));
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(sources, entry)).mtimeMs) {
      throw new Error(
        `dist/emails/${entry.replace(/\.ts$/, '.js')} is missing or older than its source: run \`npm run build\`.`,
      );
    }
  }
}

/**
 * What the database file and its search file hold, checked the way SQLite and FTS5 check themselves,
 * and how many stored emails the index does not cover yet (it may lag after a kill, never lead).
 */
function inspect(path: string): { integrity: unknown; rows: number; distinct: number; unindexed: number } {
  const db = new Database(path);
  try {
    const searchFile = `${path}-search`;
    let unindexed = 0;
    if (existsSync(searchFile)) {
      db.prepare('attach database ? as search').run(searchFile);
      // Throws SQLITE_CORRUPT_VTAB when the index is damaged.
      db.exec("insert into search.emails_fts(emails_fts) values('integrity-check')");
      const lagging = db
        .prepare(`select count(*) as n from emails e join email_inboxes ib on e.id between ib.id * 4294967296
            and ib.id * 4294967296 + 4294967295
          where e.id > coalesce((select upto from search.emails_indexed m where m.inbox = ib.id), 0)`)
        .get() as { n: number };
      unindexed = lagging.n;
    } else {
      unindexed = (db.prepare('select count(*) as n from emails').get() as { n: number }).n;
    }
    // Checks every attached database.
    const integrity = db.pragma('integrity_check', { simple: true });
    const counts = db.prepare('select count(*) as n, count(distinct message_id) as d from emails').get() as {
      n: number;
      d: number;
    };
    return { integrity, rows: counts.n, distinct: counts.d, unindexed };
  } finally {
    db.close();
  }
}

/** How many emails the database holds now (read beside the running import). */
function storedCount(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('select count(*) as n from emails').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('an email import killed with SIGKILL', () => {
  let scratch: string;
  let corpus: string;
  let database: string;
  beforeAll(async () => {
    assertEmailsBuilt();
    scratch = mkdtempSync(join(tmpdir(), 'toolshed-import-crash-'));
    corpus = join(scratch, 'corpus.jsonl');
    database = join(scratch, 'emails.db');
    await writeGeneratedJsonl(corpus, CORPUS);
    // Migrate first, so the first kill cannot land in the middle of creating the schema.
    const store = await createStore(database);
    await store.migrate();
    await store.close();
  });
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('leaves a sound database ten times, and a re-run stores and indexes every message once', {
    timeout: 60_000,
  }, async () => {
    const args = ['emails', 'import', corpus, '--db', database, '--batch-size', BATCH, '--json'];
    const after: number[] = [];
    for (let kill = 0; kill < KILLS; kill += 1) {
      // Every other run is a bulk load, which indexes on a second thread.
      const running = startCli(kill % 2 === 0 ? [...args, '--bulk'] : args, { cwd: scratch });
      // Varied points inside the run: after it has added one to three batches of its own, and a few
      // milliseconds more (a kill between transactions, or inside one, or while the index catches up).
      // The first run is killed before it adds anything.
      const target = (after.at(-1) ?? 0) + (kill === 0 ? 0 : 1 + (kill % 3)) * Number(BATCH);
      while (storedCount(database) < target && running.child.exitCode === null) {
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await new Promise((resolve) => setTimeout(resolve, (kill * 7) % 20));
      running.child.kill('SIGKILL');
      const ended = await running.exited;
      expect(ended.signal, `run ${kill + 1} ended before the kill: ${running.stderr}`).toBe('SIGKILL');
      const state = inspect(database);
      expect(state.integrity).toBe('ok');
      expect(state.distinct).toBe(state.rows);
      after.push(state.rows);
    }
    // Whole batches only, and progress kept from one run to the next.
    expect(after.every((rows) => rows % Number(BATCH) === 0 || rows === CORPUS.count)).toBe(true);
    expect(after.some((rows) => rows > 0 && rows < CORPUS.count)).toBe(true);
    expect([...after].sort((left, right) => left - right)).toEqual(after);

    const final = await runCli(args, { cwd: scratch });
    expect(final.exitCode, final.stderr).toBe(0);
    const report = JSON.parse(final.stdout) as { processed: number; added: number; duplicates: number };
    expect(report).toMatchObject({ processed: CORPUS.count, skippedCount: 0 });
    expect(report.added + report.duplicates).toBe(CORPUS.count);
    expect(report.duplicates).toBe(after.at(-1));
    expect(inspect(database)).toEqual({ integrity: 'ok', rows: CORPUS.count, distinct: CORPUS.count, unindexed: 0 });

    const store = await createStore(database);
    try {
      const emails = new EmailStore(store);
      const sample = [...generateEmails(CORPUS)].filter((_, index) => index % 3001 === 0);
      for (const email of sample) {
        const word = email.body.match(/[a-z]{7,}/)?.[0] ?? email.subject;
        const hits = await emails.search(`${email.subject} ${word}`, email.inbox, 50);
        expect(
          hits.emails.map((hit) => hit.message_id),
          `${email.message_id}: ${word}`,
        ).toContain(email.message_id);
      }
    } finally {
      await store.close();
    }
  });
});
