// registry.search(query, {limit: 10}) over 100 000 tools of a Zipf catalogue (bench/lib/catalogue.js):
// the first search (which builds the index), then 200 queries drawn the same way, each timed on its own.
import { defineTool, ToolRegistry } from '../../dist/index.js';
import { check, runCase } from '../lib/case.js';
import { zipfCatalogue } from '../lib/catalogue.js';
import { elapsedNs, median, medianOfRounds, percentile } from '../lib/timing.js';

const COUNT = 100_000;
const QUERIES = 200;
const WARMUP_QUERIES = 3;
/** Queries stop being run after this long (a slow build would otherwise hold the whole bench up). */
const QUERY_BUDGET_MS = 50_000;

await runCase('search-100k', async () => {
  const catalogue = zipfCatalogue({ count: COUNT, queryCount: QUERIES });
  const registry = new ToolRegistry();
  registry.registerAll(catalogue.tools.map((options) => defineTool(options)));
  check(registry.size === COUNT, `the registry holds ${registry.size} tools, not ${COUNT}`);
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;

  // The first search indexes every tool, then answers the query.
  const buildStart = process.hrtime.bigint();
  const first = registry.search(catalogue.queries[0], { limit: 10 });
  const buildMs = elapsedNs(buildStart) / 1e6;
  globalThis.gc?.();
  const indexHeapMB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  check(first.length > 0, `'${catalogue.queries[0]}' found nothing`);

  // A few untimed queries (JIT warm-up), then each of the 200 queries once, timed alone; queries past
  // the time budget are not run (their round reports NaN and is left out).
  let next = 0;
  const hits = [];
  let budgetStart = process.hrtime.bigint();
  const perQuery = await medianOfRounds(
    () => {
      const index = next++;
      if (index === WARMUP_QUERIES) budgetStart = process.hrtime.bigint();
      if (elapsedNs(budgetStart) / 1e6 > QUERY_BUDGET_MS) return Number.NaN;
      const query = catalogue.queries[index % QUERIES];
      const start = process.hrtime.bigint();
      const found = registry.search(query, { limit: 10 });
      const ms = elapsedNs(start) / 1e6;
      if (index >= WARMUP_QUERIES) hits.push(found.length);
      return ms;
    },
    { rounds: QUERIES, warmup: WARMUP_QUERIES, collectGarbage: false },
  );
  const queriesMs = perQuery.rounds.filter((ms) => !Number.isNaN(ms));
  check(queriesMs.length > 0, 'no query ran within the time budget');
  check(
    hits.every((count) => count <= 10),
    'a search returned more than 10 hits',
  );
  check(hits.filter((count) => count > 0).length >= hits.length * 0.9, 'most queries found nothing');
  const slowest = queriesMs
    .map((ms, index) => ({ query: catalogue.queries[(WARMUP_QUERIES + index) % QUERIES], ms }))
    .sort((left, right) => right.ms - left.ms)
    .slice(0, 5);
  return {
    count: COUNT,
    vocabularySize: catalogue.vocabularySize,
    queries: QUERIES,
    buildMs,
    indexHeapMB,
    queriesRun: queriesMs.length,
    p50Ms: median(queriesMs),
    p99Ms: percentile(queriesMs, 99),
    maxMs: Math.max(...queriesMs),
    queriesMs,
    queriesWithHits: hits.filter((count) => count > 0).length,
    slowest,
  };
});
