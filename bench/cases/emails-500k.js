// The email corpus at 500 000 generated emails, on SQLite and on PostgreSQL: the corpus is written as
// JSONL first (not timed), then imported into a fresh database through `importEmails` (what
// `toolshed emails import` runs), then `email_search` and `email_get` are timed through
// `registry.call`, each call on its own.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  createEmailTools,
  EmailStore,
  generateEmails,
  importEmails,
  seededRandom,
  writeGeneratedJsonl,
} from '../../dist/emails/index.js';
import { ToolRegistry } from '../../dist/index.js';
import { createStore } from '../../dist/store/index.js';
import { check, runCase } from '../lib/case.js';
import { elapsedNs, median, percentile } from '../lib/timing.js';

const COUNT = Number(process.env.TOOLSHED_BENCH_EMAILS ?? 500_000);
const INBOXES = 150;
const SEED = 1;
const QUERIES = 200;
const GETS = 500;
const WARMUP = 10;
/** The emails the vocabulary and the query inboxes are drawn from (the corpus's first ones, same seed). */
const SAMPLE = Math.min(20_000, COUNT);
const POSTGRES_ADMIN_URL = process.env.TOOLSHED_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The query mix, drawn from the first 20 000 emails of the corpus (same seed): each query takes 1 to 3
 * distinct words of one email, each word common (among the 40 most frequent of the sample: "the",
 * "meeting", "gas"...) with probability 0.35, middling (rank 40-2 000) 0.4, rare (past rank 2 000)
 * 0.25, when the email has one. Every query searches that email's inbox (`inbox_id` is required), so
 * every query has at least one hit, as a user's query usually does.
 */
function queryMix() {
  const sample = [...generateEmails({ count: SAMPLE, inboxes: INBOXES, seed: SEED })];
  const wordsOf = (email) => [...new Set(`${email.subject} ${email.body}`.toLowerCase().match(/[a-z]+/g) ?? [])];
  const counts = new Map();
  for (const email of sample) for (const word of wordsOf(email)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const rank = new Map(
    [...counts.entries()].sort((left, right) => right[1] - left[1]).map(([word], index) => [word, index]),
  );
  const rand = seededRandom(42);
  const draw = (list) => list[Math.floor(rand() * list.length)];
  const queries = Array.from({ length: QUERIES + WARMUP }, () => {
    const email = draw(sample);
    const words = wordsOf(email);
    const bands = [
      words.filter((word) => (rank.get(word) ?? 0) < 40),
      words.filter((word) => (rank.get(word) ?? 0) >= 40 && (rank.get(word) ?? 0) < 2000),
      words.filter((word) => (rank.get(word) ?? 0) >= 2000),
    ];
    const chosen = new Set();
    const size = 1 + Math.floor(rand() * 3);
    while (chosen.size < Math.min(size, words.length)) {
      const roll = rand();
      const band = bands[roll < 0.35 ? 0 : roll < 0.75 ? 1 : 2];
      chosen.add(draw(band.length > 0 ? band : words));
    }
    const query = [...chosen].join(' ');
    return { query, inbox_id: email.inbox };
  });
  const gets = Array.from({ length: GETS + WARMUP }, () => draw(sample).message_id);
  return { queries, gets };
}

/** Time `call(item)` once per item, after the first `WARMUP` items (untimed); milliseconds each. */
async function timeEach(items, call) {
  const times = [];
  for (const [index, item] of items.entries()) {
    const start = process.hrtime.bigint();
    await call(item, index);
    if (index >= WARMUP) times.push(elapsedNs(start) / 1e6);
  }
  return times;
}

/** Import the corpus into a fresh store of one dialect, then time the tools on it. */
async function measure(url, corpus, mix) {
  const store = await createStore(url, { notifications: false });
  try {
    await store.migrate();
    const emails = new EmailStore(store);
    const start = process.hrtime.bigint();
    const importCpuStart = process.cpuUsage();
    const report = await importEmails(corpus, { format: 'jsonl', emails });
    const importMs = elapsedNs(start) / 1e6;
    const importCpu = process.cpuUsage(importCpuStart);
    check(report.added === COUNT, `the import added ${report.added} emails, not ${COUNT}`);
    check(await emails.hasSearchIndex(), 'the full-text index is missing after the import');

    const registry = new ToolRegistry();
    for (const tool of createEmailTools({ emails })) registry.register(tool);
    let hits = 0;
    const timed = [];
    const cpuStart = process.cpuUsage();
    const searchMs = await timeEach(mix.queries, async (args, index) => {
      const start = process.hrtime.bigint();
      const result = await registry.call('email_search', args);
      const ms = elapsedNs(start) / 1e6;
      check(result.status === 'success', `email_search ${JSON.stringify(args)}: ${JSON.stringify(result)}`);
      if (index < WARMUP) return;
      if (result.data.total > 0) hits += 1;
      timed.push({ ms, ...args, total: result.data.total });
    });
    const searchCpu = process.cpuUsage(cpuStart);
    const searchCpuMs = (searchCpu.user + searchCpu.system) / 1000;
    const getMs = await timeEach(mix.gets, async (message_id) => {
      const result = await registry.call('email_get', { message_id });
      check(result.status === 'success', `email_get ${message_id}: ${JSON.stringify(result)}`);
    });
    const slowest = [...timed]
      .sort((left, right) => right.ms - left.ms)
      .slice(0, 5)
      .map((entry) => ({ ...entry, ms: Number(entry.ms.toFixed(2)) }));
    return {
      importMs,
      importPerS: COUNT / (importMs / 1000),
      // This process only: PostgreSQL's own work (to_tsvector, the GIN build) is not in it.
      importCpuUsPerEmail: (importCpu.user + importCpu.system) / COUNT,
      searchP50Ms: median(searchMs),
      searchP99Ms: percentile(searchMs, 99),
      searchMaxMs: Math.max(...searchMs),
      searchCpuMsPerCall: searchCpuMs / QUERIES,
      queriesWithHits: hits,
      getP50Ms: median(getMs),
      getP99Ms: percentile(getMs, 99),
      slowest,
    };
  } finally {
    await store.close();
  }
}

await runCase('emails-500k', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'toolshed-bench-emails-'));
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 5000 });
  const database = `toolshed_bench_emails_${process.pid}`;
  let created = false;
  try {
    const corpus = join(folder, 'emails.jsonl');
    const generateStart = process.hrtime.bigint();
    await writeGeneratedJsonl(corpus, { count: COUNT, inboxes: INBOXES, seed: SEED });
    const generateMs = elapsedNs(generateStart) / 1e6;
    const mix = queryMix();

    const sqlitePath = join(folder, 'emails.db');
    const sqlite = await measure(sqlitePath, corpus, mix);
    // The emails, and their full-text index in the file beside them.
    sqlite.databaseMB = statSync(sqlitePath).size / 2 ** 20;
    sqlite.searchIndexMB = statSync(`${sqlitePath}-search`).size / 2 ** 20;
    for (const suffix of ['', '-wal', '-shm', '-search', '-search-wal', '-search-shm']) {
      rmSync(`${sqlitePath}${suffix}`, { force: true });
    }

    let postgres;
    try {
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      created = true;
    } catch (error) {
      postgres = { skipped: `no PostgreSQL at ${new URL(POSTGRES_ADMIN_URL).host}: ${error.message}` };
    }
    if (created) {
      const url = new URL(POSTGRES_ADMIN_URL);
      url.pathname = `/${database}`;
      postgres = await measure(url.toString(), corpus, mix);
    }
    return {
      count: COUNT,
      inboxes: INBOXES,
      queries: QUERIES,
      gets: GETS,
      corpusMB: statSync(corpus).size / 2 ** 20,
      generateMs,
      sqlite,
      postgres,
    };
  } finally {
    if (created) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin.end().catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  }
});
