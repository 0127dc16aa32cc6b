// execute_javascript: pool start, warm latency of a trivial call through registry.call, the 5 s
// timeout, and 100 concurrent short calls.
import { availableParallelism } from 'node:os';
import { ToolRegistry } from '../../dist/index.js';
import { createExecuteJavascriptTool, createJavascriptRuntime, SandboxPool } from '../../dist/sandbox/index.js';
import { check, runCase } from '../lib/case.js';

const POOL_SIZE = 2;
const WARM_CALLS = 1000;
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
const round3 = (value) => Math.round(value * 1000) / 1000;

await runCase('sandbox-javascript', async () => {
  const pool = new SandboxPool({ runtime: createJavascriptRuntime(), size: POOL_SIZE });
  try {
    const readyStart = performance.now();
    await pool.start();
    const readyMs = performance.now() - readyStart;
    const registry = new ToolRegistry();
    registry.register(createExecuteJavascriptTool({ sandbox: pool }));
    const call = (/** @type {string} */ code) => registry.call('execute_javascript', { code });

    const probe = await call('1 + 1');
    check(probe.status === 'success' && probe.data.result === 2, `a trivial call failed: ${JSON.stringify(probe)}`);
    for (let index = 0; index < 100; index++) await call('1 + 1');
    const latencies = [];
    for (let index = 0; index < WARM_CALLS; index++) {
      const start = performance.now();
      await call('1 + 1');
      latencies.push(performance.now() - start);
    }

    const timeoutStart = performance.now();
    const timedOut = await call('for (;;) {}');
    const timeoutAnsweredMs = performance.now() - timeoutStart;
    check(timedOut.status === 'timeout', `the loop was not stopped: ${JSON.stringify(timedOut)}`);

    const burstStart = performance.now();
    const burst = await Promise.all(
      Array.from({ length: CONCURRENT_CALLS }, (_, index) =>
        call(`let s = 0; for (let i = 0; i < ${1000 + index}; i++) s += i; s`),
      ),
    );
    const burstMs = performance.now() - burstStart;
    check(
      burst.every((result) => result.status === 'success'),
      'a concurrent call failed',
    );

    return {
      poolSize: POOL_SIZE,
      cpus: availableParallelism(),
      poolReadyMs: Math.round(readyMs),
      warmP50Ms: round3(quantile(latencies, 0.5)),
      warmP90Ms: round3(quantile(latencies, 0.9)),
      warmP99Ms: round3(quantile(latencies, 0.99)),
      timeoutMs: 5_000,
      timeoutAnsweredMs: Math.round(timeoutAnsweredMs),
      concurrentCalls: CONCURRENT_CALLS,
      concurrentTotalMs: Math.round(burstMs),
      concurrentCallsPerSecond: Math.round((CONCURRENT_CALLS / burstMs) * 1000),
    };
  } finally {
    await pool.close();
  }
});
