import { createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { SandboxFailureReason, SandboxRunResult } from '../../src/sandbox/sandbox.js';
import type { SandboxPool } from '../../src/sandbox/sandbox-pool.js';
import type { SandboxRuntime } from '../../src/sandbox/sandbox-runtime.js';

/** What a test expects of a run: success with these fields, or a failure of this kind. */
export type Expectation =
  | {
      ok: true;
      stdout?: string | RegExp;
      stderr?: string | RegExp;
      /** The exact result; `undefined` means "no result at all". */
      result?: unknown;
      truncated?: boolean;
    }
  | {
      ok: false;
      reason: SandboxFailureReason;
      errorType?: string;
      /** The exact message, or a pattern it must match. */
      message?: string | RegExp;
      line?: number;
      stdout?: string | RegExp;
    };

/** Assert `outcome` meets `expected`, showing the whole outcome when it does not. */
export function expectOutcome(outcome: SandboxRunResult, expected: Expectation): void {
  const shown = JSON.stringify({ ...outcome, stdout: outcome.stdout.slice(0, 300) });
  expect(outcome.ok, shown).toBe(expected.ok);
  const match = (actual: string, wanted: string | RegExp | undefined, field: string) => {
    if (wanted === undefined) return;
    if (typeof wanted === 'string') expect(actual, `${field} of ${shown}`).toBe(wanted);
    else expect(actual, `${field} of ${shown}`).toMatch(wanted);
  };
  if (expected.ok && outcome.ok) {
    match(outcome.stdout, expected.stdout, 'stdout');
    match(outcome.stderr, expected.stderr, 'stderr');
    if ('result' in expected) {
      if (expected.result === undefined) expect(Object.hasOwn(outcome, 'result'), shown).toBe(false);
      else expect(outcome.result, shown).toEqual(expected.result);
    }
    if (expected.truncated !== undefined) expect(outcome.truncated, shown).toBe(expected.truncated);
    return;
  }
  if (!expected.ok && !outcome.ok) {
    expect(outcome.reason, shown).toBe(expected.reason);
    if (expected.errorType !== undefined) expect(outcome.errorType, shown).toBe(expected.errorType);
    match(outcome.message, expected.message, 'message');
    if (expected.line !== undefined) expect(outcome.line, shown).toBe(expected.line);
    match(outcome.stdout, expected.stdout, 'stdout');
  }
}

/** A TCP server on the host's loopback that counts connections and bytes: a sandbox must reach neither. */
export async function startLoopbackServer(): Promise<{
  port: number;
  connections: () => number;
  bytes: () => number;
  close: () => Promise<void>;
}> {
  let connections = 0;
  let bytes = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('data', (chunk) => {
      bytes += chunk.length;
    });
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('The loopback server has no port.');
  return {
    port: address.port,
    connections: () => connections,
    bytes: () => bytes,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The longest stall of the host's event loop that a sandboxed call may cause. A host blocked by a
 * sandboxed attack stalls for the attack's whole time limit (1.5 s or more); a host that is merely
 * loaded (two test files on two cores, each with its sandbox processes) showed stalls of up to 479 ms.
 */
export const HOST_STALL_LIMIT_MS = 1_000;

/**
 * Watches the host's event loop: a 10 ms interval counts ticks and the longest gap between them. A
 * sandbox attack must not stall the host.
 */
export function watchEventLoop(): { stop: () => { ticks: number; longestGapMs: number } } {
  let ticks = 0;
  let last = performance.now();
  let longestGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
    ticks += 1;
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      return { ticks, longestGapMs };
    },
  };
}

/** Wait until every sandbox of the pool is ready (replacements included), at most `limitMs`. */
export async function untilAllIdle(pool: SandboxPool, limitMs = 20_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (pool.stats().idle < pool.size) {
    if (Date.now() > deadline)
      throw new Error(`The pool did not get back to ${pool.size} idle sandboxes: ${JSON.stringify(pool.stats())}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const SOURCE_SANDBOX = fileURLToPath(new URL('../../src/sandbox/', import.meta.url));

/**
 * A runtime whose child (fixtures/fixture-child.mjs) takes commands instead of code (`echo x`,
 * `sleep 200`, `crash`, `flood 1000000`, ...), to drive the pool's behaviour on purpose.
 */
export function createFixtureRuntime(config: Record<string, unknown> = {}): SandboxRuntime {
  return {
    language: 'javascript',
    displayName: 'Fixture',
    childScript: fileURLToPath(new URL('./fixtures/fixture-child.mjs', import.meta.url)),
    nodeFlags: ['--max-old-space-size=64'],
    dataLimitBytes: 512 * 2 ** 20,
    killGraceMs: 0,
    readPaths: () => [SOURCE_SANDBOX],
    childConfig: () => ({ ...config }),
  };
}

/** Bypasses the import allowlist through a standard-library function's globals (the real builtins). */
export const REAL_IMPORT = "imp = __import__('json').dumps.__globals__['__builtins__']['__import__']\n";

/** The message of a refused import under the default allowlist. */
export function notAllowed(module: string): string {
  return `Python raised ImportError: module '${module}' is not allowed in the sandbox; allowed modules: datetime, json, math, re, typing (line 1).`;
}
