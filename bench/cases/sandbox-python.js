// execute_python: pool start (cold, with the memory snapshot made; and warm, snapshot cached), warm
// latency of a trivial call through registry.call, the 5 s timeout, and 100 concurrent short calls.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolRegistry } from '../../dist/index.js';
import { createExecutePythonTool, createPythonRuntime, SandboxPool } from '../../dist/sandbox/index.js';
import { check, runCase } from '../lib/case.js';

const POOL_SIZE = 2;
const WARM_CALLS = 300;
const CONCURRENT_CALLS = 100;

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
    try {
      const registry = new ToolRegistry();
      registry.register(createExecutePythonTool({ sandbox: pool }));
      const call = (/** @type {string} */ code) => registry.call('execute_python', { code });

      const probe = await call('1 + 1');
      check(probe.status === 'success' && probe.data.result === 2, `a trivial call failed: ${JSON.stringify(probe)}`);
      for (let index = 0; index < 30; index++) await call('1 + 1');
      const latencies = [];
      for (let index = 0; index < WARM_CALLS; index++) {
        const start = performance.now();
        await call('1 + 1');
        latencies.push(performance.now() - start);
      }

      const timeoutStart = performance.now();
      const timedOut = await call('while True:\n    pass');
      const timeoutAnsweredMs = performance.now() - timeoutStart;
      check(timedOut.status === 'timeout', `the loop was not stopped: ${JSON.stringify(timedOut)}`);
      // Let the killed sandbox's replacement come up before the throughput run.
      while (pool.stats().idle < POOL_SIZE) await new Promise((resolve) => setTimeout(resolve, 20));

      const burstStart = performance.now();
      const burst = await Promise.all(
        Array.from({ length: CONCURRENT_CALLS }, (_, index) => call(`sum(range(${1000 + index}))`)),
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
        timeoutMs: 5_000,
        timeoutAnsweredMs: Math.round(timeoutAnsweredMs),
        concurrentCalls: CONCURRENT_CALLS,
        concurrentTotalMs: Math.round(burstMs),
        concurrentCallsPerSecond: Math.round((CONCURRENT_CALLS / burstMs) * 1000),
      };
    } finally {
      await pool.close();
    }
  } finally {
    rmSync(snapshotDir, { recursive: true, force: true });
  }
});
