/**
 * `npm run bench`: runs every case in bench/cases in its own node process (so one library's
 * process-wide state, such as LangChain's AsyncLocalStorage, cannot slow another's awaits), prints a
 * table, and writes BENCHMARKS.md and bench/results.json. It builds nothing: run `npm run build`
 * first so dist/ is current.
 */

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { firstLine } from './lib/case.js';
import { restTable, restTargets } from './lib/rest-report.js';
import { searchQualityTable, searchQualityTarget } from './lib/search-report.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CASES_DIR = fileURLToPath(new URL('./cases/', import.meta.url));
const RESULTS_FILE = fileURLToPath(new URL('./results.json', import.meta.url));
const REPORT_FILE = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));

/**
 * @typedef {{ case: string, ok: boolean, error?: string, [figure: string]: unknown }} CaseResult
 * @typedef {{ key: string, id: string, label: string, floor?: string }} DispatchRow
 * @typedef {{ id: string, description: string, figure: string, status: 'PASS' | 'FAIL' | 'SKIPPED' | 'ERROR', value?: number }} TargetResult
 * @typedef {{ mcp?: CaseResult, mcpHttp?: CaseResult, register?: CaseResult, search?: CaseResult, searchQuality?: CaseResult, exports?: CaseResult, yaml?: CaseResult, cli?: CaseResult, python?: CaseResult, javascript?: CaseResult, emails?: CaseResult, web?: CaseResult }} SingleResults
 */

/**
 * The version of an installed package, for the table's labels.
 *
 * @param {string} name
 * @returns {string}
 */
function versionOf(name) {
  try {
    return JSON.parse(readFileSync(`${ROOT}node_modules/${name}/package.json`, 'utf8')).version;
  } catch {
    return '?';
  }
}

/**
 * Dispatch rows, in the order they are run and shown. `floor` names the row a toolshed path is
 * compared with when it is not (d).
 *
 * @type {DispatchRow[]}
 */
const DISPATCH_ROWS = [
  { key: 'a', id: 'direct-sync', label: 'direct sync call `add(args)` (the limit)' },
  { key: 'b', id: 'direct-async', label: 'direct call of an `async` handler, awaited' },
  { key: 'c', id: 'ajv-validate', label: `Ajv ${versionOf('ajv')} (2020) \`validate(args)\` alone` },
  {
    key: 'd',
    id: 'floor',
    label: '**floor**: Map lookup + Ajv validate + try/catch + `await` sync handler + wrap `{status, data, metadata}`',
  },
  { key: 'd′', id: 'floor-async-handler', label: 'floor with an `async` handler' },
  {
    key: 't',
    id: 'clock-read',
    label: 'one `performance.now()`, the clock read `registry.call` makes twice for `metadata.durationMs`',
  },
  {
    key: 'e',
    id: 'toolshed-call-sync',
    label: "**toolshed `registry.call('add', {a, b})`**, sync handler, JSON Schema",
  },
  { key: 'f', id: 'toolshed-call-async', label: 'toolshed `registry.call`, `async` handler', floor: 'd′' },
  { key: 'g', id: 'toolshed-call-zod', label: `toolshed \`registry.call\`, zod ${versionOf('zod')} \`input\`` },
  {
    key: 'h',
    id: 'toolshed-call-json',
    label: `toolshed \`registry.call('add', '{"a":1,"b":2}')\` (JSON text)`,
    floor: 'i',
  },
  { key: 'i', id: 'floor-json', label: '`JSON.parse` + floor' },
  {
    key: 'j',
    id: 'ai-sdk',
    label: `Vercel AI SDK ${versionOf('ai')}: \`tool()\` with \`jsonSchema(schema, {validate: Ajv})\` + \`safeValidateTypes\` + \`await execute\` (extra row, no target)`,
  },
  {
    key: 'j′',
    id: 'ai-sdk-zod',
    label: `Vercel AI SDK ${versionOf('ai')}: \`tool()\` with a zod \`inputSchema\` + \`safeValidateTypes\` + \`await execute\` (**the AI SDK target's path**)`,
  },
  {
    key: 'k',
    id: 'openai-agents',
    label: `OpenAI Agents JS ${versionOf('@openai/agents')}: \`tool(zod).invoke(runContext, json)\``,
  },
  {
    key: 'l',
    id: 'mcp-sdk',
    label: `MCP SDK ${versionOf('@modelcontextprotocol/sdk')}: \`Client.callTool\` → \`McpServer\`, in-memory transport`,
  },
  {
    key: 'm',
    id: 'langchain',
    label: `LangChain.js core ${versionOf('@langchain/core')}: \`tool(zod).invoke({a, b})\``,
  },
  { key: 'd″', id: 'floor-with-langchain', label: "floor, with LangChain's AsyncLocalStorage context active" },
  {
    key: 'e″',
    id: 'toolshed-call-with-langchain',
    label: "toolshed `registry.call`, with LangChain's AsyncLocalStorage context active",
    floor: 'd″',
  },
  {
    key: 'e‴',
    id: 'toolshed-call-traced',
    label: `toolshed \`registry.call\`, with an OpenTelemetry SDK ${versionOf('@opentelemetry/sdk-trace-base')} registered (a recorded span per call, no exporter)`,
    floor: 'e',
  },
  {
    key: 'e₀',
    id: 'toolshed-call-untraced',
    label: 'toolshed `registry.call`, with tracing compiled out (`activeTracer()` answers at once, by a loader hook)',
  },
];

/** Cases run once each, after the dispatch passes, in this order. */
const SINGLE_CASES = [
  'mcp-tools-call',
  'mcp-http',
  'register-100k',
  'search-100k',
  'search-bfcl',
  'exports-1000',
  'yaml-1000',
  'cli-cold-start',
  'sandbox-python',
  'sandbox-javascript',
  'rest-sqlite',
  'rest-postgres',
  'emails-500k',
  'web-catalog',
];

/** The exporters `exports-1000` times, with their labels. */
const EXPORTER_LABELS = {
  openaiChatStrict: "`toOpenAITools({api: 'chat', strict: true})`",
  anthropic: '`toAnthropicTools()`',
  gemini: '`toGeminiTools()`',
  mcp: '`toMcpTools()`',
};

/**
 * Every dispatch case runs this many times, interleaved with the others (a, b, ..., then a, b, ...
 * again), and the pass with the lower median counts: load from other processes on a shared machine
 * only ever slows a case down, and interleaving spreads a burst of it over different cases.
 */
const DISPATCH_PASSES = 2;

/** Passes whose medians differ by more than this factor are marked as noisy. */
const NOISY_SPREAD = 1.25;

/**
 * The pass that counts: the successful one with the lowest ns/call, else the first.
 *
 * @param {CaseResult[]} runs
 * @returns {CaseResult}
 */
function fastestPass(runs) {
  const timed = runs.filter((run) => run.ok && typeof run.nsPerCall === 'number');
  if (timed.length === 0) return runs[0];
  return timed.reduce((best, run) => (Number(run.nsPerCall) < Number(best.nsPerCall) ? run : best));
}

/**
 * Run `bench/cases/<id>.js` in a fresh node with `--expose-gc` and parse the JSON line it prints.
 *
 * @param {string} id
 * @returns {CaseResult}
 */
function runCaseProcess(id) {
  const child = spawnSync(process.execPath, ['--expose-gc', `${CASES_DIR}${id}.js`], {
    cwd: ROOT,
    encoding: 'utf8',
    // The email case imports 500 000 emails twice (SQLite, PostgreSQL): minutes on a busy machine.
    timeout: id === 'emails-500k' ? 600_000 : 180_000,
    maxBuffer: 16 * 2 ** 20,
  });
  const line = (child.stdout ?? '')
    .trim()
    .split('\n')
    .reverse()
    .find((text) => text.startsWith('{'));
  if (line !== undefined) {
    try {
      return JSON.parse(line);
    } catch {
      // Fall through: report what the process said instead.
    }
  }
  // A crashed child's last stderr line is node's version banner; its error line says more.
  const lines = (child.stderr ?? '').trim().split('\n');
  const said = firstLine(
    child.error?.message ?? (lines.findLast((text) => /error/i.test(text)) || lines.at(-1) || 'no output'),
  );
  return { case: id, ok: false, error: `exited ${child.status ?? child.signal}: ${said}` };
}

/**
 * Group digits in threes with a space, as MEASUREMENTS.md does.
 *
 * @param {number} value
 * @param {number} decimals
 */
function grouped(value, decimals) {
  const [whole, fraction] = value.toFixed(decimals).split('.');
  const digits = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
  return fraction === undefined ? digits : `${digits}.${fraction}`;
}

/** @param {number} ns */
function formatNs(ns) {
  return grouped(ns, ns < 10 ? 1 : 0);
}

/** @param {number} ratio */
function formatRatio(ratio) {
  return `${grouped(ratio, ratio < 10 ? 2 : ratio < 100 ? 1 : 0)}×`;
}

/**
 * A fraction as a percentage: whole percents from 1 %, two significant digits below (0.00016 %).
 *
 * @param {number} fraction 0.93 for 93 %
 */
function formatPercent(fraction) {
  const percent = fraction * 100;
  return `${percent >= 1 ? percent.toFixed(0) : Number(percent.toPrecision(2)).toString()} %`;
}

/** @param {number} ms */
function formatMs(ms) {
  return `${grouped(ms, ms < 1 ? 3 : ms < 100 ? 1 : 0)} ms`;
}

/**
 * A target line: `status` from `pass` when the figure exists.
 *
 * @param {string} id
 * @param {string} description
 * @param {number | undefined} value
 * @param {(value: number) => boolean} pass
 * @param {(value: number) => string} describe
 * @param {string} [missing] why there is no figure (a skipped or failed case)
 * @returns {TargetResult}
 */
function target(id, description, value, pass, describe, missing) {
  if (value === undefined || !Number.isFinite(value)) {
    const skipped = missing?.startsWith('SKIPPED') ?? false;
    return { id, description, figure: missing ?? 'no figure', status: skipped ? 'SKIPPED' : 'ERROR' };
  }
  return { id, description, figure: describe(value), status: pass(value) ? 'PASS' : 'FAIL', value };
}

/**
 * Render rows as a Markdown table; `align` holds 'l' or 'r' per column.
 *
 * @param {string[]} header
 * @param {string[]} align
 * @param {string[][]} rows
 */
function markdownTable(header, align, rows) {
  const rule = align.map((side) => (side === 'r' ? '---:' : '---'));
  const escapePipes = (/** @type {string} */ cell) => cell.replaceAll('|', '\\|');
  return [header, rule, ...rows].map((cells) => `| ${cells.map(escapePipes).join(' | ')} |`).join('\n');
}

/**
 * Render rows as a plain-text table for the terminal, without Markdown emphasis.
 *
 * @param {string[]} header
 * @param {string[]} align
 * @param {string[][]} rows
 */
function textTable(header, align, rows) {
  const plain = [header, ...rows].map((cells) => cells.map((cell) => cell.replaceAll('**', '').replaceAll('`', '')));
  const widths = header.map((_, column) => Math.max(...plain.map((cells) => cells[column].length)));
  return plain
    .map((cells) =>
      cells
        .map((cell, column) => (align[column] === 'r' ? cell.padStart(widths[column]) : cell.padEnd(widths[column])))
        .join('  '),
    )
    .join('\n');
}

/** When dist/ was last built (the newest of its entry point and its dispatcher). */
function distBuiltAt() {
  const times = ['dist/index.js', 'dist/core/dispatch.js']
    .filter((file) => existsSync(`${ROOT}${file}`))
    .map((file) => statSync(`${ROOT}${file}`).mtimeMs);
  return new Date(Math.max(...times)).toISOString();
}

/**
 * Which toolshed was measured: the commit, whether src/ had uncommitted changes, when dist/ was
 * built, and whether it was rebuilt while the bench ran (then figures may mix two builds).
 *
 * @param {string} builtAtStart `distBuiltAt()` when the run began
 */
function toolshedInfo(builtAtStart) {
  const git = (/** @type {string[]} */ args) =>
    spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout?.trim() ?? '';
  return {
    commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
    uncommittedChanges: git(['status', '--porcelain', '--', 'src']) !== '',
    distBuiltAt: builtAtStart,
    distRebuiltDuringRun: distBuiltAt() !== builtAtStart,
  };
}

function machineInfo() {
  const cores = cpus();
  return {
    node: process.version,
    platform: `${platform()} ${arch()}`,
    cpus: cores.length,
    cpuModel: cores[0]?.model.trim() ?? 'unknown',
    memoryGB: Math.round(totalmem() / 2 ** 30),
  };
}

/**
 * The cases named by `--only a,b,...` (dispatch row keys such as `d′`, or case ids), or undefined to
 * run them all. A partial run prints its tables and targets but writes neither BENCHMARKS.md nor
 * results.json.
 *
 * @param {string[]} argv
 * @returns {Set<string> | undefined} case ids
 */
function selectedCases(argv) {
  const index = argv.indexOf('--only');
  if (index === -1) return undefined;
  const names = (argv[index + 1] ?? '').split(',').filter((name) => name !== '');
  const ids = new Set();
  for (const name of names) {
    const row = DISPATCH_ROWS.find((candidate) => candidate.key === name || candidate.id === name);
    if (row === undefined && !SINGLE_CASES.includes(name)) {
      const known = [...DISPATCH_ROWS.map((candidate) => candidate.key), ...SINGLE_CASES].join(', ');
      throw new Error(`bench: --only names an unknown case '${name}'; known: ${known}.`);
    }
    ids.add(row?.id ?? name);
  }
  if (ids.size === 0) throw new Error("bench: --only needs a comma-separated list of cases, such as 'd,d′,e,f'.");
  return ids;
}

/**
 * Run every case (or the `only` ones): the dispatch cases `DISPATCH_PASSES` times, interleaved, then
 * the single cases (MCP, scale, exports) once. Reports progress on stderr.
 *
 * @param {Set<string> | undefined} only
 * @returns {Map<string, CaseResult[]>} each case's results, one per pass
 */
function runAllCases(only) {
  /** @type {Map<string, CaseResult[]>} */
  const passes = new Map();
  const order = [
    ...Array.from({ length: DISPATCH_PASSES }, () => DISPATCH_ROWS.map((row) => row.id)).flat(),
    ...SINGLE_CASES,
  ].filter((id) => only === undefined || only.has(id));
  for (const id of order) {
    const runs = passes.get(id) ?? [];
    passes.set(id, runs);
    const pass = DISPATCH_ROWS.some((row) => row.id === id) ? ` (pass ${runs.length + 1})` : '';
    process.stderr.write(`bench: ${id}${pass} ... `);
    const begun = performance.now();
    const result = runCaseProcess(id);
    runs.push(result);
    const took = ((performance.now() - begun) / 1000).toFixed(1);
    const summary = !result.ok
      ? `ERROR ${result.error}`
      : typeof result.nsPerCall === 'number'
        ? `${formatNs(result.nsPerCall)} ns/call`
        : 'done';
    process.stderr.write(`${summary} (${took} s)\n`);
  }
  return passes;
}

/** @param {number | undefined} top @param {number | undefined} bottom */
function ratio(top, bottom) {
  return top === undefined || bottom === undefined ? undefined : top / bottom;
}

/**
 * The dispatch figures: each row's counted ns/call, its ratios and every pass's median.
 *
 * @param {Map<string, CaseResult[]>} passes
 */
function summariseDispatch(passes) {
  /** @type {Map<string, CaseResult>} */
  // A partial run (--only) leaves some rows out.
  const measured = DISPATCH_ROWS.filter((row) => passes.has(row.id));
  const counted = new Map(measured.map((row) => [row.id, fastestPass(passes.get(row.id) ?? [])]));
  /** @param {string} key @returns {number | undefined} */
  const ns = (key) => {
    const row = DISPATCH_ROWS.find((candidate) => candidate.key === key);
    const result = row === undefined ? undefined : counted.get(row.id);
    return result?.ok && typeof result.nsPerCall === 'number' ? result.nsPerCall : undefined;
  };
  const rows = measured.map((row) => {
    const result = /** @type {CaseResult} */ (counted.get(row.id));
    const value = ns(row.key);
    const ownFloorKey = row.floor ?? (row.id.startsWith('toolshed') ? 'd' : undefined);
    const passMedians = (passes.get(row.id) ?? []).map((run) => (run.ok ? Number(run.nsPerCall) : Number.NaN));
    return {
      key: row.key,
      id: row.id,
      label: row.label,
      nsPerCall: value,
      xDirect: ratio(value, ns('a')),
      xFloor: ratio(value, ns('d')),
      comparedWith: ownFloorKey,
      xOwnFloor: ownFloorKey === undefined ? undefined : ratio(value, ns(ownFloorKey)),
      callsPerChunk: result.callsPerChunk,
      roundsMs: result.roundsMs,
      roundsNsPerCall: result.roundsNsPerCall,
      passesNsPerCall: passMedians,
      noisy: Math.max(...passMedians) / Math.min(...passMedians) > NOISY_SPREAD,
      error: result.ok ? undefined : result.error,
    };
  });
  return { rows, ns };
}

/**
 * Hold the figures to their targets.
 *
 * @param {(key: string) => number | undefined} ns counted ns/call of a dispatch row
 * @param {SingleResults} single
 * @returns {TargetResult[]}
 */
function evaluateTargets(ns, { mcp, mcpHttp, register, search, exports, yaml, cli, python, javascript, emails, web }) {
  const call = ns('e');
  const floor = ns('d');
  /** @param {CaseResult | undefined} result @param {string} field */
  const figure = (result, field) => (result?.ok && typeof result[field] === 'number' ? result[field] : undefined);
  /** @param {CaseResult | undefined} result @returns {string | undefined} why there is no figure */
  const missing = (result) => {
    if (result === undefined) return 'ERROR: not run';
    if (!result.ok) return `ERROR: ${result.error}`;
    return typeof result.skipped === 'string' ? `SKIPPED: ${result.skipped}` : undefined;
  };
  /**
   * "8.51× faster (1 795 vs 211 ns)": how much faster `registry.call` (e) is than a peer's row.
   *
   * @param {string} key the peer's row
   */
  const fasterThan = (key) => (/** @type {number} */ value) => {
    const speed = value >= 1 ? `${formatRatio(value)} faster` : `${formatRatio(1 / value)} slower`;
    return `${speed} (${formatNs(ns(key) ?? 0)} vs ${formatNs(call ?? 0)} ns)`;
  };
  const exporters = /** @type {Record<string, Record<string, number>> | undefined} */ (exports?.exporters);
  /** @param {'sqlite' | 'postgres'} dialect @param {string} field @returns {number | undefined} */
  const emailFigure = (dialect, field) => {
    const figures = /** @type {Record<string, unknown> | undefined} */ (emails?.ok ? emails[dialect] : undefined);
    const value = figures?.[field];
    return typeof value === 'number' ? value : undefined;
  };
  /** @param {string} field */
  const postgresMs = (field) => {
    const value = emailFigure('postgres', field);
    return value === undefined ? 'n/a' : formatMs(value);
  };
  const worstExporter = typeof exports?.worstExporter === 'string' ? exports.worstExporter : '';
  return [
    target(
      'call-vs-floor',
      '`registry.call` (sync handler, object args) ≤ 1.3× the floor (e ÷ d)',
      ratio(call, floor),
      (value) => value <= 1.3,
      (value) => `${formatRatio(value)} (${formatNs(call ?? 0)} vs ${formatNs(floor ?? 0)} ns)`,
    ),
    target(
      'call-async-vs-floor',
      '`registry.call` (`async` handler, object args) ≤ 1.3× the floor with an `async` handler (f ÷ d′)',
      ratio(ns('f'), ns('d′')),
      (value) => value <= 1.3,
      (value) => `${formatRatio(value)} (${formatNs(ns('f') ?? 0)} vs ${formatNs(ns('d′') ?? 0)} ns)`,
    ),
    target(
      'tracing-off',
      '`registry.call` with `@opentelemetry/api` loaded and no SDK registered (e) ≤ 1.05× the same call with tracing compiled out (e ÷ e₀)',
      ratio(call, ns('e₀')),
      (value) => value <= 1.05,
      (value) => `${formatRatio(value)} (${formatNs(call ?? 0)} vs ${formatNs(ns('e₀') ?? 0)} ns)`,
    ),
    target(
      'ai-sdk-zod',
      '`registry.call` (e) ≥ 7× faster than the Vercel AI SDK zod path: `tool()` with a zod `inputSchema` + `safeValidateTypes` + `await execute` (j′ ÷ e)',
      ratio(ns('j′'), call),
      (value) => value >= 7,
      fasterThan('j′'),
    ),
    target(
      'mcp-sdk',
      '`registry.call` (e) ≥ 100× faster than the MCP SDK: `Client.callTool` → `McpServer`, in-memory transport (l ÷ e)',
      ratio(ns('l'), call),
      (value) => value >= 100,
      fasterThan('l'),
    ),
    target(
      'langchain',
      '`registry.call` (e) ≥ 100× faster than LangChain.js: `tool(zod).invoke({a, b})` (m ÷ e)',
      ratio(ns('m'), call),
      (value) => value >= 100,
      fasterThan('m'),
    ),
    target(
      'mcp-tools-call',
      "MCP `tools/call` through toolshed's `createMcpServer(registry)` ≥ 90 % of the calls/s of a bare SDK `McpServer` (section 3)",
      figure(mcp, 'throughputRatio'),
      (value) => value >= 0.9,
      (value) =>
        `${formatPercent(value)} (${grouped(Number(mcp?.toolshedCallsPerS), 0)} vs ${grouped(Number(mcp?.bareCallsPerS), 0)} calls/s)`,
      missing(mcp),
    ),
    target(
      'mcp-http',
      "MCP `tools/call` over Streamable HTTP through `toolshed serve` (token, view, call log) ≥ 70 % of the calls/s of a bare SDK `McpServer` over the SDK's Node transport (section 3)",
      figure(mcpHttp, 'ratio'),
      (value) => value >= 0.7,
      (value) =>
        `${formatPercent(value)} (${grouped(Number(mcpHttp?.toolshedRps), 0)} vs ${grouped(Number(mcpHttp?.bareRps), 0)} calls/s)`,
      missing(mcpHttp),
    ),
    target(
      'register-100k',
      'register 100 000 tools (`defineTool` + `register`) ≤ 1 s (median of 5)',
      figure(register, 'registerMs'),
      (value) => value <= 1000,
      formatMs,
      missing(register),
    ),
    target(
      'search-100k',
      '`registry.search(query, {limit: 10})` at 100 000 tools (Zipf catalogue, 200 queries): p50 ≤ 5 ms (section 4)',
      figure(search, 'p50Ms'),
      (value) => value <= 5,
      (value) => `${formatMs(value)} (p99 ${formatMs(Number(search?.p99Ms))})`,
      missing(search),
    ),
    target(
      'exports-cache',
      'second export call ≤ 1 % of the first, 1 000 tools; the highest of OpenAI chat strict, Anthropic, Gemini, MCP (section 5)',
      figure(exports, 'worstSecondOverFirst'),
      (value) => value <= 0.01,
      (value) =>
        `${formatPercent(value)} (${EXPORTER_LABELS[worstExporter] ?? worstExporter}: ${formatNs(exporters?.[worstExporter]?.secondNs ?? 0)} ns vs ${formatMs(exporters?.[worstExporter]?.firstMs ?? 0)})`,
      missing(exports),
    ),
    target(
      'yaml-1000',
      '`loadYamlDirectory` of 1 000 YAML files ≤ 1 s (first load in a fresh process)',
      figure(yaml, 'coldMs'),
      (value) => value <= 1000,
      formatMs,
      missing(yaml),
    ),
    target(
      'sandbox-python-warm',
      '`execute_python` warm p50 ≤ 20 ms on a trivial snippet, through `registry.call`, a fresh process per call (one ready); processes reused for one tenant beside it',
      figure(python, 'warmP50Ms'),
      (value) => value <= 20,
      (value) => `${formatMs(value)} (reused: ${formatMs(Number(python?.reusedWarmP50Ms))})`,
      missing(python),
    ),
    target(
      'sandbox-python-sustained',
      '`execute_python` ≥ 200 calls/s sustained with a fresh process per call (40 short calls queued at once, pool of 2); processes reused for one tenant beside it',
      figure(python, 'sustainedCallsPerSecond'),
      (value) => value >= 200,
      (value) =>
        `${grouped(value, 1)} calls/s (reused: ${grouped(Number(python?.concurrentCallsPerSecond), 0)} calls/s, 100 concurrent)`,
      missing(python),
    ),
    target(
      'sandbox-javascript-warm',
      '`execute_javascript` warm p50 ≤ 2 ms on a trivial snippet, through `registry.call`',
      figure(javascript, 'warmP50Ms'),
      (value) => value <= 2,
      formatMs,
      missing(javascript),
    ),
    target(
      'sandbox-pool-ready',
      'Python sandbox pool (2 processes) ready ≤ 3 s, memory snapshot cached (the first start on a host, which makes the snapshot, is reported beside it)',
      figure(python, 'poolReadyMs'),
      (value) => value <= 3000,
      (value) => `${formatMs(value)} (first start: ${formatMs(Number(python?.poolColdReadyMs))})`,
      missing(python),
    ),
    target(
      'sandbox-timeout',
      'the 5 s sandbox timeout answered within 5.25 s (the slower of Python and JavaScript)',
      Math.max(
        figure(python, 'timeoutAnsweredMs') ?? Number.NaN,
        figure(javascript, 'timeoutAnsweredMs') ?? Number.NaN,
      ),
      (value) => value <= 5250,
      (value) =>
        `${formatMs(value)} (${grouped(Number(python?.concurrentCallsPerSecond), 0)} Python / ${grouped(Number(javascript?.concurrentCallsPerSecond), 0)} JavaScript calls/s, 100 concurrent)`,
      missing(python) ?? missing(javascript),
    ),
    target(
      'cli-cold-start',
      '`toolshed list --tools <3 files>` cold start ≤ 250 ms (median of 10, wall clock)',
      figure(cli, 'cliMs'),
      (value) => value <= 250,
      formatMs,
      missing(cli),
    ),
    target(
      'web-catalog-load',
      'the web catalog loads from a local `toolshed serve` in < 1 s: headless Chromium, empty cache, until the tool list is on screen (median of 10)',
      figure(web, 'readyP50Ms'),
      (value) => value < 1000,
      (value) =>
        `${formatMs(value)} (load event ${formatMs(Number(web?.loadP50Ms))}; slowest ${formatMs(Number(web?.readyMaxMs))})`,
      missing(web),
    ),
    target(
      'web-catalog-bundle',
      "the web catalog's JavaScript < 300 kB gzip",
      figure(web, 'bundleGzipBytes'),
      (value) => value < 300_000,
      (value) => `${grouped(value / 1000, 1)} kB`,
      missing(web),
    ),
    target(
      'emails-search',
      '`email_search` at 500 000 generated emails (200 queries of 1-3 words, each within one inbox), SQLite: p50 ≤ 3 ms and p99 ≤ 15 ms (PostgreSQL reported)',
      emailFigure('sqlite', 'searchP50Ms'),
      (value) => value <= 3 && Number(emailFigure('sqlite', 'searchP99Ms')) <= 15,
      (value) =>
        `${formatMs(value)} (p99 ${formatMs(Number(emailFigure('sqlite', 'searchP99Ms')))}); PostgreSQL ${postgresMs('searchP50Ms')} (p99 ${postgresMs('searchP99Ms')})`,
      missing(emails),
    ),
    target(
      'emails-get',
      '`email_get` at 500 000 emails, SQLite: p50 ≤ 0.5 ms (PostgreSQL reported)',
      emailFigure('sqlite', 'getP50Ms'),
      (value) => value <= 0.5,
      (value) => `${formatMs(value)}; PostgreSQL ${postgresMs('getP50Ms')}`,
      missing(emails),
    ),
    target(
      'emails-import',
      '`toolshed emails import` (`importEmails`) of 500 000 emails from JSONL into a fresh SQLite database ≥ 30 000 emails/s (PostgreSQL reported)',
      emailFigure('sqlite', 'importPerS'),
      (value) => value >= 30_000,
      (value) => {
        const postgres = emailFigure('postgres', 'importPerS');
        return `${grouped(value, 0)} emails/s; PostgreSQL ${postgres === undefined ? 'n/a' : `${grouped(postgres, 0)} emails/s`}`;
      },
      missing(emails),
    ),
    target(
      'emails-search-postgres',
      '`email_search` at 500 000 generated emails on PostgreSQL: p99 ≤ 25 ms (the same 200 queries)',
      emailFigure('postgres', 'searchP99Ms'),
      (value) => value <= 25,
      (value) => `p99 ${formatMs(value)} (p50 ${postgresMs('searchP50Ms')})`,
      missing(emails),
    ),
    target(
      'emails-import-postgres',
      '`importEmails` of 500 000 emails from JSONL into a fresh PostgreSQL database ≥ 20 000 emails/s',
      emailFigure('postgres', 'importPerS'),
      (value) => value >= 20_000,
      (value) => `${grouped(value, 0)} emails/s`,
      missing(emails),
    ),
  ];
}

async function main() {
  if (!existsSync(`${ROOT}dist/index.js`)) {
    console.error('bench: dist/index.js is missing; run `npm run build` first.');
    process.exitCode = 1;
    return;
  }
  const started = new Date();
  const loadBefore = loadavg();
  const builtAtStart = distBuiltAt();
  const only = selectedCases(process.argv.slice(2));
  // Cases inherit the setting (bench/lib/timing.js reads it).
  if (process.argv.includes('--cpu')) process.env.TOOLSHED_BENCH_CLOCK = 'cpu';
  const clock = process.env.TOOLSHED_BENCH_CLOCK === 'cpu' ? 'process CPU time' : 'wall time';
  const passes = runAllCases(only);
  const loadAfter = loadavg();
  const finished = new Date();

  const dispatch = summariseDispatch(passes);
  /** @type {SingleResults} */
  const single = {
    mcp: passes.get('mcp-tools-call')?.[0],
    mcpHttp: passes.get('mcp-http')?.[0],
    register: passes.get('register-100k')?.[0],
    search: passes.get('search-100k')?.[0],
    searchQuality: passes.get('search-bfcl')?.[0],
    exports: passes.get('exports-1000')?.[0],
    yaml: passes.get('yaml-1000')?.[0],
    cli: passes.get('cli-cold-start')?.[0],
    python: passes.get('sandbox-python')?.[0],
    javascript: passes.get('sandbox-javascript')?.[0],
    restSqlite: passes.get('rest-sqlite')?.[0],
    restPostgres: passes.get('rest-postgres')?.[0],
    emails: passes.get('emails-500k')?.[0],
    web: passes.get('web-catalog')?.[0],
  };
  const targets = [
    ...evaluateTargets(dispatch.ns, single),
    searchQualityTarget(single.searchQuality),
    ...restTargets(single.restSqlite, single.restPostgres),
  ];
  const rest = restTable(single.restSqlite, single.restPostgres);
  const machine = machineInfo();
  const report = {
    date: started.toISOString(),
    durationS: (finished.getTime() - started.getTime()) / 1000,
    machine: { ...machine, loadAverage1mBefore: loadBefore[0], loadAverage1mAfter: loadAfter[0] },
    toolshed: toolshedInfo(builtAtStart),
    method: {
      process: 'each case in its own `node --expose-gc` process',
      dispatch: `calls one after another (each awaited when async); rounds time-boxed to 300 ms (chunks of >= 20 ms of calls) in ${clock}; one warm-up round; median of 5 rounds; ${DISPATCH_PASSES} interleaved passes, the lower median counts`,
    },
    dispatch: dispatch.rows,
    mcpToolsCall: single.mcp,
    registry: single.register,
    search: single.search,
    searchQuality: single.searchQuality,
    exports: single.exports,
    yaml: single.yaml,
    cli: single.cli,
    rest: { sqlite: single.restSqlite, postgres: single.restPostgres },
    emails: single.emails,
    web: single.web,
    targets,
    allTargetsPass: targets.every((entry) => entry.status === 'PASS'),
  };

  const dispatchHeader = ['', 'path', 'ns/call', '× direct (a)', '× floor (d)', '× its floor'];
  const dispatchAlign = ['l', 'l', 'r', 'r', 'r', 'r'];
  const dispatchRows = dispatch.rows.map((row) => [
    row.key,
    row.label,
    row.nsPerCall === undefined ? `ERROR: ${row.error}` : `${formatNs(row.nsPerCall)}${row.noisy ? ' †' : ''}`,
    row.xDirect === undefined ? '' : formatRatio(row.xDirect),
    row.xFloor === undefined ? '' : formatRatio(row.xFloor),
    row.xOwnFloor === undefined ? '' : `${formatRatio(row.xOwnFloor)} (${row.comparedWith})`,
  ]);
  const scaleHeader = ['measure', 'figure'];
  const scaleRows = scaleTable(single.register, single.yaml, single.cli);
  const mcpRows = mcpTable(single.mcp, single.mcpHttp);
  const searchRows = searchTable(single.search);
  const quality = searchQualityTable(single.searchQuality);
  const exportsHeader = [
    'exporter (1 000 tools)',
    'first call, median of 5 fresh registries',
    'first call, first in the process',
    'second call',
    'second ÷ first',
  ];
  const exportsAlign = ['l', 'r', 'r', 'r', 'r'];
  const exportsRows = exportsTable(single.exports);
  const targetRows = targets.map((entry) => [entry.description, entry.figure, entry.status]);

  process.stdout.write(`\n${textTable(dispatchHeader, dispatchAlign, dispatchRows)}\n\n`);
  if (only !== undefined) {
    process.stdout.write(`Dispatch timed in ${clock}.\n`);
    // A partial run: the dispatch table and the targets it has figures for.
    for (const entry of targets.filter((candidate) => candidate.status === 'PASS' || candidate.status === 'FAIL')) {
      process.stdout.write(`${entry.status.padEnd(7)} ${entry.description.replaceAll('`', '')}: ${entry.figure}\n`);
    }
    process.stdout.write('\nA partial run (--only): BENCHMARKS.md and bench/results.json are left as they were.\n');
    if ([...passes.values()].flat().some((result) => !result.ok)) process.exitCode = 1;
    return;
  }
  process.stdout.write(`${textTable(scaleHeader, ['l', 'r'], scaleRows)}\n\n`);
  process.stdout.write(`${textTable(scaleHeader, ['l', 'r'], mcpRows)}\n\n`);
  process.stdout.write(`${textTable(scaleHeader, ['l', 'r'], searchRows)}\n\n`);
  process.stdout.write(`${textTable(quality.header, quality.align, quality.rows)}\n${quality.caption}\n\n`);
  process.stdout.write(`${textTable(exportsHeader, exportsAlign, exportsRows)}\n\n`);
  process.stdout.write(`${textTable(rest.header, rest.align, rest.rows)}\n\n`);
  for (const entry of targets) {
    process.stdout.write(`${entry.status.padEnd(7)} ${entry.description.replaceAll('`', '')}: ${entry.figure}\n`);
  }

  writeFileSync(RESULTS_FILE, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(
    REPORT_FILE,
    renderMarkdown({
      report,
      machine,
      loadBefore,
      loadAfter,
      dispatchTable: markdownTable(dispatchHeader, dispatchAlign, dispatchRows),
      targetTable: markdownTable(['target', 'figure', 'result'], ['l', 'r', 'l'], targetRows),
      scaleTable: markdownTable(scaleHeader, ['l', 'r'], scaleRows),
      mcpTable: markdownTable(scaleHeader, ['l', 'r'], mcpRows),
      searchTable: markdownTable(scaleHeader, ['l', 'r'], searchRows),
      searchQualityTable: `${markdownTable(quality.header, quality.align, quality.rows)}\n\n${quality.caption}`,
      exportsTable: markdownTable(exportsHeader, exportsAlign, exportsRows),
      restTable: markdownTable(rest.header, rest.align, rest.rows),
      ns: dispatch.ns,
    }),
  );
  process.stdout.write(`\nWrote ${REPORT_FILE} and ${RESULTS_FILE} (${report.durationS.toFixed(0)} s).\n`);
  if ([...passes.values()].flat().some((result) => !result.ok)) process.exitCode = 1;
}

/**
 * A figure of a single case for a table cell, or why there is none.
 *
 * @param {CaseResult | undefined} result
 * @param {string} field
 * @param {(value: number) => string} format
 * @returns {string}
 */
function show(result, field, format) {
  if (result === undefined) return 'not run';
  if (!result.ok) return `ERROR: ${result.error}`;
  if (typeof result.skipped === 'string') return `SKIPPED: ${result.skipped}`;
  const value = result[field];
  return typeof value === 'number' ? format(value) : 'n/a';
}

/**
 * Rows of the MCP `tools/call` table: each server's calls/s and the ratios.
 *
 * @param {CaseResult | undefined} mcp
 * @param {CaseResult | undefined} mcpHttp
 * @returns {string[][]}
 */
function mcpTable(mcp, mcpHttp) {
  const callsPerS = (/** @type {number} */ value) => `${grouped(value, 0)} calls/s`;
  const nsPerCall = (/** @type {number} */ value) => `${formatNs(value)} ns`;
  return [
    [
      `bare SDK ${versionOf('@modelcontextprotocol/sdk')} \`McpServer\`, \`add\` registered with a zod shape`,
      show(mcp, 'bareCallsPerS', callsPerS),
    ],
    ['the same, per call', show(mcp, 'bareNsPerCall', nsPerCall)],
    [
      "toolshed `createMcpServer(registry)`, `add` with a JSON Schema (the SDK's low-level `Server`)",
      show(mcp, 'toolshedCallsPerS', callsPerS),
    ],
    ['the same, per call', show(mcp, 'toolshedNsPerCall', nsPerCall)],
    [
      '**toolshed ÷ bare, calls/s** (median of the per-round ratios; the target)',
      show(mcp, 'throughputRatio', (value) => formatPercent(value)),
    ],
    [
      'control: bare ÷ a second bare server, calls/s (1 on a quiet machine)',
      show(mcp, 'controlThroughputRatio', (value) => formatPercent(value)),
    ],
    [
      `Streamable HTTP: bare SDK ${versionOf('@modelcontextprotocol/sdk')} \`McpServer\`, its Node transport, one session, 10 connections`,
      show(mcpHttp, 'bareRps', callsPerS),
    ],
    [
      'Streamable HTTP: `toolshed serve` `/mcp` (token, view, call log, SQLite), one session, 10 connections',
      show(mcpHttp, 'toolshedRps', callsPerS),
    ],
    [
      '**Streamable HTTP: toolshed ÷ bare, calls/s** (median of the per-round ratios; the target)',
      show(mcpHttp, 'ratio', (value) => formatPercent(value)),
    ],
    [
      'Streamable HTTP: the lowest and highest per-round ratio',
      show(mcpHttp, 'ratio', () => {
        const ratios = Array.isArray(mcpHttp?.roundsRatio) ? mcpHttp.roundsRatio.map(Number) : [];
        return ratios.length === 0
          ? 'n/a'
          : `${formatPercent(Math.min(...ratios))} – ${formatPercent(Math.max(...ratios))}`;
      }),
    ],
  ];
}

/**
 * Rows of the search table: index build, per-query percentiles, the slowest queries.
 *
 * @param {CaseResult | undefined} search
 * @returns {string[][]}
 */
function searchTable(search) {
  const slowest = search?.ok && Array.isArray(search.slowest) ? search.slowest : [];
  return [
    ['first `registry.search` (builds the index of 100 000 tools)', show(search, 'buildMs', formatMs)],
    ['heap held by the index', show(search, 'indexHeapMB', (value) => `${value.toFixed(0)} MB`)],
    ['queries timed (of 200; the rest would have run past the 50 s budget)', show(search, 'queriesRun', String)],
    ['queries with at least one hit', show(search, 'queriesWithHits', String)],
    ['**p50 per query**', show(search, 'p50Ms', formatMs)],
    ['p99 per query', show(search, 'p99Ms', formatMs)],
    ['slowest query', show(search, 'maxMs', formatMs)],
    ...slowest.map((entry, index) => [`slowest query ${index + 1}: \`${entry.query}\``, formatMs(entry.ms)]),
  ];
}

/**
 * Rows of the export-caching table, one per exporter.
 *
 * @param {CaseResult | undefined} exports
 * @returns {string[][]}
 */
function exportsTable(exports) {
  const exporters = /** @type {Record<string, Record<string, number>>} */ (exports?.ok ? exports.exporters : {});
  return Object.entries(EXPORTER_LABELS).map(([name, label]) => {
    const figures = exporters[name];
    if (figures === undefined) return [label, show(exports, 'count', String), '', '', ''];
    return [
      label,
      formatMs(figures.firstMs),
      formatMs(figures.firstInProcessMs),
      `${formatNs(figures.secondNs)} ns`,
      formatPercent(figures.secondOverFirst),
    ];
  });
}

/**
 * Rows of the scale table (registry at 100 000 tools, YAML loading, CLI start).
 *
 * @param {CaseResult | undefined} register
 * @param {CaseResult | undefined} yaml
 * @param {CaseResult | undefined} cli
 * @returns {string[][]}
 */
function scaleTable(register, yaml, cli) {
  return [
    ['register 100 000 tools, median of 5 rounds', show(register, 'registerMs', formatMs)],
    ['register 100 000 tools, first round (cold JIT)', show(register, 'registerFirstRoundMs', formatMs)],
    ['heap held by 100 000 registered tools', show(register, 'heapMB', (value) => `${value.toFixed(0)} MB`)],
    [
      'first `registry.call` of a fresh tool at 100k (schema compile), median of 51',
      show(register, 'firstCallMs', formatMs),
    ],
    ['the same, slowest of the 50 after the first', show(register, 'firstCallMaxOfRestMs', formatMs)],
    [
      "the same, the first of them (the process's first schema compile)",
      show(register, 'firstCallInProcessMs', formatMs),
    ],
    ['warm `registry.call` at 100k tools', show(register, 'warmCallNs', (value) => `${formatNs(value)} ns`)],
    ['first `registry.list()` at 100k (sorts)', show(register, 'listFirstMs', formatMs)],
    ['later `registry.list()` at 100k (copies the cached order), median of 21', show(register, 'listMs', formatMs)],
    ['`loadYamlDirectory`, 1 000 files, first load in the process', show(yaml, 'coldMs', formatMs)],
    ['`loadYamlDirectory`, 1 000 files, later loads, median of 5', show(yaml, 'warmMs', formatMs)],
    ['`toolshed list --tools <3 files>`, median of 10', show(cli, 'cliMs', formatMs)],
    ['bare `node -e 0`, median of 10 (interleaved with the above)', show(cli, 'nodeMs', formatMs)],
  ];
}

/**
 * BENCHMARKS.md: machine, date, method, tables and the figures derived from them.
 *
 * @param {{
 *   report: {
 *     date: string,
 *     durationS: number,
 *     targets: TargetResult[],
 *     toolshed: ReturnType<typeof toolshedInfo>,
 *     dispatch: Array<{ noisy: boolean }>,
 *   },
 *   machine: ReturnType<typeof machineInfo>,
 *   loadBefore: number[],
 *   loadAfter: number[],
 *   dispatchTable: string,
 *   targetTable: string,
 *   scaleTable: string,
 *   mcpTable: string,
 *   searchTable: string,
 *   searchQualityTable: string,
 *   exportsTable: string,
 *   restTable: string,
 *   ns: (key: string) => number | undefined,
 * }} input
 * @returns {string}
 */
function renderMarkdown({
  report,
  machine,
  loadBefore,
  loadAfter,
  dispatchTable,
  targetTable,
  scaleTable,
  mcpTable,
  searchTable,
  searchQualityTable,
  exportsTable,
  restTable,
  ns,
}) {
  const noisyRows = report.dispatch.filter((row) => row.noisy).length;
  /** @param {string} left @param {string} right */
  const difference = (left, right) => {
    const top = ns(left);
    const bottom = ns(right);
    if (top === undefined || bottom === undefined) return 'n/a';
    const delta = top - bottom;
    return `${delta < 0 ? '−' : '+'}${formatNs(Math.abs(delta))} ns`;
  };
  const twoClockReads = () => {
    const read = ns('t');
    return read === undefined ? 'n/a' : `${formatNs(2 * read)} ns`;
  };
  /** @param {string} left @param {string} right */
  const times = (left, right) => {
    const top = ns(left);
    const bottom = ns(right);
    return top === undefined || bottom === undefined ? 'n/a' : formatRatio(top / bottom);
  };
  const passed = report.targets.filter((entry) => entry.status === 'PASS').length;
  return `# Benchmarks

Generated by \`npm run bench\` (\`bench/run.js\`); do not edit by hand, re-run it. The raw figures,
every round included, are in \`bench/results.json\`.

- **Date**: ${report.date} (the run took ${report.durationS.toFixed(0)} s)
- **Machine**: Node ${machine.node}, ${machine.platform}, ${machine.cpus} cores (\`os.cpus().length\`), ${machine.cpuModel}, ${machine.memoryGB} GB RAM
- **toolshed**: commit ${report.toolshed.commit}${report.toolshed.uncommittedChanges ? ' with uncommitted changes under src/' : ''}, \`dist/\` built ${report.toolshed.distBuiltAt}${report.toolshed.distRebuiltDuringRun ? ' (**rebuilt while the bench ran**: figures may mix two builds; re-run)' : ''}
- **Load average (1 min)** at start / end: ${loadBefore[0].toFixed(2)} / ${loadAfter[0].toFixed(2)}. These machines are shared and
  noisy: trust the ratios within one run more than absolute times from another day.

## Targets

${passed} of ${report.targets.length} pass.

${targetTable}

The three "\`registry.call\` (e) ≥ N× faster" rows each compare row e of section 1 (toolshed,
sync handler, JSON Schema, object arguments) with the one peer path named in the row; the figure
gives the peer's ns/call first. The AI SDK target is held against the AI SDK's zod path (j′), the form
its documentation leads with; row j (the AI SDK with \`jsonSchema()\` and the same Ajv validator as
the floor) is shown for comparison and has no target.

## Method

- **One process per case.** \`bench/run.js\` runs each file in \`bench/cases/\` as
  \`node --expose-gc bench/cases/<case>.js\`, which prints one JSON line. Separate processes keep one
  library's process-wide state out of another's figures (LangChain's AsyncLocalStorage makes every
  \`await\` in the process slower; rows d″ and e″ measure that effect on purpose) and give each timing
  loop a single call site to optimise.
- **Dispatch (section 1).** The tool is \`add({a, b})\` with the JSON Schema
  \`{type: object, properties: {a: number, b: number}, required: [a, b]}\` (or the equivalent zod
  object where a path takes zod). Calls run one after another on one reused argument object
  \`{a: 1, b: 2}\` (the JSON text \`{"a":1,"b":2}\` for h, i and k); async paths await each call before
  the next. \`measureCall\` (\`bench/lib/timing.js\`) finds a chunk size by doubling the number
  of calls until one chunk takes 20 ms, then runs time-boxed rounds: chunks of calls until 300 ms
  have passed (so a round lasts 300-340 ms whatever the load), elapsed time over calls made. It
  reports the median ns/call of 5 rounds, after one warm-up round, with a full GC before each.
  The whole list of dispatch cases runs ${DISPATCH_PASSES} times, interleaved (a … e₀, then a … e₀
  again), and the pass with the lower median counts: load from other processes only ever slows a
  case down. A † marks a case whose passes differed by more than ${Math.round((NOISY_SPREAD - 1) * 100)}% (a noisy figure;
  every pass and round is in \`results.json\`).
  Before timing, every path is checked to return 3 and to reject \`{a: "x", b: 2}\`, so no path is
  timed while skipping validation. The handler is sync wherever the path allows it.
- **The floor (d)** is the least a defensive async dispatcher does: \`Map\` lookup, Ajv 2020
  \`validate\`, \`try\`/\`catch\` around \`await handler(args)\`, and the result wrapped as
  \`{status: 'success', data, metadata: {tool}}\`, in an \`async\` function
  (\`createFloorDispatcher\` in \`bench/lib/add-tool.js\`).
- **AI SDK (j′, j).** j′, the path the AI SDK target is held against, is \`tool()\` with a zod
  \`inputSchema\` (the form the AI SDK documents first), \`safeValidateTypes\` and \`await execute\`.
  j is an extra row without a target: \`jsonSchema(schema)\` without a \`validate\` function makes
  \`safeValidateTypes\` accept anything, so j passes the same Ajv validator as the floor, which makes it
  nearly the floor itself.
- **OpenAI Agents (k)** reuses one \`new RunContext({})\` across calls, as one agent run does, and
  passes JSON text (its \`invoke\` parses it). **MCP (l)** connects an SDK \`Client\` to an
  \`McpServer\` over \`InMemoryTransport.createLinkedPair()\`; each \`callTool\` is a JSON-RPC round trip
  with zod validation on the server. **LangChain (m)** imports only \`@langchain/core/tools\`, which
  does not install the AsyncLocalStorage context (\`@langchain/core/context\` does; d″ and e″ import it).
- **Registry scale (section 2).** 100 000 tool options are built before the clock starts: names
  \`tool_0\` … \`tool_99999\`, a one-sentence description, a category, two tags, a handler closure
  each, and a schema of 1 to 4 arguments (a string \`query\` with \`minLength\`, an integer \`limit\`
  with bounds, a 3-value enum, a boolean; \`query\` required) whose descriptions name the tool, so no
  two schemas are the same text and none shares a compiled validator. Timed: \`registry.register(defineTool(options))\`
  for all of them into a fresh registry; median of 5 rounds (the first round is also shown). Then,
  on the last registry: \`list()\` once (it sorts) and 21 more times; the first \`call\` of 51 tools
  spread over the registry (each compiles its schema on first use); a warm \`call\` measured like
  section 1.
- **YAML (section 2).** 1 000 definition files in the SPEC §4.1 form (name, title, description,
  when_to_use, category, tags, a 3-argument \`parameters\` schema, \`handler: ./handlers.js#handlerN\`
  over 10 exports, timeout, annotations, metadata) are written to a temp folder with \`handlers.js\`
  and a \`package.json\` marking it ESM. The first \`loadYamlDirectory\` in the process (which imports
  the loader, the YAML parser and the handler module) is the target figure; 5 later loads into fresh
  registries are shown as well.
- **MCP \`tools/call\` (section 3).** One process holds a bare SDK \`McpServer\` with \`add\`
  registered with a zod shape (\`{a: z.number(), b: z.number()}\`) and toolshed's
  \`createMcpServer(registry)\` over a registry holding \`add\` (the JSON Schema, sync handler), each
  connected to its own SDK \`Client\` over \`InMemoryTransport.createLinkedPair()\`; both are checked to
  return 3 and to give an \`isError\` result for \`{a: "x", b: 2}\`. \`measureCallPair\`
  (\`bench/lib/timing.js\`) times \`client.callTool({name: 'add', arguments: {a: 1, b: 2}})\` on both in
  alternating 50 ms time-boxed rounds (41 rounds after a warm-up round, the order swapped each round,
  no forced GC: the path that runs first after a full GC is 1.5-2× slower for ~100 ms, which would bias
  the comparison), and the median of the per-round ratios is the figure. The control pair (21 rounds)
  times the bare server against a second, identical bare server: its distance from 100 % is the noise.
- **Search (section 4).** A deterministic catalogue (\`bench/lib/catalogue.js\`, seeded mulberry32):
  a vocabulary of 5 000 words (40 common verbs plus pseudo-words, shorter ones at the frequent ranks),
  each drawn with Zipf's law (P(rank k) ∝ 1/k). 100 000 tools, registered with \`registerAll\`:
  name \`verb_object\` (\`verb_object_word\` or a numeric suffix when taken), title from the name,
  a description of 8-20 words with glue words (the, for, with, ...) between some, and 1-4 string
  parameters named by one or two words, each with a 3-8 word description. 200 queries of 1-3 distinct
  words (the first a verb one time in three). Timed: the first \`registry.search\` (it builds the
  index of every tool, then answers one query); then, after 3 untimed queries, each of the 200
  queries once with \`{limit: 10}\`, timed alone (p50 and p99 over them). Queries stop after 50 s so
  the run stays bounded; the table says how many ran.
- **Search quality (section 4).** \`bench/cases/search-bfcl.js\` indexes every BFCL function in a
  \`ToolSearchIndex\`, a MiniSearch ${versionOf('minisearch')} index and a keyword-overlap ranker, and runs every
  BFCL question through each, keeping the first 10 results; skipped when \`../shared/realdata/bfcl\`
  is absent.
- **Exports (section 5).** Each of 5 rounds builds a fresh registry of 1 000 tools (the same
  \`smallSchema\` as section 2, salted per round so no round reuses another's schemas) before the clock
  starts, then times the first call of each exporter on it. The second call (the registry's cached
  list, checked to be the same object, and checked to be rebuilt after a \`register\`) is timed like
  section 1, in 100 ms rounds. The ratio is the second call's median over the first call's median.
- **CLI (section 2).** When \`bin/toolshed.js\` exists and \`toolshed list --tools <dir>\` exits 0 on a
  folder of 3 generated definitions, 10 runs of it (\`spawnSync\`, wall clock, after one untimed run)
  are interleaved with 10 runs of \`node -e 0\` and the medians compared.

## 1. Tool dispatch, ns per call (trivial \`add({a, b})\`, median of 5 rounds, lower of ${DISPATCH_PASSES} passes)

${dispatchTable}

"× its floor" compares a toolshed path with the hand-written floor that does the same work: d for
e and g, d′ (async handler) for f, i (\`JSON.parse\` first) for h, d″ (LangChain's context active) for e″,
e (the same call without an SDK) for e‴.

What the figures say, from this run${noisyRows > 0 ? ` (${noisyRows} of ${DISPATCH_ROWS.length} rows are marked †: the machine was busy, so a difference of less than ~2× between two rows may be noise; re-run before acting on one)` : ''}:

- toolshed's own cost over the floor, sync handler: e − d = ${difference('e', 'd')} per call, of which
  two clock reads for \`metadata.durationMs\` (the floor keeps no duration) take 2 × t = ${twoClockReads()}
  (see docs/decisions/016-call-duration-clock.md).
- An \`async\` handler: f − e = ${difference('f', 'e')} in toolshed; d′ − d = ${difference('d′', 'd')} in the floor.
- A zod \`input\`: g − e = ${difference('g', 'e')}; toolshed runs both Ajv (on the derived JSON Schema) and zod.
- JSON text arguments: h − e = ${difference('h', 'e')} in toolshed; i − d = ${difference('i', 'd')} in the floor.
- LangChain's AsyncLocalStorage in the process: d″ ÷ d = ${times('d″', 'd')} for the floor, e″ ÷ e = ${times('e″', 'e')} for \`registry.call\`.
- Tracing: every row loads \`@opentelemetry/api\` and registers no SDK, so e is a call with tracing off
  (one check of the registered tracer provider); with an SDK registered, every call a recorded span:
  e‴ − e = ${difference('e‴', 'e')}, e‴ ÷ e = ${times('e‴', 'e')}. e₀ is e with that check compiled out, the
  call as it would be without tracing: e ÷ e₀ = ${times('e', 'e₀')}.

## 2. Scale: 100 000 tools, 1 000 YAML files, CLI start

${scaleTable}

## 3. MCP \`tools/call\`: toolshed's server beside a bare SDK \`McpServer\` (one process, interleaved)

${mcpTable}

Both paths go through the same SDK \`Client\`, \`Protocol\` and in-memory transport; the
difference between them is the server side alone (zod validation in \`McpServer\`, \`registry.call\`
with its context in toolshed).

The Streamable HTTP rows (\`bench/cases/mcp-http.js\`) run both servers as child processes: each
gets one session opened by the SDK client, then autocannon sends \`tools/call add_numbers\` in it from
10 connections, each request with its own JSON-RPC id, in 9 rounds of 2 s that load the two back to
back, the order swapped each round; the figure is the median of the rounds' ratios, and the table
shows their range (one round's ratio swings widely while the servers and the load generator share
2 cores).
toolshed's side does what a deployment does per call: the token, the workspace's view, the call log.

## 4. Tool search: \`registry.search(query, {limit: 10})\` at 100 000 tools (Zipf catalogue)

${searchTable}

The slowest queries hold the vocabulary's most frequent words, which appear in most of the 100 000
tools: a query's time grows with the postings of its words (each scored into one reused array, the
best 10 kept in a heap; docs/decisions/004-tool-search.md).

### Search quality on real questions (\`bench/cases/search-bfcl.js\`)

${searchQualityTable}

The retrieval set is derived at run time from \`../shared/realdata/bfcl\` (\`bench/lib/bfcl-retrieval.js\`):
every BFCL question with a ground truth is a query (its first turn's user messages), and the
functions its ground truth calls are the tools to find, among one index of every function offered
by those questions (one per name). recall@k is the share of a query's gold tools in the first k,
averaged over queries; nDCG@10 uses binary relevance. The peers index the same text.

## 5. Export caching: 1 000 tools, first and second call of each exporter

${exportsTable}

## 6. REST API: \`toolshed serve\` beside a bare Fastify app (child processes, autocannon, 10 connections)

${restTable}

Each dialect's case (\`bench/cases/rest-sqlite.js\`, \`rest-postgres.js\`; \`bench/lib/rest-bench.js\`)
starts \`toolshed serve\` from dist/ on a new database and the bare Fastify app
(\`bench/lib/bare-fastify-server.js\`, answering the bodies toolshed answered) as child processes,
and loads them from its own process. GET and POST each get a warm-up run, then 3 rounds that load
toolshed and the baseline back to back (the order swapped every round); the ratio is the median
of the per-round ratios. The mixed load cycles reads, calls, attach/detach on 20 shared agents and
agent creates for 60 s after a 10 s warm-up; statuses other than 2xx count as errors except the
409/404 of an attach/detach race. Targets are judged on SQLite; PostgreSQL is reported beside it.
`;
}

await main();
