import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  JAVASCRIPT_ESCAPES as ATTEMPTS,
  JAVASCRIPT_ESCAPE_TIMEOUT_MS as TIMEOUT_MS,
} from '../../../test/sandbox/escapes.cases.js';
import {
  expectOutcome,
  HOST_STALL_LIMIT_MS,
  startLoopbackServer,
  untilAllIdle,
  watchEventLoop,
} from '../../../test/sandbox/support.js';
import { SandboxPool } from '../sandbox-pool.js';
import { createJavascriptRuntime } from './javascript-runtime.js';

// The JavaScript escape catalogue: QuickJS offers no host object at all, so most attempts find
// nothing to reach; the rest are resource attacks stopped by QuickJS's own limits (memory, stack,
// deadline interrupt) inside a child process. Each must be contained with the error shown while the
// host keeps serving, and the next call must succeed. The catalogue is shared with the service's code
// tools (test/sandbox/escapes.cases.ts).

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
      expect(longestGapMs).toBeLessThan(HOST_STALL_LIMIT_MS);
      if (attempt.keepsSandbox === true) expect(pool.stats().recycled).toBe(recycled);
      expectOutcome(await pool.run('6 * 7'), { ok: true, result: 42 });
    });
  }

  it('the loopback server received no connection and no byte', () => {
    expect(server.connections()).toBe(0);
    expect(server.bytes()).toBe(0);
  });
});
