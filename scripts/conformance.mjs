#!/usr/bin/env node
// npm run conformance — the official MCP conformance suite (@modelcontextprotocol/conformance,
// `server --suite all`) against `toolshed serve`: its /mcp and its per-agent /mcp/agents/conformance,
// serving the fixture tools, prompts and resources of test/mcp/conformance/serve-fixture/.
//
// The suite's client cannot send headers, and every /mcp request needs an API token; so the suite
// talks to a loopback proxy that adds `Authorization: Bearer <token>` (the token `serve` prints when
// it creates the workspace of a fresh database) and streams everything else through unchanged.
//
//   npm run conformance              prints each endpoint's scenarios, then "N passed, M failed"
//   npm run conformance -- --json    the same as one JSON object on stdout
//
// Exit code 0 when every scenario of both endpoints passed, 1 otherwise. Needs dist/ (npm run build).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const suite = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const register = join(root, 'test/mcp/conformance/register.mjs');
const fixture = join(root, 'test/mcp/conformance/serve-fixture/toolshed.yaml');
const AGENT = 'conformance';
const SUITE_TIMEOUT_MS = 240_000;

const json = process.argv.includes('--json');
const scratch = mkdtempSync(join(tmpdir(), 'toolshed-conformance-'));
let serve;
let proxy;
try {
  serve = await startServe();
  proxy = await startProxy(serve.port, serve.token);
  const endpoints = [
    { name: '/mcp', url: `http://127.0.0.1:${proxy.port}/mcp` },
    { name: `/mcp/agents/${AGENT}`, url: `http://127.0.0.1:${proxy.port}/mcp/agents/${AGENT}` },
  ];
  const results = [];
  // One endpoint after the other: the suite runs its scenarios in parallel already.
  for (const endpoint of endpoints) results.push({ ...endpoint, ...(await runSuite(endpoint.url)) });
  const passed = results.reduce((sum, result) => sum + result.passed.length, 0);
  const failed = results.reduce((sum, result) => sum + result.failed.length, 0);
  if (json) {
    process.stdout.write(`${JSON.stringify({ passed, failed, endpoints: results.map(({ output, ...rest }) => rest) })}\n`);
  } else {
    for (const result of results) {
      process.stdout.write(`${result.name}: ${result.passed.length} passed, ${result.failed.length} failed\n`);
      for (const name of result.failed) process.stdout.write(`  failed: ${name}\n`);
      if (result.failed.length > 0 || result.passed.length === 0) process.stdout.write(`${result.output}\n`);
    }
    process.stdout.write(`${passed} passed, ${failed} failed\n`);
  }
  process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
} catch (error) {
  process.stderr.write(`conformance: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  proxy?.server.close();
  proxy?.server.closeAllConnections();
  if (serve !== undefined) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  rmSync(scratch, { recursive: true, force: true });
}

/** `toolshed serve` on a fresh SQLite database and a free port; resolves once it listens. */
function startServe() {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      // --mcp-poll-after: the stream of test_reconnection (server-sse-polling) is closed mid-call.
      [
        join(root, 'bin/toolshed.js'),
        'serve',
        '--config',
        fixture,
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--mcp-poll-after',
        '500ms',
      ],
      {
        cwd: scratch,
        env: { ...process.env, TOOLSHED_DATABASE_URL: join(scratch, 'toolshed.db'), NO_COLOR: '1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const exited = new Promise((done) => child.once('exit', done));
    let stderr = '';
    let token;
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`toolshed serve did not start within 60 s:\n${stderr}`));
    }, 60_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString();
      token ??= /its API token \(shown once\): (tsk_\S+)/.exec(stderr)?.[1];
      const listening = /MCP at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (token !== undefined && listening !== null) {
        clearTimeout(timer);
        resolve({ child, exited, token, port: Number(listening[1]) });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`toolshed serve exited with ${code} before it listened:\n${stderr}`));
    });
  });
}

/** A loopback HTTP proxy to 127.0.0.1:`port` that adds the bearer token to every request. */
function startProxy(port, token) {
  const server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers, authorization: `Bearer ${token}`, host: `127.0.0.1:${port}` };
    const forwarded = httpRequest(
      { host: '127.0.0.1', port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        // Server-sent events must reach the suite as they come, not when the stream ends.
        outgoing.flushHeaders();
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`proxy: ${error.message}`);
    });
    outgoing.on('close', () => forwarded.destroy());
    incoming.pipe(forwarded);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port }));
  });
}

/** The suite's `server --suite all` against `url`: the scenarios that passed and those that failed. */
function runSuite(url) {
  return new Promise((resolve, reject) => {
    // The suite imports `globSync` from fs (Node ≥ 22); register.mjs supplies it on Node 20.
    const child = spawn(process.execPath, ['--import', register, suite, 'server', '--url', url, '--suite', 'all'], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), SUITE_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping ANSI colour codes
      const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
      const passed = [];
      const failed = [];
      for (const match of plain.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gm)) {
        (Number(match[3]) > 0 ? failed : passed).push(match[1]);
      }
      resolve({ passed, failed, output: plain });
    });
  });
}
