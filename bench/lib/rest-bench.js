/**
 * The REST cases (`bench/cases/rest-sqlite.js`, `rest-postgres.js`): `toolshed serve` from dist/ on
 * one dialect beside a bare Fastify app, both child processes, loaded with autocannon (10
 * connections) from the case's own process.
 *
 * 1. `GET /api/agents/:id/tools` against a bare `GET` answering a body of the same size, and
 *    `POST /api/tools/add_numbers/call` (a `--config` tool whose handler adds two numbers) against a
 *    bare `POST` answering the same-size result: a warm-up
 *    run each, then rounds that load toolshed and the baseline back to back (the order swapped every
 *    round); the figure is the median of the per-round req/s ratios.
 * 2. A mixed load (reads, calls, attach/detach on shared agents, agent creates) after a warm-up:
 *    every status other than a 2xx (and the 409/404 an attach/detach race answers) is an error, and the
 *    server's RSS at the end is compared with its RSS after the warm-up.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check } from './case.js';
import { createPostgresDatabase, runAutocannon, startBareFastify, startToolshed } from './rest-servers.js';
import { median } from './timing.js';

/** autocannon connections, as in MEASUREMENTS.md's HTTP ceiling. */
const CONNECTIONS = 10;

/** Durations are scaled by this, for a quick look (`TOOLSHED_BENCH_REST_SCALE=0.2` runs a fifth). */
const SCALE = Number(process.env.TOOLSHED_BENCH_REST_SCALE ?? '1');

/**
 * `seconds` scaled by `TOOLSHED_BENCH_REST_SCALE`, whole, and at least `least`.
 *
 * @param {number} seconds
 * @param {number} [least]
 */
export function scaledSeconds(seconds, least = 1) {
  return Math.max(least, Math.round(seconds * SCALE));
}

const WARMUP_S = scaledSeconds(2);
const ROUND_S = scaledSeconds(3);
const ROUNDS = 3;
const MIXED_WARMUP_S = scaledSeconds(10);
const MIXED_S = scaledSeconds(60, 2);

/** How many agents the mixed load's attach/detach requests share. */
const SHARED_AGENTS = 20;

/** The `--config` tool the call comparison calls: `add_numbers({a, b})`, a one-line handler. */
export const TRIVIAL_TOOL = 'add_numbers';

/**
 * autocannon options for MCP `tools/call` of the trivial tool (`a: 6, b: 36`) at `url`: every request
 * its own JSON-RPC id, so concurrent calls of one session never share one.
 *
 * @param {string} url
 * @param {Record<string, string>} headers
 * @param {Record<string, unknown>} [meta] the 2026-07-28 `_meta` envelope, or none for a request of a session
 * @returns {import('autocannon').Options}
 */
export function mcpCallLoad(url, headers, meta) {
  let id = 1000;
  return {
    url,
    method: 'POST',
    headers,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: ++id,
            method: 'tools/call',
            params: { name: TRIVIAL_TOOL, arguments: { a: 6, b: 36 }, ...(meta === undefined ? {} : { _meta: meta }) },
          }),
        }),
      },
    ],
  };
}

/**
 * Write `toolshed.yaml` with the trivial tool in `tools/` and the two built-ins the load uses (a
 * served configuration's `builtins:` decides which built-ins its workspace has; with no `workspace:`
 * folder, `read_file` keeps its files in the database).
 *
 * @param {string} folder
 */
export function writeConfig(folder) {
  mkdirSync(join(folder, 'tools'));
  writeFileSync(join(folder, 'toolshed.yaml'), 'tools: [./tools]\nbuiltins: [calculator, read_file]\n');
  writeFileSync(join(folder, 'package.json'), '{"type": "module"}\n');
  writeFileSync(join(folder, 'tools', 'handlers.js'), 'export const addNumbers = ({ a, b }) => a + b;\n');
  writeFileSync(
    join(folder, 'tools', `${TRIVIAL_TOOL}.yaml`),
    [
      `name: ${TRIVIAL_TOOL}`,
      'description: Add two numbers and return their sum.',
      'parameters:',
      '  type: object',
      '  properties:',
      '    a: { type: number }',
      '    b: { type: number }',
      '  required: [a, b]',
      'handler: ./handlers.js#addNumbers',
      '',
    ].join('\n'),
  );
}

/**
 * Run `work` against `toolshed serve` of {@link writeConfig}'s configuration on a new SQLite database,
 * in a temporary folder named from `prefix`. `work` may push more cleanups; they run in reverse order
 * (the server's stop last), then the folder is removed.
 *
 * @template T
 * @param {string} prefix
 * @param {(server: import('./rest-servers.js').ToolshedProcess, cleanups: Array<() => Promise<void>>) => Promise<T>} work
 * @returns {Promise<T>}
 */
export async function withServedConfig(prefix, work) {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  /** @type {Array<() => Promise<void>>} */
  const cleanups = [];
  try {
    writeConfig(folder);
    const server = await startToolshed({
      databaseUrl: join(folder, 'toolshed.db'),
      cwd: folder,
      config: join(folder, 'toolshed.yaml'),
    });
    cleanups.push(() => server.stop());
    return await work(server, cleanups);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * @param {string} base
 * @param {Record<string, string>} headers
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<{ status: number, text: string }>}
 */
async function request(base, headers, method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text() };
}

/**
 * req/s of one autocannon run, checked to be all 2xx.
 *
 * @param {import('autocannon').Options} options
 * @returns {Promise<number>}
 */
async function requestsPerSecond(options) {
  const result = await runAutocannon({ connections: CONNECTIONS, ...options });
  check(
    result.non2xx === 0 && result.errors === 0 && result.timeouts === 0,
    `${options.method ?? 'GET'} ${options.url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
  );
  return result.requests.average;
}

/**
 * toolshed and the baseline back to back, `rounds` times (default `ROUNDS`, each `roundSeconds`
 * long, default `ROUND_S`) after a warm-up run each, the order swapped every round.
 *
 * @param {import('autocannon').Options} toolshed
 * @param {import('autocannon').Options} bare
 * @param {{ rounds?: number, roundSeconds?: number }} [options]
 */
export async function comparePair(toolshed, bare, { rounds = ROUNDS, roundSeconds = ROUND_S } = {}) {
  await requestsPerSecond({ ...toolshed, duration: WARMUP_S });
  await requestsPerSecond({ ...bare, duration: WARMUP_S });
  const toolshedRps = [];
  const bareRps = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      toolshedRps.push(await requestsPerSecond({ ...toolshed, duration: roundSeconds }));
      bareRps.push(await requestsPerSecond({ ...bare, duration: roundSeconds }));
    } else {
      bareRps.push(await requestsPerSecond({ ...bare, duration: roundSeconds }));
      toolshedRps.push(await requestsPerSecond({ ...toolshed, duration: roundSeconds }));
    }
  }
  const ratios = toolshedRps.map((rps, round) => rps / (bareRps[round] ?? Number.NaN));
  return {
    toolshedRps: median(toolshedRps),
    bareRps: median(bareRps),
    ratio: median(ratios),
    roundsToolshedRps: toolshedRps,
    roundsBareRps: bareRps,
    roundsRatio: ratios,
  };
}

/**
 * The mixed load's requests, cycled by every connection: each route with the statuses it may
 * answer besides a 2xx; anything else counts as an error.
 *
 * @param {{ readAgent: string, sharedAgents: string[], headers: Record<string, string> }} setup
 * @param {Map<string, Map<number, number>>} statuses route → status → count
 * @returns {import('autocannon').Request[]}
 */
function mixedRequests({ readAgent, sharedAgents, headers }, statuses) {
  const json = { ...headers, 'content-type': 'application/json' };
  const shared = () => sharedAgents[Math.floor(Math.random() * sharedAgents.length)];
  /** @param {string} route @returns {(status: number) => void} */
  const count = (route) => (status) => {
    const byStatus = statuses.get(route) ?? new Map();
    statuses.set(route, byStatus);
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  };
  let created = 0;
  return [
    { method: 'GET', path: `/api/agents/${readAgent}/tools`, headers, onResponse: count('GET /api/agents/:id/tools') },
    {
      method: 'POST',
      path: '/api/tools/calculator/call',
      headers: json,
      body: JSON.stringify({ arguments: { expression: '6 * 7' } }),
      onResponse: count('POST /api/tools/calculator/call'),
    },
    {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ tool_id: 'read_file', config: { max_bytes: 4096 } }),
      setupRequest: (request) => ({ ...request, path: `/api/agents/${shared()}/tools` }),
      onResponse: count('POST /api/agents/:id/tools'),
    },
    { method: 'GET', path: '/api/tools', headers, onResponse: count('GET /api/tools') },
    {
      method: 'DELETE',
      headers,
      setupRequest: (request) => ({ ...request, path: `/api/agents/${shared()}/tools/read_file` }),
      onResponse: count('DELETE /api/agents/:id/tools/:toolId'),
    },
    {
      method: 'POST',
      path: '/api/agents',
      headers: json,
      setupRequest: (request) => {
        created += 1;
        return { ...request, body: JSON.stringify({ name: `load-${created}` }) };
      },
      onResponse: count('POST /api/agents'),
    },
    { method: 'GET', path: '/api/calls?limit=20', headers, onResponse: count('GET /api/calls') },
  ];
}

/** The statuses besides 2xx a mixed-load route may answer: the attach/detach races. */
const EXPECTED = new Map([
  ['POST /api/agents/:id/tools', new Set([409])],
  ['DELETE /api/agents/:id/tools/:toolId', new Set([404])],
]);

/**
 * The mixed load: a warm-up, the server's RSS, `MIXED_S` seconds of load (RSS sampled each second),
 * the RSS at the end.
 *
 * @param {import('./rest-servers.js').ToolshedProcess} server
 * @param {{ readAgent: string, sharedAgents: string[], headers: Record<string, string> }} setup
 */
async function mixedLoad(server, setup) {
  await runAutocannon({
    url: server.base,
    connections: CONNECTIONS,
    duration: MIXED_WARMUP_S,
    requests: mixedRequests(setup, new Map()),
  });
  const rssWarmBytes = server.rssBytes();
  /** @type {Map<string, Map<number, number>>} */
  const statuses = new Map();
  const samples = [];
  const sampler = setInterval(() => samples.push(server.rssBytes()), 1000);
  let result;
  try {
    result = await runAutocannon({
      url: server.base,
      connections: CONNECTIONS,
      duration: MIXED_S,
      requests: mixedRequests(setup, statuses),
    });
  } finally {
    clearInterval(sampler);
  }
  const rssEndBytes = server.rssBytes();
  /** @type {Record<string, Record<string, number>>} */
  const byRoute = {};
  const unexpected = [];
  let unexpectedCount = 0;
  let expectedNon2xx = 0;
  for (const [route, counts] of statuses) {
    byRoute[route] = Object.fromEntries([...counts].sort(([left], [right]) => left - right));
    for (const [status, count] of counts) {
      if (status >= 200 && status < 300) continue;
      if (EXPECTED.get(route)?.has(status)) {
        expectedNon2xx += count;
      } else {
        unexpectedCount += count;
        unexpected.push(`${route}: ${count}× ${status}`);
      }
    }
  }
  return {
    seconds: MIXED_S,
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    errors: unexpectedCount + result.errors + result.timeouts,
    errorDetails: [
      ...unexpected,
      ...(result.errors > 0 ? [`${result.errors} socket errors`] : []),
      ...(result.timeouts > 0 ? [`${result.timeouts} timeouts`] : []),
    ],
    expectedNon2xx,
    statusesByRoute: byRoute,
    rssWarmMB: rssWarmBytes / 2 ** 20,
    rssEndMB: rssEndBytes / 2 ** 20,
    rssMaxMB: Math.max(rssWarmBytes, rssEndBytes, ...samples) / 2 ** 20,
    rssGrowth: rssEndBytes / rssWarmBytes - 1,
  };
}

/**
 * Everything the REST cases measure on one dialect.
 *
 * @param {'sqlite' | 'postgres'} dialect
 * @returns {Promise<Record<string, unknown>>}
 */
export async function runRestBench(dialect) {
  const folder = mkdtempSync(join(tmpdir(), `toolshed-bench-rest-${dialect}-`));
  const postgres = dialect === 'postgres' ? await createPostgresDatabase() : undefined;
  /** @type {Array<() => Promise<void>>} */
  const cleanups = [];
  try {
    writeConfig(folder);
    const server = await startToolshed({
      databaseUrl: postgres?.url ?? join(folder, 'toolshed.db'),
      cwd: folder,
      config: join(folder, 'toolshed.yaml'),
    });
    cleanups.push(() => server.stop());
    const headers = { authorization: `Bearer ${server.token}`, 'x-workspace-id': server.workspaceId };

    const newAgent = async (/** @type {string} */ name) => {
      const created = await request(server.base, headers, 'POST', '/api/agents', { name });
      check(created.status === 201, `POST /api/agents answered ${created.status}: ${created.text}`);
      return /** @type {{ id: string }} */ (JSON.parse(created.text)).id;
    };
    // The agent read in the comparison: two attachments, one with config.
    const readAgent = await newAgent('reader');
    for (const [toolId, config] of [
      ['calculator', undefined],
      ['read_file', { max_bytes: 4096 }],
    ]) {
      const attached = await request(server.base, headers, 'POST', `/api/agents/${readAgent}/tools`, {
        tool_id: toolId,
        ...(config === undefined ? {} : { config }),
      });
      check(attached.status === 201, `attach ${toolId} answered ${attached.status}: ${attached.text}`);
    }
    const sharedAgents = [];
    for (let index = 0; index < SHARED_AGENTS; index++) sharedAgents.push(await newAgent(`shared-${index}`));

    const toolsPath = `/api/agents/${readAgent}/tools`;
    const callPath = `/api/tools/${TRIVIAL_TOOL}/call`;
    const callBody = JSON.stringify({ arguments: { a: 6, b: 36 } });
    const tools = await request(server.base, headers, 'GET', toolsPath);
    check(tools.status === 200, `GET ${toolsPath} answered ${tools.status}: ${tools.text}`);
    const call = await request(server.base, headers, 'POST', callPath, JSON.parse(callBody));
    const result = JSON.parse(call.text);
    check(call.status === 200 && result.status === 'success' && result.data === 42, `the call answered ${call.text}`);

    const bodiesFile = join(folder, 'bodies.json');
    writeFileSync(bodiesFile, JSON.stringify({ get: JSON.parse(tools.text), post: result }));
    const bare = await startBareFastify(bodiesFile);
    cleanups.push(() => bare.stop());
    const bareGet = await request(bare.base, {}, 'GET', '/bare');
    const barePost = await request(bare.base, {}, 'POST', '/bare', JSON.parse(callBody));
    check(bareGet.text === tools.text, 'the bare GET body differs from toolshed’s');

    const json = { ...headers, 'content-type': 'application/json' };
    const read = await comparePair({ url: `${server.base}${toolsPath}`, headers }, { url: `${bare.base}/bare` });
    const calls = await comparePair(
      { url: `${server.base}${callPath}`, method: 'POST', headers: json, body: callBody },
      { url: `${bare.base}/bare`, method: 'POST', headers: { 'content-type': 'application/json' }, body: callBody },
    );
    await bare.stop();
    const mixed = await mixedLoad(server, { readAgent, sharedAgents, headers });
    return {
      dialect,
      connections: CONNECTIONS,
      roundSeconds: ROUND_S,
      rounds: ROUNDS,
      readBodyBytes: Buffer.byteLength(tools.text),
      bareReadBodyBytes: Buffer.byteLength(bareGet.text),
      callBodyBytes: Buffer.byteLength(call.text),
      bareCallBodyBytes: Buffer.byteLength(barePost.text),
      read,
      call: calls,
      mixed,
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await postgres?.drop().catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  }
}
