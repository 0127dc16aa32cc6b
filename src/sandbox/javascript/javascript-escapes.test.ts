import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Expectation,
  expectOutcome,
  startLoopbackServer,
  untilAllIdle,
  watchEventLoop,
} from '../../../test/sandbox/support.js';
import { SandboxPool } from '../sandbox-pool.js';
import { createJavascriptRuntime } from './javascript-runtime.js';

// The JavaScript escape catalogue: QuickJS offers no host object at all, so most attempts find
// nothing to reach; the rest are resource attacks stopped by QuickJS's own limits (memory, stack,
// deadline interrupt) inside a child process. Each must be contained with the error shown while the
// host keeps serving, and the next call must succeed.

const TIMEOUT_MS = 1_500;

interface Attempt {
  name: string;
  code: (port: number) => string;
  expect: Expectation;
  long?: boolean;
  /** QuickJS stops it by itself: the sandbox is kept, not replaced. */
  keepsSandbox?: boolean;
}

const HOST_NAMES = [
  'process',
  'require',
  'module',
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'WebAssembly',
  'setTimeout',
  'setInterval',
  'std',
  'os',
  'Deno',
  'Bun',
  'Buffer',
  'global',
];

const ATTEMPTS: Attempt[] = [
  {
    name: 'require("child_process")',
    code: () => 'require("child_process").execSync("id")',
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'ReferenceError',
      message: "JavaScript threw ReferenceError: 'require' is not defined (line 1).",
    },
  },
  {
    name: 'import("fs")',
    code: () => 'import("fs").then((fs) => fs.readFileSync("/etc/passwd", "utf8"))',
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'ReferenceError',
      message: "JavaScript threw ReferenceError: could not load module 'fs'.",
    },
  },
  {
    name: 'look for host objects on globalThis',
    code: () => `${JSON.stringify(HOST_NAMES)}.filter((name) => name in globalThis)`,
    expect: { ok: true, result: [] },
  },
  {
    name: 'reach process through the Function constructor',
    code: () => '(function () {}).constructor("return typeof process + typeof require")()',
    expect: { ok: true, result: 'undefinedundefined' },
  },
  {
    name: 'fetch from a loopback server on the host',
    code: (port) => `fetch("http://127.0.0.1:${port}/")`,
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'ReferenceError',
      message: "JavaScript threw ReferenceError: 'fetch' is not defined (line 1).",
    },
  },
  {
    name: 'open a WebSocket to the loopback server',
    code: (port) => `new WebSocket("ws://127.0.0.1:${port}/")`,
    expect: { ok: false, reason: 'exception', errorType: 'ReferenceError' },
  },
  {
    name: 'compile WebAssembly',
    code: () => 'new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))',
    expect: { ok: false, reason: 'exception', errorType: 'ReferenceError' },
  },
  {
    name: 'leave a prototype change for the next call',
    code: () => 'Object.prototype.polluted = "yes"; ({}).polluted',
    expect: { ok: true, result: 'yes' },
  },
  {
    name: "find the previous call's prototype change",
    code: () => '({}).polluted',
    expect: { ok: true, result: undefined },
  },
  {
    name: 'an infinite loop',
    code: () => 'while (true) {}',
    expect: {
      ok: false,
      reason: 'timeout',
      message: 'JavaScript code ran longer than the 1.5 s time limit and was stopped.',
    },
    long: true,
    keepsSandbox: true,
  },
  {
    name: 'an infinite loop that catches every error',
    code: () => 'while (true) { try { for (;;) {} } catch (error) {} }',
    expect: { ok: false, reason: 'timeout' },
    long: true,
    keepsSandbox: true,
  },
  {
    name: 'an infinite loop inside a getter that console.log reads',
    code: () => 'console.log({ get trap() { for (;;) {} } })',
    expect: { ok: false, reason: 'timeout' },
    long: true,
    keepsSandbox: true,
  },
  {
    name: 'a promise chain that never ends',
    code: () => 'const spin = () => { Promise.resolve().then(spin); }; spin(); new Promise(() => {})',
    expect: { ok: false, reason: 'timeout' },
    long: true,
  },
  {
    name: 'an ArrayBuffer of 1 GB',
    code: () => 'new ArrayBuffer(2 ** 30).byteLength',
    expect: { ok: false, reason: 'memory' },
  },
  {
    name: 'an array that grows forever',
    code: () => 'const items = []; while (true) items.push(new Array(1000).fill(1));',
    expect: { ok: false, reason: 'memory' },
    long: true,
  },
  {
    name: 'string doubling',
    code: () => 'let s = "x"; while (true) { s += s; s.charCodeAt(s.length - 1); }',
    expect: { ok: false, reason: 'memory' },
    long: true,
  },
  {
    name: 'deep recursion',
    code: () => 'const f = (n) => f(n + 1) + 1; f(0)',
    expect: { ok: false, reason: 'exception', errorType: 'InternalError', message: /stack overflow/ },
  },
  {
    name: '10 MB of output',
    code: () => 'console.log("A".repeat(10_000_000))',
    expect: { ok: true, truncated: true, stdout: /characters of output truncated/ },
  },
  {
    name: 'a huge result value',
    code: () => '"B".repeat(1_000_000)',
    expect: { ok: true, truncated: true },
  },
  {
    name: 'NUL characters in output',
    code: () => 'console.log("a\\u0000b"); 1',
    expect: { ok: true, stdout: 'a\uFFFDb\n', result: 1 },
  },
];

describe('the JavaScript escape catalogue', () => {
  let pool: SandboxPool;
  let server: Awaited<ReturnType<typeof startLoopbackServer>>;

  beforeAll(async () => {
    server = await startLoopbackServer();
    pool = new SandboxPool({
      runtime: createJavascriptRuntime(),
      size: 2,
      timeoutMs: TIMEOUT_MS,
      maxOutputChars: 5_000,
    });
    await pool.start();
  });

  afterAll(async () => {
    await pool.close();
    await server.close();
  });

  it('has at least 10 attempts', () => {
    expect(ATTEMPTS.length).toBeGreaterThanOrEqual(10);
  });

  for (const attempt of ATTEMPTS) {
    it(`contains: ${attempt.name}`, async () => {
      if (attempt.long === true) await untilAllIdle(pool);
      const recycled = pool.stats().recycled;
      const loop = watchEventLoop();
      const attack = pool.run(attempt.code(server.port));
      if (attempt.long === true) {
        const startedAt = performance.now();
        expectOutcome(await pool.run('[1, 2, 3].length'), { ok: true, result: 3 });
        expect(performance.now() - startedAt).toBeLessThan(1_000);
      }
      const outcome = await attack;
      const { longestGapMs } = loop.stop();
      expectOutcome(outcome, attempt.expect);
      expect(longestGapMs).toBeLessThan(250);
      if (attempt.keepsSandbox === true) expect(pool.stats().recycled).toBe(recycled);
      expectOutcome(await pool.run('6 * 7'), { ok: true, result: 42 });
    });
  }

  it('the loopback server received no connection and no byte', () => {
    expect(server.connections()).toBe(0);
    expect(server.bytes()).toBe(0);
  });
});
