import { afterEach, describe, expect, it } from 'vitest';
import { createFixtureRuntime, expectOutcome, untilAllIdle } from '../../test/sandbox/support.js';
import type { SandboxRunResult } from './sandbox.js';
import { SandboxError } from './sandbox-error.js';
import { SandboxPool, type SandboxPoolOptions } from './sandbox-pool.js';

// The pool's behaviour, driven through a fixture child that speaks the real protocol but takes
// commands (see fixtures/fixture-child.mjs) so each situation can be produced on purpose.

const pools: SandboxPool[] = [];

function pool(options: Partial<SandboxPoolOptions> = {}, config: Record<string, unknown> = {}): SandboxPool {
  const created = new SandboxPool({ runtime: createFixtureRuntime(config), size: 1, timeoutMs: 2_000, ...options });
  pools.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((created) => created.close()));
});

function result(outcome: SandboxRunResult): unknown {
  if (!outcome.ok) throw new Error(`Expected success, got ${JSON.stringify(outcome)}`);
  return outcome.result;
}

describe('SandboxPool', () => {
  it('warms `size` sandboxes on start', async () => {
    const sandboxes = pool({ size: 3 });
    await sandboxes.start();
    expect(sandboxes.stats()).toMatchObject({ size: 3, idle: 3, busy: 0, starting: 0, queued: 0, runs: 0 });
  });

  it('starts on the first run when start() was not called', async () => {
    const sandboxes = pool();
    expectOutcome(await sandboxes.run('echo hi'), { ok: true, result: 'hi', stdout: 'hi', stderr: 'err:hi' });
  });

  it('runs at most `size` calls at once and queues the rest', async () => {
    const sandboxes = pool({ size: 2 });
    await sandboxes.start();
    const spans = (await Promise.all(Array.from({ length: 4 }, () => sandboxes.run('sleep 300')))).map(
      (outcome) => result(outcome) as [number, number],
    );
    // At no moment did more than two runs overlap, and the four took about two rounds.
    const overlapping = spans.map(([start]) => spans.filter(([from, to]) => from <= start && start < to).length);
    expect(Math.max(...overlapping)).toBe(2);
    const [first, last] = [Math.min(...spans.map(([start]) => start)), Math.max(...spans.map(([, end]) => end))];
    expect(last - first).toBeGreaterThanOrEqual(590);
  });

  it('replaces a sandbox after `maxRunsPerSandbox` runs', async () => {
    const sandboxes = pool({ size: 1, maxRunsPerSandbox: 2 });
    for (let index = 0; index < 6; index++) expectOutcome(await sandboxes.run(`echo ${index}`), { ok: true });
    expect(sandboxes.stats()).toMatchObject({ runs: 6, recycled: 3 });
  });

  it('replaces a sandbox that asks for it', async () => {
    const sandboxes = pool({ maxRunsPerSandbox: 10 });
    expectOutcome(await sandboxes.run('recycle'), { ok: true, result: 'asked to be replaced' });
    expectOutcome(await sandboxes.run('echo again'), { ok: true, result: 'again' });
    expect(sandboxes.stats().recycled).toBe(1);
  });

  it('reports a crashed sandbox and answers the next call from a fresh one', async () => {
    const sandboxes = pool({ maxRunsPerSandbox: 10 });
    expectOutcome(await sandboxes.run('crash'), {
      ok: false,
      reason: 'crashed',
      message:
        /^The Fixture sandbox stopped: The sandbox process exited unexpectedly.*; it was replaced and the next call starts fresh\.$/,
    });
    expectOutcome(await sandboxes.run('echo back'), { ok: true, result: 'back' });
    expect(sandboxes.stats().recycled).toBe(1);
  });

  it('reports a runtime that throws as a crash', async () => {
    const sandboxes = pool();
    expectOutcome(await sandboxes.run('throw'), {
      ok: false,
      reason: 'crashed',
      message:
        'The Fixture sandbox stopped: The runtime failed: Error: the fixture runtime broke; it was replaced and the next call starts fresh.',
    });
    expectOutcome(await sandboxes.run('echo back'), { ok: true });
  });

  it('kills a sandbox at the deadline and answers within bounds', async () => {
    const sandboxes = pool({ timeoutMs: 300 });
    await sandboxes.start();
    const startedAt = performance.now();
    expectOutcome(await sandboxes.run('sleep 5000'), {
      ok: false,
      reason: 'timeout',
      message: 'Fixture code ran longer than the 0.3 s time limit and was stopped.',
    });
    expect(performance.now() - startedAt).toBeLessThan(450);
    expectOutcome(await sandboxes.run('echo back'), { ok: true });
  });

  it('lets a call ask for less time than the pool allows, never more', async () => {
    const sandboxes = pool({ timeoutMs: 1_000 });
    const short = await sandboxes.run('sleep 5000', { timeoutMs: 200 });
    expectOutcome(short, { ok: false, reason: 'timeout', message: /the 0\.2 s time limit/ });
    const long = await sandboxes.run('sleep 5000', { timeoutMs: 60_000 });
    expectOutcome(long, { ok: false, reason: 'timeout', message: /the 1 s time limit/ });
  });

  it('kills a sandbox whose memory outside WebAssembly grows past the watchdog limit', async () => {
    const sandboxes = pool({ memoryLimitBytes: 16 * 2 ** 20, rssSlackBytes: 16 * 2 ** 20, timeoutMs: 10_000 });
    const startedAt = performance.now();
    expectOutcome(await sandboxes.run('hog 200'), {
      ok: false,
      reason: 'memory',
      message: 'Fixture code went over the 16 MB memory limit and was stopped.',
    });
    expect(performance.now() - startedAt).toBeLessThan(5_000);
    expectOutcome(await sandboxes.run('echo back'), { ok: true });
  });

  it('stops memory the watchdog would miss with the data size limit', async () => {
    // A huge watchdog allowance: only RLIMIT_DATA (512 MB + the limit, set by prlimit) can stop this.
    const sandboxes = pool({ rssSlackBytes: 64 * 2 ** 30, timeoutMs: 10_000 });
    expectOutcome(await sandboxes.run('hog 2000'), {
      ok: false,
      reason: 'memory',
      message: 'Fixture code went over the 50 MB memory limit and was stopped.',
    });
    expectOutcome(await sandboxes.run('echo back'), { ok: true });
  });

  it('caps WebAssembly memory growth at the memory limit', async () => {
    const sandboxes = pool({ memoryLimitBytes: 4 * 2 ** 20 });
    expectOutcome(await sandboxes.run(`grow ${2 * 2 ** 20}`), { ok: true });
    expectOutcome(await sandboxes.run(`grow ${8 * 2 ** 20}`), {
      ok: false,
      reason: 'memory',
      errorType: 'RangeError',
    });
  });

  it('kills a sandbox that sends a message over the size limit', async () => {
    const sandboxes = pool({ maxOutputChars: 100 });
    expectOutcome(await sandboxes.run('flood 2000000'), {
      ok: false,
      reason: 'crashed',
      message: /sent a message over \d+ bytes/,
    });
    expectOutcome(await sandboxes.run('echo back'), { ok: true });
  });

  it('ignores a forged answer to a run that does not exist', async () => {
    const sandboxes = pool();
    expectOutcome(await sandboxes.run('forge'), { ok: true, result: 'real' });
  });

  it('cancels a queued call without running it', async () => {
    const sandboxes = pool({ size: 1 });
    await sandboxes.start();
    const busy = sandboxes.run('sleep 300');
    const controller = new AbortController();
    const queued = sandboxes.run('echo never', { signal: controller.signal });
    controller.abort();
    expectOutcome(await queued, { ok: false, reason: 'cancelled', message: 'The Fixture run was cancelled.' });
    expectOutcome(await busy, { ok: true });
    expect(sandboxes.stats().runs).toBe(1);
  });

  it('cancels a running call by replacing its sandbox', async () => {
    const sandboxes = pool({ size: 1 });
    await sandboxes.start();
    const controller = new AbortController();
    const running = sandboxes.run('sleep 5000', { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const startedAt = performance.now();
    expectOutcome(await running, { ok: false, reason: 'cancelled' });
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    expectOutcome(await sandboxes.run('echo back'), { ok: true });
  });

  it('turns calls away when the queue is full', async () => {
    const sandboxes = pool({ size: 1, maxQueueLength: 1 });
    await sandboxes.start();
    const running = sandboxes.run('sleep 200');
    const waiting = sandboxes.run('echo waiting');
    expectOutcome(await sandboxes.run('echo turned-away'), {
      ok: false,
      reason: 'busy',
      message: 'The Fixture sandbox pool is busy: 1 calls are already waiting; try again shortly.',
    });
    expectOutcome(await running, { ok: true });
    expectOutcome(await waiting, { ok: true, result: 'waiting' });
  });

  it('answers waiting and later calls with `unavailable` once closed', async () => {
    const sandboxes = pool({ size: 1 });
    await sandboxes.start();
    const running = sandboxes.run('sleep 5000');
    const waiting = sandboxes.run('echo waiting');
    while (sandboxes.stats().busy === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await sandboxes.close();
    const closed = { ok: false, reason: 'unavailable', message: 'The Fixture sandbox pool was closed.' } as const;
    expectOutcome(await waiting, closed);
    expectOutcome(await running, closed);
    expectOutcome(await sandboxes.run('echo later'), {
      ok: false,
      reason: 'unavailable',
      message: 'The Fixture sandbox pool is closed.',
    });
    await expect(sandboxes.start()).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it("fails to start with the child's own error when the runtime cannot load", async () => {
    const sandboxes = pool({}, { failStart: true });
    const error = await sandboxes.start().catch((caught: unknown) => caught);
    expect(SandboxError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'START_FAILED',
      message: 'The sandbox process failed while starting: Error: the fixture was told to fail while starting.',
    });
    expectOutcome(await sandboxes.run('echo hi'), {
      ok: false,
      reason: 'unavailable',
      message: /failed while starting/,
    });
  });

  it('fails to start when a sandbox does not become ready in time', async () => {
    const sandboxes = pool({ startTimeoutMs: 500 }, { hangStart: true });
    await expect(sandboxes.start()).rejects.toMatchObject({
      code: 'START_FAILED',
      message: 'The sandbox process did not start within 500 ms.',
    });
  });

  it('says how to build when the child script is missing', async () => {
    const runtime = { ...createFixtureRuntime(), childScript: '/nonexistent/dist/sandbox/python/python-child.mjs' };
    const sandboxes = new SandboxPool({ runtime });
    pools.push(sandboxes);
    await expect(sandboxes.start()).rejects.toMatchObject({
      code: 'START_FAILED',
      message:
        "The Fixture sandbox child script '/nonexistent/dist/sandbox/python/python-child.mjs' is missing; a build must copy src/sandbox/**/*.mjs into dist/sandbox/ (see docs/sandbox.md).",
    });
  });

  it('rejects options out of range', () => {
    expect(() => new SandboxPool({ runtime: createFixtureRuntime(), size: 0 })).toThrow(
      'The sandbox pool option size must be a positive integer, got 0.',
    );
    expect(() => new SandboxPool({ runtime: createFixtureRuntime(), timeoutMs: 1.5 })).toThrow(SandboxError);
  });

  it('keeps the pool at its size after sandboxes die', async () => {
    const sandboxes = pool({ size: 2 });
    await sandboxes.start();
    await Promise.all([sandboxes.run('crash'), sandboxes.run('crash')]);
    await untilAllIdle(sandboxes);
    expect(sandboxes.stats()).toMatchObject({ idle: 2, recycled: 2 });
  });
});

describe('SandboxPool isolation between calls', () => {
  it('runs every call in a fresh process by default, and keeps `size` fresh ones ready', async () => {
    const sandboxes = pool({ size: 2 });
    for (let index = 0; index < 4; index++) {
      expectOutcome(await sandboxes.run(`plant call${index}`), { ok: true, result: [`call${index}`] });
    }
    await untilAllIdle(sandboxes);
    expect(sandboxes.stats()).toMatchObject({ idle: 2, busy: 0, runs: 4, recycled: 4 });
  });

  it('starts the replacement of a taken process while the call runs', async () => {
    const sandboxes = pool({ size: 1 });
    await sandboxes.start();
    const running = sandboxes.run('sleep 400');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sandboxes.stats()).toMatchObject({ busy: 1, starting: 1 });
    expectOutcome(await running, { ok: true });
  });

  it('reuses a process only for calls of the tenant it ran for', async () => {
    const sandboxes = pool({ size: 1, maxRunsPerSandbox: 10 });
    expectOutcome(await sandboxes.run('plant a1', { tenant: 'a' }), { ok: true, result: ['a1'] });
    expectOutcome(await sandboxes.run('plant a2', { tenant: 'a' }), { ok: true, result: ['a1', 'a2'] });
    expectOutcome(await sandboxes.run('plant b1', { tenant: 'b' }), { ok: true, result: ['b1'] });
    expectOutcome(await sandboxes.run('plant a3', { tenant: 'a' }), { ok: true, result: ['a1', 'a2', 'a3'] });
    expectOutcome(await sandboxes.run('plant none'), { ok: true, result: ['none'] });
  });

  it("gives way to a waiting tenant by replacing another tenant's idle process", async () => {
    // Room for two processes: a's and b's idle ones fill it, so c's call must evict one.
    const sandboxes = pool({ size: 1, maxRunsPerSandbox: 10 });
    expectOutcome(await sandboxes.run('plant a1', { tenant: 'a' }), { ok: true });
    await untilAllIdle(sandboxes);
    expectOutcome(await sandboxes.run('plant b1', { tenant: 'b' }), { ok: true });
    await untilAllIdle(sandboxes);
    expectOutcome(await sandboxes.run('plant c1', { tenant: 'c' }), { ok: true, result: ['c1'] });
    expect(sandboxes.stats().recycled).toBeGreaterThanOrEqual(1);
  });

  it("serves waiting tenants in turn, so one tenant's flood does not starve another", async () => {
    const sandboxes = pool({ size: 1, maxQueueLengthPerTenant: 3 });
    await sandboxes.start();
    const order: string[] = [];
    const track = (label: string, tenant: string) =>
      sandboxes.run(`echo ${label}`, { tenant }).then((outcome) => {
        order.push(label);
        return outcome;
      });
    const flood = ['a1', 'a2', 'a3', 'a4', 'a5'].map((label) => track(label, 'a'));
    const other = track('b1', 'b');
    const outcomes = await Promise.all([...flood, other]);
    // a1 ran at once; a2..a4 filled a's share of the queue, a5 was turned away, b1 ran right after a2.
    expectOutcome(outcomes[4]!, {
      ok: false,
      reason: 'busy',
      message: 'The Fixture sandbox pool is busy: 3 calls of this caller are already waiting; try again shortly.',
    });
    expect(order.filter((label) => label !== 'a5')).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
  });
});

describe('a sandbox process', () => {
  it('runs as nobody when the host runs as root', async (context) => {
    if (process.getuid?.() !== 0) context.skip();
    const sandboxes = pool();
    expectOutcome(await sandboxes.run('uid'), { ok: true, result: 65_534 });
  });

  it("gets none of the host's environment variables", async () => {
    process.env.TOOLSHED_SANDBOX_SECRET = 'must-not-reach-the-sandbox';
    const sandboxes = pool();
    expectOutcome(await sandboxes.run('env'), { ok: true, result: [] });
  });

  it('cannot read files outside the runtime folders', async () => {
    const sandboxes = pool();
    expectOutcome(await sandboxes.run('read /etc/hostname'), {
      ok: false,
      reason: 'exception',
      errorType: 'ERR_ACCESS_DENIED',
    });
  });
});
