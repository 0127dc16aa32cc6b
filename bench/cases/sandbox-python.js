// execute_python: pool start (cold, with the memory snapshot made; and warm, snapshot cached); with a
// fresh process per call (the default), the latency of a trivial call through registry.call when a
// process is ready, the calls/s when calls queue up, and the 5 s timeout; with processes reused for one
// tenant's calls, the warm latency and 100 concurrent short calls, for comparison.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolRegistry } from '../../dist/index.js';
import { createExecutePythonTool, createPythonRuntime, SandboxPool } from '../../dist/sandbox/index.js';
import { check, runCase } from '../lib/case.js';

const POOL_SIZE = 2;
const WARM_CALLS = 300;
const CONCURRENT_CALLS = 100;
/** Calls with a fresh process each (the default), spaced so each finds one ready. */
const FRESH_CALLS = 30;
/** Calls with a fresh process each, queued at once: how fast the pool replaces processes. */
const SUSTAINED_CALLS = 40;

/**
 * The value at quantile `q` (0..1) of `values`.
 *
 * @param {number[]} values
 * @param {number} q
 */
function quantile(values, q) {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** @param {number} value */
const round2 = (value) => Math.round(value * 100) / 100;

/**
 * Milliseconds until a fresh pool over `snapshotDir` has `POOL_SIZE` sandboxes ready.
 *
 * @param {string} snapshotDir
 */
async function timeStart(snapshotDir) {
  const pool = new SandboxPool({ runtime: createPythonRuntime({ snapshotDir }), size: POOL_SIZE });
  const start = performance.now();
  await pool.start();
  const readyMs = performance.now() - start;
  return { pool, readyMs };
}

await runCase('sandbox-python', async () => {
  const snapshotDir = mkdtempSync(join(tmpdir(), 'toolshed-bench-snapshot-'));
  try {
    // Cold: no snapshot yet, so the pool makes one first (what the very first start on a host costs).
    const cold = await timeStart(snapshotDir);
    await cold.pool.close();
    // Warm cache: the snapshot exists (every later start, also after a restart of the host process).
    const { pool, readyMs } = await timeStart(snapshotDir);
    // The same runtime with processes reused for one tenant's calls (what the pool did for every
    // caller before each call got a fresh process), for comparison.
    const reused = new SandboxPool({
      runtime: createPythonRuntime({ snapshotDir }),
      size: POOL_SIZE,
      maxRunsPerSandbox: 100,
    });
    try {
      const registry = new ToolRegistry();
      registry.register(createExecutePythonTool({ sandbox: pool }));
      const call = (/** @type {string} */ code) => registry.call('execute_python', { code });
      const reusedRegistry = new ToolRegistry();
      reusedRegistry.register(createExecutePythonTool({ sandbox: reused }));
      const callReused = (/** @type {string} */ code) => reusedRegistry.call('execute_python', { code });
      const untilWarm = async (/** @type {SandboxPool} */ target) => {
        while (target.stats().idle < POOL_SIZE) await new Promise((resolve) => setTimeout(resolve, 5));
      };

      const probe = await call('1 + 1');
      check(probe.status === 'success' && probe.data.result === 2, `a trivial call failed: ${JSON.stringify(probe)}`);
      // A fresh process per call: the latency of a call that finds one ready (calls spaced by the time
      // a replacement takes), then how fast replacements come when calls queue up.
      const latencies = [];
      for (let index = 0; index < FRESH_CALLS; index++) {
        await untilWarm(pool);
        const start = performance.now();
        await call('1 + 1');
        latencies.push(performance.now() - start);
      }
      await untilWarm(pool);
      const sustainedStart = performance.now();
      const sustained = await Promise.all(
        Array.from({ length: SUSTAINED_CALLS }, (_, index) => call(`sum(range(${1000 + index}))`)),
      );
      const sustainedMs = performance.now() - sustainedStart;
      check(
        sustained.every((result) => result.status === 'success'),
        'a queued call with a fresh process failed',
      );

      await untilWarm(pool);
      const timeoutStart = performance.now();
      const timedOut = await call('while True:\n    pass');
      const timeoutAnsweredMs = performance.now() - timeoutStart;
      check(timedOut.status === 'timeout', `the loop was not stopped: ${JSON.stringify(timedOut)}`);

      for (let index = 0; index < 30; index++) await callReused('1 + 1');
      const reusedLatencies = [];
      for (let index = 0; index < WARM_CALLS; index++) {
        const start = performance.now();
        await callReused('1 + 1');
        reusedLatencies.push(performance.now() - start);
      }
      await untilWarm(reused);
      const burstStart = performance.now();
      const burst = await Promise.all(
        Array.from({ length: CONCURRENT_CALLS }, (_, index) => callReused(`sum(range(${1000 + index}))`)),
      );
      const burstMs = performance.now() - burstStart;
      check(
        burst.every((result) => result.status === 'success'),
        'a concurrent call failed',
      );

      return {
        poolSize: POOL_SIZE,
        cpus: availableParallelism(),
        poolColdReadyMs: Math.round(cold.readyMs),
        poolReadyMs: Math.round(readyMs),
        warmP50Ms: round2(quantile(latencies, 0.5)),
        warmP90Ms: round2(quantile(latencies, 0.9)),
        warmP99Ms: round2(quantile(latencies, 0.99)),
        sustainedCalls: SUSTAINED_CALLS,
        sustainedTotalMs: Math.round(sustainedMs),
        sustainedCallsPerSecond: round2((SUSTAINED_CALLS / sustainedMs) * 1000),
        timeoutMs: 5_000,
        timeoutAnsweredMs: Math.round(timeoutAnsweredMs),
        reusedWarmP50Ms: round2(quantile(reusedLatencies, 0.5)),
        reusedWarmP90Ms: round2(quantile(reusedLatencies, 0.9)),
        concurrentCalls: CONCURRENT_CALLS,
        concurrentTotalMs: Math.round(burstMs),
        concurrentCallsPerSecond: Math.round((CONCURRENT_CALLS / burstMs) * 1000),
      };
    } finally {
      await Promise.all([pool.close(), reused.close()]);
    }
  } finally {
    rmSync(snapshotDir, { recursive: true, force: true });
  }
});
