import { existsSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PYTHON_ESCAPES as ATTEMPTS,
  PYTHON_ESCAPE_HOST_FILE as HOST_FILE,
  PYTHON_ESCAPE_POOL_TIMEOUT_MS as POOL_TIMEOUT_MS,
  PYTHON_ESCAPE_TIMEOUT_MS as TIMEOUT_MS,
} from '../../../test/sandbox/escapes.cases.js';
import {
  expectOutcome,
  HOST_STALL_LIMIT_MS,
  startLoopbackServer,
  untilAllIdle,
  watchEventLoop,
} from '../../../test/sandbox/support.js';
import { SandboxPool } from '../sandbox-pool.js';
import { createPythonRuntime } from './python-runtime.js';

// The Python escape catalogue: each attempt must be contained with the error shown, the host must
// keep serving (a trivial call on another sandbox answers, the event loop keeps ticking), and the
// next call must succeed. The first group meets the friendly first line of defence (the import
// allowlist); every later one starts by bypassing it, so the process boundary is what holds.
// The catalogue is shared with the service's code tools (test/sandbox/escapes.cases.ts).

describe('the Python escape catalogue', () => {
  let pool: SandboxPool;
  let server: Awaited<ReturnType<typeof startLoopbackServer>>;

  beforeAll(async () => {
    rmSync(HOST_FILE, { force: true });
    server = await startLoopbackServer();
    pool = new SandboxPool({
      runtime: createPythonRuntime(),
      size: 3,
      timeoutMs: POOL_TIMEOUT_MS,
      maxOutputChars: 5_000,
    });
    await pool.start();
  });

  afterAll(async () => {
    await pool.close();
    await server.close();
    rmSync(HOST_FILE, { force: true });
  });

  it('has at least 30 attempts', () => {
    expect(ATTEMPTS.length).toBeGreaterThanOrEqual(30);
  });

  for (const attempt of ATTEMPTS) {
    it(`contains: ${attempt.name}`, async () => {
      if (attempt.long === true) await untilAllIdle(pool);
      const loop = watchEventLoop();
      const attack = pool.run(attempt.code(server.port), { timeoutMs: attempt.timeoutMs ?? TIMEOUT_MS });
      if (attempt.long === true) {
        // While the attack runs, another sandbox answers a trivial call.
        const startedAt = performance.now();
        const bystander = await pool.run('sum(range(10))');
        expectOutcome(bystander, { ok: true, result: 45 });
        expect(performance.now() - startedAt).toBeLessThan(1_500);
      }
      const outcome = await attack;
      const { longestGapMs } = loop.stop();
      expectOutcome(outcome, attempt.expect);
      expect(longestGapMs).toBeLessThan(HOST_STALL_LIMIT_MS);
      // Whatever happened, the next call succeeds (on a replacement sandbox if need be).
      expectOutcome(await pool.run('6 * 7'), { ok: true, result: 42 });
    });
  }

  it('the loopback server received no connection and no byte', () => {
    expect(server.connections()).toBe(0);
    expect(server.bytes()).toBe(0);
  });

  it('no file was written on the host', () => {
    expect(existsSync(HOST_FILE)).toBe(false);
  });

  it('replaced the sandboxes that crashed, timed out or ran out of memory', () => {
    expect(pool.stats().recycled).toBeGreaterThanOrEqual(8);
  });
});
