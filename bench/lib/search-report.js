/**
 * The search-quality part of `npm run bench`: the recall target and the table rows of the
 * `search-bfcl` case (toolshed's index beside MiniSearch and keyword overlap on BFCL questions).
 */

/**
 * @typedef {{ case: string, ok: boolean, error?: string, skipped?: string, [figure: string]: unknown }} CaseResult
 * @typedef {{ id: string, description: string, figure: string, status: 'PASS' | 'FAIL' | 'SKIPPED' | 'ERROR', value?: number }} TargetResult
 * @typedef {{ queries: number, recallAt1: number, recallAt5: number, recallAt10: number, ndcgAt10: number }} Metrics
 */

/** The engines of the table, in order, with their labels. */
const ENGINES = [
  ['toolshed', '**toolshed `ToolSearchIndex`** (the index behind `registry.search`)'],
  ['miniSearch', 'MiniSearch (BM25; fields name ×3, description, parameters)'],
  ['keywordOverlap', 'keyword overlap (distinct query words found in name, description, parameters)'],
];

/** Recall@5 the index must reach on the BFCL questions. */
const RECALL_AT_5_TARGET = 0.85;

/**
 * Why there are no figures, or `undefined` when there are.
 *
 * @param {CaseResult | undefined} result
 * @returns {string | undefined}
 */
function missing(result) {
  if (result === undefined) return 'ERROR: not run';
  if (!result.ok) return `ERROR: ${result.error}`;
  return typeof result.skipped === 'string' ? `SKIPPED: ${result.skipped}` : undefined;
}

/** @param {number} value */
const fixed = (value) => value.toFixed(3);

/**
 * The recall target.
 *
 * @param {CaseResult | undefined} result
 * @returns {TargetResult}
 */
export function searchQualityTarget(result) {
  const id = 'search-recall';
  const description = `tool search on BFCL questions (each → the functions its ground truth calls, one index of every BFCL function): recall@5 ≥ ${RECALL_AT_5_TARGET} (section 4)`;
  const why = missing(result);
  const metrics = /** @type {Metrics | undefined} */ (result?.toolshed);
  if (why !== undefined || metrics === undefined) {
    return {
      id,
      description,
      figure: why ?? 'no figure',
      status: why?.startsWith('SKIPPED') ? 'SKIPPED' : 'ERROR',
    };
  }
  return {
    id,
    description,
    figure: `${fixed(metrics.recallAt5)} (recall@1 ${fixed(metrics.recallAt1)}, @10 ${fixed(metrics.recallAt10)}, nDCG@10 ${fixed(metrics.ndcgAt10)})`,
    status: metrics.recallAt5 >= RECALL_AT_5_TARGET ? 'PASS' : 'FAIL',
    value: metrics.recallAt5,
  };
}

/**
 * The search-quality table: one row per engine.
 *
 * @param {CaseResult | undefined} result
 * @returns {{ header: string[], align: string[], rows: string[][], caption: string }}
 */
export function searchQualityTable(result) {
  const header = ['engine', 'recall@1', 'recall@5', 'recall@10', 'nDCG@10'];
  const align = ['l', 'r', 'r', 'r', 'r'];
  const why = missing(result);
  if (why !== undefined || result === undefined) {
    return { header, align, rows: [['all', why ?? 'no figures', '', '', '']], caption: '' };
  }
  const rows = ENGINES.map(([key, label]) => {
    const metrics = /** @type {Metrics | undefined} */ (result[key]);
    if (metrics === undefined) return [label, 'no figures', '', '', ''];
    return [
      label,
      fixed(metrics.recallAt1),
      fixed(metrics.recallAt5),
      fixed(metrics.recallAt10),
      fixed(metrics.ndcgAt10),
    ];
  });
  const caption = `${result.queries} queries over ${result.tools} tools; toolshed's p50 per query ${Number(result.queryP50Ms).toFixed(3)} ms.`;
  return { header, align, rows, caption };
}
