/**
 * The REST section of `npm run bench`: targets (judged on SQLite) and table rows for the
 * `rest-sqlite` and `rest-postgres` cases (`bench/lib/rest-bench.js`).
 */

/**
 * @typedef {{ case: string, ok: boolean, error?: string, [figure: string]: unknown }} CaseResult
 * @typedef {{ id: string, description: string, figure: string, status: 'PASS' | 'FAIL' | 'SKIPPED' | 'ERROR', value?: number }} TargetResult
 * @typedef {{ toolshedRps: number, bareRps: number, ratio: number }} Pair
 * @typedef {{ seconds: number, requests: number, requestsPerSecond: number, errors: number, errorDetails: string[], expectedNon2xx: number, rssWarmMB: number, rssEndMB: number, rssGrowth: number }} Mixed
 */

/** @param {number} value */
const rps = (value) => `${Math.round(value).toLocaleString('en-US').replaceAll(',', ' ')} req/s`;

/** @param {number} fraction */
const percent = (fraction) => `${(fraction * 100).toFixed(0)} %`;

/**
 * @param {CaseResult | undefined} result
 * @returns {{ read: Pair, call: Pair, mixed: Mixed, readBodyBytes: number, callBodyBytes: number } | undefined}
 */
function figuresOf(result) {
  return result?.ok ? /** @type {never} */ (result) : undefined;
}

/** @param {CaseResult | undefined} result */
function missing(result) {
  return result === undefined ? 'ERROR: not run' : `ERROR: ${result.error ?? 'no figures'}`;
}

const POSTGRES_CALL_TARGET =
  '`POST /api/tools/:id/call` of a trivial `--config` tool on PostgreSQL ≥ 40 % of the req/s of a bare Fastify POST route (section 6)';

/**
 * The REST targets, judged on the SQLite run, and the PostgreSQL call target on its own run.
 *
 * @param {CaseResult | undefined} sqlite
 * @param {CaseResult | undefined} [postgres]
 * @returns {TargetResult[]}
 */
export function restTargets(sqlite, postgres) {
  const figures = figuresOf(sqlite);
  const postgresFigures = figuresOf(postgres);
  /**
   * @param {string} id
   * @param {string} description
   * @param {(f: NonNullable<typeof figures>) => number} value
   * @param {(value: number) => boolean} pass
   * @param {(f: NonNullable<typeof figures>) => string} describe
   * @returns {TargetResult}
   */
  const target = (id, description, value, pass, describe) => {
    if (figures === undefined) return { id, description, figure: missing(sqlite), status: 'ERROR' };
    const figure = value(figures);
    return { id, description, figure: describe(figures), status: pass(figure) ? 'PASS' : 'FAIL', value: figure };
  };
  return [
    target(
      'rest-agent-tools',
      '`GET /api/agents/:id/tools` ≥ 70 % of the req/s of a bare Fastify route serving a same-size JSON body (SQLite, section 6)',
      (f) => f.read.ratio,
      (value) => value >= 0.7,
      (f) => `${percent(f.read.ratio)} (${rps(f.read.toolshedRps)} vs ${rps(f.read.bareRps)})`,
    ),
    target(
      'rest-tool-call',
      '`POST /api/tools/:id/call` of a trivial `--config` tool ≥ 50 % of the req/s of a bare Fastify POST route (SQLite, section 6)',
      (f) => f.call.ratio,
      (value) => value >= 0.5,
      (f) => `${percent(f.call.ratio)} (${rps(f.call.toolshedRps)} vs ${rps(f.call.bareRps)})`,
    ),
    postgresFigures === undefined
      ? {
          id: 'rest-tool-call-postgres',
          description: POSTGRES_CALL_TARGET,
          figure: missing(postgres),
          status: 'ERROR',
        }
      : {
          id: 'rest-tool-call-postgres',
          description: POSTGRES_CALL_TARGET,
          figure: `${percent(postgresFigures.call.ratio)} (${rps(postgresFigures.call.toolshedRps)} vs ${rps(postgresFigures.call.bareRps)})`,
          status: postgresFigures.call.ratio >= 0.4 ? 'PASS' : 'FAIL',
          value: postgresFigures.call.ratio,
        },
    target(
      'rest-mixed-errors',
      'mixed load (reads, calls, attach/detach, agent creates; 10 connections) for 60 s: 0 errors (SQLite, section 6)',
      (f) => f.mixed.errors,
      (value) => value === 0,
      (f) =>
        `${f.mixed.errors} errors${f.mixed.errors > 0 ? ` (${f.mixed.errorDetails.join('; ')})` : ''} in ${f.mixed.requests} requests`,
    ),
    target(
      'rest-mixed-rss',
      'the same load: server RSS growth from after the warm-up to the end < 10 % (SQLite)',
      (f) => f.mixed.rssGrowth,
      (value) => value < 0.1,
      (f) =>
        `${(f.mixed.rssGrowth * 100).toFixed(1)} % (${f.mixed.rssWarmMB.toFixed(0)} → ${f.mixed.rssEndMB.toFixed(0)} MB)`,
    ),
  ];
}

/**
 * Rows of the REST table: one column per dialect.
 *
 * @param {CaseResult | undefined} sqlite
 * @param {CaseResult | undefined} postgres
 * @returns {{ header: string[], align: string[], rows: string[][] }}
 */
export function restTable(sqlite, postgres) {
  const runs = [sqlite, postgres];
  /** @param {(f: NonNullable<ReturnType<typeof figuresOf>>) => string} cell */
  const row = (/** @type {string} */ label, cell) => [
    label,
    ...runs.map((result) => {
      const figures = figuresOf(result);
      return figures === undefined ? missing(result) : cell(figures);
    }),
  ];
  return {
    header: ['measure (autocannon, 10 connections)', 'SQLite', 'PostgreSQL'],
    align: ['l', 'r', 'r'],
    rows: [
      row('`GET /api/agents/:id/tools` (2 attachments)', (f) => `${rps(f.read.toolshedRps)} (${f.readBodyBytes} B)`),
      row('bare Fastify `GET`, same body', (f) => rps(f.read.bareRps)),
      row('**toolshed ÷ bare, GET** (median of the per-round ratios)', (f) => percent(f.read.ratio)),
      row(
        '`POST /api/tools/add_numbers/call` (`--config` tool)',
        (f) => `${rps(f.call.toolshedRps)} (${f.callBodyBytes} B)`,
      ),
      row('bare Fastify `POST`, same body', (f) => rps(f.call.bareRps)),
      row('**toolshed ÷ bare, POST call**', (f) => percent(f.call.ratio)),
      row('mixed load: requests (req/s)', (f) => `${f.mixed.requests} (${rps(f.mixed.requestsPerSecond)})`),
      row(
        'mixed load: errors (expected 409/404 apart)',
        (f) => `${f.mixed.errors} (${f.mixed.expectedNon2xx} expected)`,
      ),
      row(
        'mixed load: server RSS after warm-up → end',
        (f) =>
          `${f.mixed.rssWarmMB.toFixed(0)} → ${f.mixed.rssEndMB.toFixed(0)} MB (${(f.mixed.rssGrowth * 100).toFixed(1)} %)`,
      ),
    ],
  };
}
