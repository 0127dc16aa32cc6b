/**
 * A tool-retrieval set derived, at run time, from the Berkeley Function Calling Leaderboard data in
 * `../shared/realdata/bfcl` (never copied into the repository): every question that has a ground-truth
 * answer becomes a query, and the functions its answer calls are the tools a search should find.
 * Shared by the `search-bfcl` bench case and the recall test, so both measure the same thing.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the real data lives when the project sits beside `shared/` (as in the workspace). */
export const BFCL_DIR = fileURLToPath(new URL('../../../shared/realdata/bfcl/', import.meta.url));

/**
 * @typedef {{ name: string, description: string, category: string, tags: string[], inputSchema: { type: 'object', properties: Record<string, { description?: string }> } }} RetrievalTool
 * @typedef {{ id: string, text: string, gold: string[] }} RetrievalQuery
 * @typedef {{ tools: RetrievalTool[], queries: RetrievalQuery[], files: string[] }} RetrievalSet
 */

/**
 * Read JSON Lines.
 *
 * @param {string} path
 * @returns {any[]}
 */
function readJsonLines(path) {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

/**
 * The retrieval set, or `undefined` when `dir` is absent.
 *
 * - Tools: every function offered by a question of a `BFCL_v4_*.json` file that has a
 *   `possible_answer/` file, one per name (a name offered with several descriptions keeps the first,
 *   files in name order, as a registry holds one tool per name).
 * - Queries: each such question's user messages of the first turn, joined; its gold tools are the
 *   functions its ground truth calls. Repeated (text, gold) pairs count once.
 *
 * @param {string} [dir]
 * @returns {RetrievalSet | undefined}
 */
export function loadBfclRetrievalSet(dir = BFCL_DIR) {
  if (!existsSync(dir)) return undefined;
  /** @type {Map<string, RetrievalTool>} */
  const tools = new Map();
  /** @type {RetrievalQuery[]} */
  const queries = [];
  const seen = new Set();
  const files = readdirSync(dir)
    .filter((file) => /^BFCL_v4_.*\.json$/.test(file) && existsSync(join(dir, 'possible_answer', file)))
    .sort();
  for (const file of files) {
    const answers = new Map(readJsonLines(join(dir, 'possible_answer', file)).map((line) => [line.id, line]));
    for (const entry of readJsonLines(join(dir, file))) {
      for (const doc of entry.function) {
        if (tools.has(doc.name)) continue;
        tools.set(doc.name, {
          name: doc.name,
          description: String(doc.description ?? ''),
          category: 'general',
          tags: [],
          inputSchema: { type: 'object', properties: doc.parameters?.properties ?? {} },
        });
      }
      const answer = answers.get(entry.id);
      if (answer === undefined) continue;
      const gold = [...new Set(answer.ground_truth.flatMap((call) => Object.keys(call)))].sort();
      const text = entry.question[0]
        .filter((message) => message.role === 'user')
        .map((message) => message.content)
        .join('\n')
        .trim();
      const key = `${text}\u0000${gold.join(',')}`;
      if (text === '' || gold.length === 0 || seen.has(key)) continue;
      seen.add(key);
      queries.push({ id: entry.id, text, gold });
    }
  }
  return { tools: [...tools.values()], queries, files };
}

/**
 * Recall@1/5/10 (the share of a query's gold tools among the first k results, averaged over queries)
 * and nDCG@10 (binary relevance) of a ranking function over the queries.
 *
 * @param {RetrievalQuery[]} queries
 * @param {(text: string) => string[]} rank tool names, best first (at least 10 when there are)
 * @returns {{ queries: number, recallAt1: number, recallAt5: number, recallAt10: number, ndcgAt10: number }}
 */
export function retrievalMetrics(queries, rank) {
  let recallAt1 = 0;
  let recallAt5 = 0;
  let recallAt10 = 0;
  let ndcgAt10 = 0;
  for (const query of queries) {
    const ranked = rank(query.text).slice(0, 10);
    const gold = new Set(query.gold);
    const foundWithin = (k) => ranked.slice(0, k).filter((name) => gold.has(name)).length / gold.size;
    recallAt1 += foundWithin(1);
    recallAt5 += foundWithin(5);
    recallAt10 += foundWithin(10);
    let dcg = 0;
    ranked.forEach((name, index) => {
      if (gold.has(name)) dcg += 1 / Math.log2(index + 2);
    });
    let ideal = 0;
    for (let index = 0; index < Math.min(gold.size, 10); index++) ideal += 1 / Math.log2(index + 2);
    ndcgAt10 += dcg / ideal;
  }
  const count = queries.length || 1;
  return {
    queries: queries.length,
    recallAt1: recallAt1 / count,
    recallAt5: recallAt5 / count,
    recallAt10: recallAt10 / count,
    ndcgAt10: ndcgAt10 / count,
  };
}
