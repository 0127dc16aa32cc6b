/**
 * Timing helpers shared by every bench case. `medianOfRounds` is the one place that repeats a
 * measurement; `measureCall` (one path) and `measureCallPair` (two paths side by side) build on it
 * for per-call figures.
 */

/** Results land here (a module-level store V8 cannot drop), so the optimiser cannot drop the calls being timed. */
let _sink;

/**
 * The middle value of `values` (the mean of the two middle ones for an even count).
 *
 * @param {readonly number[]} values
 * @returns {number}
 */
export function median(values) {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Nanoseconds elapsed since `start` (a `process.hrtime.bigint()` reading).
 *
 * @param {bigint} start
 * @returns {number}
 */
export function elapsedNs(start) {
  return Number(process.hrtime.bigint() - start);
}

/**
 * Run `round` `warmup` times untimed, then `rounds` times, and return the median of the figures the
 * rounds return (whatever unit `round` reports). Garbage is collected before each round unless
 * `collectGarbage` is false (for rounds of a few microseconds over a big heap, where a full GC per
 * round would cost far more than the measurement).
 *
 * @param {() => number | Promise<number>} round one measurement; returns its figure
 * @param {{ rounds?: number, warmup?: number, collectGarbage?: boolean }} [options] defaults: 5 rounds after 1 warm-up round, with GC
 * @returns {Promise<{ median: number, rounds: number[] }>}
 */
export async function medianOfRounds(round, { rounds = 5, warmup = 1, collectGarbage = true } = {}) {
  const collect = collectGarbage ? () => globalThis.gc?.() : () => {};
  for (let index = 0; index < warmup; index++) {
    collect();
    await round();
  }
  const figures = [];
  for (let index = 0; index < rounds; index++) {
    collect();
    figures.push(await round());
  }
  return { median: median(figures), rounds: figures };
}

/**
 * Time `iterations` calls of `fn` (sync), in nanoseconds for all of them.
 *
 * @param {() => unknown} fn
 * @param {number} iterations
 * @returns {number}
 */
function loopSync(fn, iterations) {
  const start = readClock();
  for (let index = 0; index < iterations; index++) _sink = fn();
  return Number(readClock() - start);
}

/**
 * Time `iterations` awaited calls of `fn`, one after another, in nanoseconds for all of them.
 *
 * @param {() => unknown} fn
 * @param {number} iterations
 * @returns {Promise<number>}
 */
async function loopAsync(fn, iterations) {
  const start = readClock();
  for (let index = 0; index < iterations; index++) _sink = await fn();
  return Number(readClock() - start);
}

/**
 * With `TOOLSHED_BENCH_CLOCK=cpu` (`node bench/run.js --cpu`), loops are timed in the CPU time of
 * this process (user + system, every thread) instead of wall time: a case descheduled by other
 * processes on a busy machine is not charged for the wait, so ratios stay steady under load. The
 * resolution is 1 µs, far below a 20 ms chunk.
 */
export const CPU_CLOCK = process.env.TOOLSHED_BENCH_CLOCK === 'cpu';

/** Now, in nanoseconds, on the clock loops are timed with. */
function readClock() {
  if (!CPU_CLOCK) return process.hrtime.bigint();
  const usage = process.cpuUsage();
  return BigInt(usage.user + usage.system) * 1000n;
}

/** A round runs its loop in chunks of calls taking at least this long, until the round's time is up. */
const CHUNK_NS = 20e6;

/**
 * How many calls of `fn` make one chunk: doubled from 1 until a chunk takes at least 20 ms.
 *
 * @param {() => unknown} fn
 * @param {boolean} async
 * @returns {Promise<number>}
 */
async function chunkSize(fn, async) {
  const loop = async ? loopAsync : loopSync;
  let chunk = 1;
  while ((await loop(fn, chunk)) < CHUNK_NS) chunk *= 2;
  return chunk;
}

/**
 * One time-boxed round: chunks of `chunk` calls of `fn` until `roundMs` have passed.
 *
 * @param {() => unknown} fn
 * @param {{ async: boolean, chunk: number, roundMs: number }} options
 * @returns {Promise<{ nsPerCall: number, ms: number }>} elapsed time over calls made, and the round's length
 */
async function timeBoxedRound(fn, { async, chunk, roundMs }) {
  const loop = async ? loopAsync : loopSync;
  let elapsed = 0;
  let calls = 0;
  while (elapsed < roundMs * 1e6) {
    elapsed += await loop(fn, chunk);
    calls += chunk;
  }
  return { nsPerCall: elapsed / calls, ms: elapsed / 1e6 };
}

/**
 * Nanoseconds per call of `fn`, as the median of `rounds` rounds after one warm-up round.
 *
 * Each round is time-boxed: it runs chunks of calls (the iteration count found by doubling until
 * one chunk takes 20 ms) until `roundMs` have passed, and reports elapsed time over calls made. So
 * a round lasts `roundMs` to `roundMs` + one chunk whatever the machine's load or the JIT does,
 * without an up-front estimate of the call's cost. With `async`, each call is awaited before the
 * next starts.
 *
 * @param {() => unknown} fn the call to time, with its arguments bound
 * @param {{ async?: boolean, roundMs?: number, rounds?: number }} [options] defaults: sync, 300 ms, 5 rounds
 * @returns {Promise<{ nsPerCall: number, roundsNsPerCall: number[], roundsMs: number[], callsPerChunk: number }>}
 */
export async function measureCall(fn, { async = false, roundMs = 300, rounds = 5 } = {}) {
  const chunk = await chunkSize(fn, async);
  const roundsMs = [];
  const round = async () => {
    const timed = await timeBoxedRound(fn, { async, chunk, roundMs });
    roundsMs.push(timed.ms);
    return timed.nsPerCall;
  };
  const result = await medianOfRounds(round, { rounds, warmup: 1 });
  return {
    nsPerCall: result.median,
    roundsNsPerCall: result.rounds,
    roundsMs: roundsMs.slice(1),
    callsPerChunk: chunk,
  };
}

/**
 * Nanoseconds per call of two paths measured side by side in one process: every round times
 * `first` and `second` back to back (time-boxed as in {@link measureCall}, the order swapped from one
 * round to the next), so a burst of load from other processes falls on both. Returns each path's
 * median ns/call and the median of the per-round ratios `second ÷ first`, which is steadier than the
 * ratio of the medians on a busy machine. Unlike `measureCall`, rounds do not start with a forced GC.
 *
 * @param {() => unknown} first
 * @param {() => unknown} second
 * @param {{ async?: boolean, roundMs?: number, rounds?: number }} [options] defaults: sync, 300 ms per path, 7 rounds
 */
export async function measureCallPair(first, second, { async = false, roundMs = 300, rounds = 7 } = {}) {
  const chunks = [await chunkSize(first, async), await chunkSize(second, async)];
  /** @type {[number[], number[]]} */
  const perRound = [[], []];
  let swap = false;
  const round = async () => {
    const order = swap ? [1, 0] : [0, 1];
    swap = !swap;
    const ns = [0, 0];
    for (const side of order) {
      const fn = side === 0 ? first : second;
      ns[side] = (await timeBoxedRound(fn, { async, chunk: chunks[side], roundMs })).nsPerCall;
    }
    perRound[0].push(ns[0]);
    perRound[1].push(ns[1]);
    return ns[1] / ns[0];
  };
  // No forced GC between rounds: the path that runs first after a full GC runs 1.5-2× slower for
  // the next 100 ms or so (seen with the same MCP path on both sides), which would bias each round
  // toward its second path. Each path's own garbage is still collected as it makes it.
  const ratio = await medianOfRounds(round, { rounds, warmup: 1, collectGarbage: false });
  const [firstRounds, secondRounds] = perRound.map((values) => values.slice(1));
  return {
    first: { nsPerCall: median(firstRounds), roundsNsPerCall: firstRounds, callsPerChunk: chunks[0] },
    second: { nsPerCall: median(secondRounds), roundsNsPerCall: secondRounds, callsPerChunk: chunks[1] },
    ratio: ratio.median,
    roundsRatio: ratio.rounds,
  };
}

/**
 * The `p`-th percentile of `values` (nearest rank: the smallest value with at least `p` % of the
 * values at or below it).
 *
 * @param {readonly number[]} values
 * @param {number} p 0 to 100
 * @returns {number}
 */
export function percentile(values, p) {
  const sorted = [...values].sort((left, right) => left - right);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}
