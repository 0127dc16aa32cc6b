/**
 * The processes of the REST cases: `toolshed serve` from dist/ and the bare Fastify baseline, each a
 * child process (so its RSS is its own), a throwaway PostgreSQL database, and autocannon runs.
 */

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';

const CLI = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const BARE_SERVER = fileURLToPath(new URL('./bare-fastify-server.js', import.meta.url));
const BARE_MCP_SERVER = fileURLToPath(new URL('./bare-mcp-http-server.js', import.meta.url));

/**
 * @typedef {{
 *   base: string,
 *   pid: number,
 *   rssBytes(): number,
 *   stop(): Promise<void>,
 * }} ServerProcess
 * @typedef {ServerProcess & { token: string, workspaceId: string }} ToolshedProcess
 */

/**
 * Resident set size of a process, from /proc (Linux).
 *
 * @param {number} pid
 * @returns {number} bytes
 */
export function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kilobytes === undefined) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kilobytes) * 1024;
}

/**
 * Spawn `node ...args` and wait until its output matches `ready` (rejects when it exits first or
 * after 60 s).
 *
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, cwd?: string, ready: RegExp, stream: 'stdout' | 'stderr' }} options
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, match: RegExpMatchArray, output: () => string }>}
 */
function spawnUntil(args, { env, cwd, ready, stream }) {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${args.join(' ')} was not ready after 60 s: ${text.trim()}`));
    }, 60_000);
    const onData = (/** @type {Buffer} */ chunk) => {
      text += chunk.toString('utf8');
      const match = ready.exec(text);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ child, match, output: () => text });
      }
    };
    // Both streams are always read, so a chatty child never blocks on a full pipe.
    child.stdout.on('data', stream === 'stdout' ? onData : () => {});
    child.stderr.on('data', stream === 'stderr' ? onData : (chunk) => (text += chunk.toString('utf8')));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`node ${args.join(' ')} exited (${code ?? signal}) before it was ready: ${text.trim()}`));
    });
  });
}

/**
 * Stop a child with SIGTERM (SIGKILL after 10 s) and wait for it.
 *
 * @param {import('node:child_process').ChildProcess} child
 * @returns {Promise<void>}
 */
function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Start `toolshed serve --port 0 [--config FILE]` from dist/ on `databaseUrl` (a new database: it
 * creates workspace `default` and prints its token once, which this reads).
 *
 * @param {{ databaseUrl: string, cwd: string, config?: string }} options
 * @returns {Promise<ToolshedProcess>}
 */
export async function startToolshed({ databaseUrl, cwd, config }) {
  const args = [CLI, 'serve', '--port', '0', ...(config === undefined ? [] : ['--config', config])];
  const { child, output } = await spawnUntil(args, {
    cwd,
    env: { TOOLSHED_DATABASE_URL: databaseUrl },
    ready: /REST API at (http:\/\/127\.0\.0\.1:\d+)\/api\n/,
    stream: 'stderr',
  });
  const text = output();
  const token = /shown once\): (\S+)/.exec(text)?.[1];
  const base = /REST API at (http:\/\/127\.0\.0\.1:\d+)\/api/.exec(text)?.[1];
  if (token === undefined || base === undefined || child.pid === undefined) {
    child.kill('SIGKILL');
    throw new Error(`toolshed serve printed no token or address: ${text.trim()}`);
  }
  const pid = child.pid;
  return { base, pid, token, workspaceId: 'default', rssBytes: () => rssOf(pid), stop: () => stopChild(child) };
}

/**
 * Start the bare Fastify baseline (`bench/lib/bare-fastify-server.js`) answering `GET /bare` with
 * the JSON in `bodiesFile`'s `get` and `POST /bare` with its `post`.
 *
 * @param {string} bodiesFile
 * @returns {Promise<ServerProcess>}
 */
export function startBareFastify(bodiesFile) {
  return startBareServer([BARE_SERVER, bodiesFile], 'the bare Fastify server');
}

/**
 * Spawn a baseline server (`node ...args`) that prints `listening PORT` on stdout once bound.
 *
 * @param {string[]} args
 * @param {string} what names it in errors
 * @returns {Promise<ServerProcess>}
 */
async function startBareServer(args, what) {
  const { child, match } = await spawnUntil(args, { ready: /listening (\d+)\n/, stream: 'stdout' });
  if (child.pid === undefined) throw new Error(`${what} has no pid`);
  const pid = child.pid;
  return {
    base: `http://127.0.0.1:${match[1]}`,
    pid,
    rssBytes: () => rssOf(pid),
    stop: () => stopChild(child),
  };
}

/**
 * Start the bare MCP baseline (`bench/lib/bare-mcp-http-server.js`): an SDK `McpServer` over
 * Streamable HTTP at `POST /mcp`.
 *
 * @returns {Promise<ServerProcess>}
 */
export function startBareMcpHttp() {
  return startBareServer([BARE_MCP_SERVER], 'the bare MCP server');
}

/** Admin URLs tried for the throwaway database (`TOOLSHED_BENCH_POSTGRES_URL` overrides). */
const POSTGRES_ADMIN_URLS = process.env.TOOLSHED_BENCH_POSTGRES_URL
  ? [process.env.TOOLSHED_BENCH_POSTGRES_URL]
  : ['postgres://postgres@127.0.0.1:5432/postgres', 'postgres://root@127.0.0.1:5432/postgres'];

/**
 * Create `toolshed_bench_<random>` on the PostgreSQL server at 127.0.0.1:5432; `drop()` removes it.
 *
 * @returns {Promise<{ url: string, drop(): Promise<void> }>}
 */
export async function createPostgresDatabase() {
  const failures = [];
  for (const adminUrl of POSTGRES_ADMIN_URLS) {
    const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
    try {
      await admin.connect();
      const name = `toolshed_bench_${randomBytes(6).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      return {
        url: url.toString(),
        async drop() {
          try {
            await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          } finally {
            await admin.end();
          }
        },
      };
    } catch (error) {
      await admin.end().catch(() => undefined);
      failures.push(`${adminUrl}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`no PostgreSQL on 127.0.0.1:5432 (${failures.join('; ')})`);
}

/**
 * Run autocannon in this process and resolve with its result.
 *
 * @param {import('autocannon').Options} options
 * @returns {Promise<import('autocannon').Result>}
 */
export function runAutocannon(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}
