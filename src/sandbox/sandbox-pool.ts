import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Sandbox, SandboxFailure, SandboxLanguage, SandboxRunOptions, SandboxRunResult } from './sandbox.js';
import { SandboxError } from './sandbox-error.js';
import {
  createNamespaceIsolation,
  type IsolationPlan,
  networkIsolationMessage,
  type SandboxIsolation,
} from './sandbox-isolation.js';
import { type ProcessOutcome, SandboxProcess, type SandboxProcessOptions } from './sandbox-process.js';
import type { ChildLaunchOptions, SandboxRuntime } from './sandbox-runtime.js';

/** Options of a {@link SandboxPool}. */
export interface SandboxPoolOptions {
  /** The language runtime: `createPythonRuntime()` or `createJavascriptRuntime()`. */
  runtime: SandboxRuntime;
  /**
   * Calls run at once, and fresh sandbox processes kept warm for the next ones (default 2): at most
   * `2 × size` processes live at once (running, ready and starting).
   */
  size?: number;
  /**
   * Calls one process may run before it is replaced. Above 1, a process runs further calls only of
   * the tenant it first ran for (`run(code, { tenant })`), never another tenant's. Default 1 for
   * Python (every call gets a fresh process, and nothing a call leaves behind reaches another); 100
   * for JavaScript, whose child gives every run a fresh QuickJS runtime (see
   * {@link SandboxRuntime.freshInterpreterPerRun}).
   */
  maxRunsPerSandbox?: number;
  /** Time limit of a run in milliseconds (default 5 000). A call may ask for less, never more. */
  timeoutMs?: number;
  /** Memory the code may use on top of the runtime's own, in bytes (default 50 MB). */
  memoryLimitBytes?: number;
  /** Characters of stdout and of stderr kept per run, and of the result text (default 20 000). */
  maxOutputChars?: number;
  /** Calls that may wait for a free sandbox before new ones are turned away (default 1 000). */
  maxQueueLength?: number;
  /**
   * Calls of one tenant that may wait at once (default 100, at most `maxQueueLength`): one tenant's
   * flood gets `busy` while others still queue. Waiting calls are served round-robin across tenants.
   */
  maxQueueLengthPerTenant?: number;
  /**
   * Run sandboxes without a network namespace (default false). Without it the pool refuses to start
   * on a host where no network namespace can be created, and says how to enable one.
   */
  allowNetwork?: boolean;
  /** How processes are wrapped (default {@link createNamespaceIsolation}); tests inject their own. */
  isolation?: SandboxIsolation;
  /** Milliseconds a sandbox may take to become ready (default 60 000). */
  startTimeoutMs?: number;
  /**
   * RSS a running sandbox may add to what it used when ready, beyond `memoryLimitBytes`, before the
   * watchdog kills it (default 128 MB): the backstop for memory outside the WebAssembly heap.
   */
  rssSlackBytes?: number;
}

/** A snapshot of a pool's state, from {@link SandboxPool.stats}. */
export interface SandboxPoolStats {
  size: number;
  /** Sandboxes ready for a call. */
  idle: number;
  busy: number;
  starting: number;
  /** Calls waiting for a sandbox. */
  queued: number;
  /** Tenants with calls waiting. */
  queuedTenants: number;
  /** Calls answered since the pool started. */
  runs: number;
  /** Sandboxes replaced: after a crash, a timeout, a memory kill, a cancellation or `maxRunsPerSandbox` runs. */
  recycled: number;
}

interface Job {
  tenant: string;
  code: string;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  startedAt: number;
  resolve: (result: SandboxRunResult) => void;
  onAbort?: () => void;
}

const CONSECUTIVE_START_FAILURES = 3;
/** The tenant of calls that name none. */
const NO_TENANT = '';

/**
 * A pool of sandbox processes for one language: what `execute_python` and `execute_javascript` run
 * code in. Implements {@link Sandbox}.
 *
 * Each sandbox is a child process (`node` under the permission model: it may read only the runtime's
 * files, write nothing, start no process or worker) in its own network namespace (no interfaces) and
 * pid namespace, with a data-size limit, a WebAssembly memory cap and an RSS watchdog; it dies with
 * the host. `start()` checks the isolation, lets the runtime prepare (the Python memory snapshot) and
 * warms `size` sandboxes; `run()` starts the pool on first use when `start()` was not called.
 *
 * By default every call runs in a fresh process that ran nothing before and is killed once it
 * answers (`maxRunsPerSandbox: 1`): nothing a call schedules, patches or leaves in memory outlives it.
 * `size` fresh processes wait ready, and a replacement starts as soon as one is taken, so a call finds
 * a warm process while calls arrive slower than processes start (a Python process takes ~0.3 s of CPU
 * to restore its snapshot). With `maxRunsPerSandbox` above 1, a process is reused only for calls of
 * the same `tenant`.
 *
 * Calls queue for a free sandbox, round-robin across tenants. A sandbox is also replaced after a
 * crash, a timeout (SIGKILL at the deadline: code that catches every exception is stopped too), a
 * memory kill, a cancellation or a runtime that asks for it (Python after a MemoryError); the
 * replacement starts in the background and the next call succeeds.
 *
 * @example
 * ```ts
 * const pool = new SandboxPool({ runtime: createJavascriptRuntime(), size: 2, timeoutMs: 1_000 });
 * await pool.start();
 * const outcome = await pool.run('while (true) {}');
 * console.log(outcome.ok ? 'ok' : outcome.reason); // 'timeout'
 * console.log((await pool.run('1 + 1')).ok); // true: the pool recovered
 * await pool.close();
 * ```
 */
export class SandboxPool implements Sandbox {
  readonly language: SandboxLanguage;
  readonly runtime: SandboxRuntime;
  readonly size: number;
  readonly maxRunsPerSandbox: number;
  readonly timeoutMs: number;
  readonly memoryLimitBytes: number;
  readonly maxOutputChars: number;
  readonly maxQueueLength: number;
  readonly maxQueueLengthPerTenant: number;
  readonly allowNetwork: boolean;
  private readonly isolation: SandboxIsolation;
  private readonly startTimeoutMs: number;
  private readonly rssSlackBytes: number;
  private plan: Extract<IsolationPlan, { ok: true }> | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;
  private readonly processes = new Set<SandboxProcess>();
  private readonly idle: SandboxProcess[] = [];
  /** Waiting calls per tenant; the Map's order is the round-robin order. */
  private readonly queues = new Map<string, Job[]>();
  private queued = 0;
  /** Calls running now: at most `size`. */
  private running = 0;
  private pendingStarts = 0;
  private startFailures = 0;
  private runCount = 0;
  private recycledCount = 0;

  constructor(options: SandboxPoolOptions) {
    this.runtime = options.runtime;
    this.language = options.runtime.language;
    this.size = positiveInteger('size', options.size ?? 2);
    this.maxRunsPerSandbox = positiveInteger(
      'maxRunsPerSandbox',
      options.maxRunsPerSandbox ?? (options.runtime.freshInterpreterPerRun === true ? 100 : 1),
    );
    this.timeoutMs = positiveInteger('timeoutMs', options.timeoutMs ?? 5_000);
    this.memoryLimitBytes = positiveInteger('memoryLimitBytes', options.memoryLimitBytes ?? 50 * 2 ** 20);
    this.maxOutputChars = positiveInteger('maxOutputChars', options.maxOutputChars ?? 20_000);
    this.maxQueueLength = positiveInteger('maxQueueLength', options.maxQueueLength ?? 1_000);
    this.maxQueueLengthPerTenant = Math.min(
      this.maxQueueLength,
      positiveInteger('maxQueueLengthPerTenant', options.maxQueueLengthPerTenant ?? 100),
    );
    this.startTimeoutMs = positiveInteger('startTimeoutMs', options.startTimeoutMs ?? 60_000);
    this.rssSlackBytes = positiveInteger('rssSlackBytes', options.rssSlackBytes ?? 128 * 2 ** 20);
    this.allowNetwork = options.allowNetwork === true;
    this.isolation = options.isolation ?? createNamespaceIsolation();
  }

  /**
   * Check the isolation, prepare the runtime and warm `size` sandboxes; resolves when all are ready.
   * Idempotent. Rejects with a {@link SandboxError}: `NETWORK_ISOLATION_UNAVAILABLE` (with how to
   * enable it), `START_FAILED` or `CLOSED`.
   */
  start(): Promise<void> {
    if (this.closed)
      return Promise.reject(new SandboxError('CLOSED', `The ${this.runtime.displayName} sandbox pool is closed.`));
    this.starting ??= this.startPool().catch((error: unknown) => {
      // A failed start is retried by the next call (the host may have been fixed meanwhile).
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  /** Run `code` in a free sandbox; never rejects (see {@link SandboxRunResult}). */
  async run(code: string, options: SandboxRunOptions = {}): Promise<SandboxRunResult> {
    const startedAt = performance.now();
    const timeoutMs = Math.min(options.timeoutMs ?? this.timeoutMs, this.timeoutMs);
    const tenant = typeof options.tenant === 'string' ? options.tenant : NO_TENANT;
    if (typeof code !== 'string') return this.failure(startedAt, 'exception', 'The code must be a string.');
    if (options.signal?.aborted)
      return this.failure(startedAt, 'cancelled', `The ${this.runtime.displayName} run was cancelled.`);
    try {
      await this.start();
    } catch (error) {
      return this.failure(startedAt, 'unavailable', (error as Error).message);
    }
    // The pool may have closed, or the caller given up, while it was starting.
    if (this.closed)
      return this.failure(startedAt, 'unavailable', `The ${this.runtime.displayName} sandbox pool was closed.`);
    if (options.signal?.aborted)
      return this.failure(startedAt, 'cancelled', `The ${this.runtime.displayName} run was cancelled.`);
    if (this.queued >= this.maxQueueLength) {
      return this.failure(
        startedAt,
        'busy',
        `The ${this.runtime.displayName} sandbox pool is busy: ${this.queued} calls are already waiting; try again shortly.`,
      );
    }
    const waiting = this.queues.get(tenant)?.length ?? 0;
    if (waiting >= this.maxQueueLengthPerTenant) {
      return this.failure(
        startedAt,
        'busy',
        `The ${this.runtime.displayName} sandbox pool is busy: ${waiting} calls of this caller are already waiting; try again shortly.`,
      );
    }
    return new Promise<SandboxRunResult>((resolve) => {
      const job: Job = { tenant, code, timeoutMs, signal: options.signal, startedAt, resolve };
      if (options.signal !== undefined) {
        job.onAbort = () => {
          if (!this.unqueue(job)) return;
          resolve(this.failure(startedAt, 'cancelled', `The ${this.runtime.displayName} run was cancelled.`));
        };
        options.signal.addEventListener('abort', job.onAbort, { once: true });
      }
      const jobs = this.queues.get(tenant);
      if (jobs === undefined) this.queues.set(tenant, [job]);
      else jobs.push(job);
      this.queued += 1;
      this.dispatch();
    });
  }

  /**
   * This pool as seen by one tenant: every run is made with `{ tenant }`, whatever the caller passes.
   * Closing the view does nothing; the pool's owner closes the pool.
   *
   * @example
   * ```ts
   * const tool = createExecutePythonTool({ sandbox: pool.forTenant(workspaceId) });
   * ```
   */
  forTenant(tenant: string): Sandbox {
    return {
      language: this.language,
      run: (code, options = {}) => this.run(code, { ...options, tenant }),
      close: async () => {},
    };
  }

  /** Counts of sandboxes and calls right now. */
  stats(): SandboxPoolStats {
    let busy = 0;
    for (const sandbox of this.processes) if (sandbox.state === 'busy') busy += 1;
    return {
      size: this.size,
      idle: this.idle.length,
      busy,
      starting: this.pendingStarts,
      queued: this.queued,
      queuedTenants: this.queues.size,
      runs: this.runCount,
      recycled: this.recycledCount,
    };
  }

  /** How sandboxes are isolated on this host, once started (e.g. `network and pid namespaces, data limit 690 MB`). */
  describeIsolation(): string | undefined {
    return this.plan?.description;
  }

  /** Kill every sandbox; waiting and later calls fail with `unavailable`. */
  async close(): Promise<void> {
    this.closed = true;
    const message = `The ${this.runtime.displayName} sandbox pool was closed.`;
    for (const job of this.takeQueue()) job.resolve(this.failure(job.startedAt, 'unavailable', message));
    const exits: Promise<void>[] = [];
    for (const sandbox of this.processes) {
      sandbox.kill('closed');
      exits.push(sandbox.exited);
    }
    this.idle.length = 0;
    await Promise.all(exits);
  }

  private async startPool(): Promise<void> {
    const plan = await this.isolation.plan({
      isolateNetwork: !this.allowNetwork,
      dataLimitBytes: this.runtime.dataLimitBytes + this.memoryLimitBytes,
    });
    if (!plan.ok) {
      throw new SandboxError(
        'NETWORK_ISOLATION_UNAVAILABLE',
        networkIsolationMessage(this.runtime.displayName, plan.reason),
      );
    }
    this.plan = plan;
    if (!existsSync(this.runtime.childScript)) {
      throw new SandboxError(
        'START_FAILED',
        `The ${this.runtime.displayName} sandbox child script '${this.runtime.childScript}' is missing; a build must copy src/sandbox/**/*.mjs into dist/sandbox/ (see docs/sandbox.md).`,
      );
    }
    await this.runtime.prepare?.((options) => this.launchPreparation(options));
    if (this.closed) throw new SandboxError('CLOSED', `The ${this.runtime.displayName} sandbox pool is closed.`);
    const starts = Array.from({ length: this.size }, () => this.spawnSandbox());
    const results = await Promise.allSettled(starts);
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed !== undefined && this.idle.length === 0) throw failed.reason;
  }

  private processOptions(config: Record<string, unknown>, writePaths: readonly string[] = []): SandboxProcessOptions {
    const plan = this.plan;
    if (plan === undefined) throw new SandboxError('START_FAILED', 'The sandbox pool has no isolation plan.');
    const readPaths = [dirname(dirname(this.runtime.childScript)), ...this.runtime.readPaths()];
    const permission = process.allowedNodeEnvironmentFlags.has('--permission')
      ? '--permission'
      : '--experimental-permission';
    const nodeArgs = [
      permission,
      ...readPaths.map((path) => `--allow-fs-read=${isDirectory(path) ? withSlash(path) : path}`),
      ...writePaths.map((path) => `--allow-fs-write=${path}`),
      // No eval or new Function: one fewer way from a runtime's JavaScript bridge to the host.
      '--disallow-code-generation-from-strings',
      '--no-warnings',
      ...this.runtime.nodeFlags,
      this.runtime.childScript,
    ];
    const [command, ...wrapperArgs] = [...plan.prefix, process.execPath, ...nodeArgs];
    return {
      command: command!,
      args: wrapperArgs,
      init: {
        type: 'init',
        config,
        limits: { memoryBytes: this.memoryLimitBytes, maxOutputChars: this.maxOutputChars },
        dropPrivileges: true,
      },
      readyTimeoutMs: this.startTimeoutMs,
      // Three captured texts, each at most 6 bytes per character in JSON, plus room for the rest.
      maxMessageBytes: 18 * this.maxOutputChars + 256 * 1024,
      rssHeadroomBytes: this.memoryLimitBytes + this.rssSlackBytes,
      expectNoNetwork: plan.network,
    };
  }

  private async launchPreparation(options: ChildLaunchOptions): Promise<Record<string, unknown>> {
    const sandbox = new SandboxProcess({
      ...this.processOptions(options.config, options.writePaths),
      readyTimeoutMs: options.timeoutMs ?? 60_000,
    });
    const info = await sandbox.start();
    await sandbox.exited;
    if (info.type !== 'prepared')
      throw new SandboxError('START_FAILED', 'The preparation child did not report `prepared`.');
    return info;
  }

  private async spawnSandbox(): Promise<void> {
    this.pendingStarts += 1;
    const sandbox = new SandboxProcess(this.processOptions(this.runtime.childConfig()));
    this.processes.add(sandbox);
    void sandbox.exited.then(() => this.forget(sandbox));
    try {
      await sandbox.start();
      this.startFailures = 0;
      if (this.closed) {
        sandbox.kill('closed');
        return;
      }
      this.idle.push(sandbox);
    } catch (error) {
      this.processes.delete(sandbox);
      // Closing the pool kills sandboxes that are still starting: that says nothing about the runtime.
      if (this.closed) throw error;
      this.startFailures += 1;
      this.runtime.startFailed?.(error as Error);
      this.replaceAfterFailure(error as Error);
      throw error;
    } finally {
      this.pendingStarts -= 1;
      this.dispatch();
    }
  }

  private replaceAfterFailure(error: Error): void {
    if (this.startFailures >= CONSECUTIVE_START_FAILURES) {
      // The host cannot start sandboxes right now: answer the waiting calls instead of retrying forever.
      this.startFailures = 0;
      this.starting = undefined;
      for (const job of this.takeQueue()) job.resolve(this.failure(job.startedAt, 'unavailable', error.message));
      return;
    }
    if (this.starting === undefined) return;
    setTimeout(() => this.dispatch(), 100 * this.startFailures).unref();
  }

  /** Processes alive or starting. */
  private liveCount(): number {
    let count = 0;
    for (const sandbox of this.processes) if (sandbox.state !== 'dead') count += 1;
    return count;
  }

  /** Ready processes that ran nothing yet, plus those starting: what the next calls of any tenant can take. */
  private freshCount(): number {
    let count = this.pendingStarts;
    for (const sandbox of this.idle) if (sandbox.tenant === undefined && sandbox.state === 'idle') count += 1;
    return count;
  }

  private unqueue(job: Job): boolean {
    const jobs = this.queues.get(job.tenant);
    const index = jobs?.indexOf(job) ?? -1;
    if (jobs === undefined || index === -1) return false;
    jobs.splice(index, 1);
    if (jobs.length === 0) this.queues.delete(job.tenant);
    this.queued -= 1;
    return true;
  }

  private takeQueue(): Job[] {
    const jobs = [...this.queues.values()].flat();
    this.queues.clear();
    this.queued = 0;
    return jobs;
  }

  /** A ready process for `tenant`: one that already ran its calls (when reuse is on), else a fresh one. */
  private takeIdle(tenant: string): SandboxProcess | undefined {
    let fresh = -1;
    for (let index = 0; index < this.idle.length; index++) {
      const sandbox = this.idle[index]!;
      if (sandbox.state !== 'idle') continue;
      if (sandbox.tenant === tenant) return this.idle.splice(index, 1)[0];
      if (sandbox.tenant === undefined && fresh === -1) fresh = index;
    }
    return fresh === -1 ? undefined : this.idle.splice(fresh, 1)[0];
  }

  /** Kill the ready process that ran another tenant's calls and has waited longest; false if none. */
  private evictIdle(): boolean {
    let oldest: SandboxProcess | undefined;
    for (const sandbox of this.idle) {
      if (sandbox.tenant !== undefined && (oldest === undefined || sandbox.idleSince < oldest.idleSince))
        oldest = sandbox;
    }
    if (oldest === undefined) return false;
    this.idle.splice(this.idle.indexOf(oldest), 1);
    this.recycle(oldest);
    return true;
  }

  /** Kill a process that is done serving and count it as replaced. */
  private recycle(sandbox: SandboxProcess): void {
    this.recycledCount += 1;
    sandbox.kill('closed');
    this.processes.delete(sandbox);
  }

  private forget(sandbox: SandboxProcess): void {
    this.processes.delete(sandbox);
    const index = this.idle.indexOf(sandbox);
    if (index !== -1) this.idle.splice(index, 1);
  }

  private dispatch(): void {
    // Round-robin: the first tenant in the Map that can be served is, then moves to the back.
    let served = true;
    while (served && this.queued > 0 && this.running < this.size) {
      served = false;
      for (const [tenant, jobs] of this.queues) {
        const sandbox = this.takeIdle(tenant);
        if (sandbox === undefined) continue;
        const job = jobs.shift()!;
        this.queues.delete(tenant);
        if (jobs.length > 0) this.queues.set(tenant, jobs);
        this.queued -= 1;
        void this.execute(sandbox, job);
        served = true;
        break;
      }
    }
    this.replenish();
  }

  /**
   * Keep `size` fresh processes ready or starting, within `2 × size` live processes, so a process taken
   * for a call is replaced at once. When calls wait that nothing ready or starting can serve, the
   * ready process of another tenant that has waited longest gives way to a fresh one.
   */
  private replenish(): void {
    if (this.closed || this.starting === undefined || this.plan === undefined) return;
    const limit = 2 * this.size;
    let missing = this.size - this.freshCount();
    while (missing > 0 && this.liveCount() < limit) {
      this.spawnSandbox().catch(() => {});
      missing -= 1;
    }
    if (this.queued > 0 && this.freshCount() === 0 && this.evictIdle()) this.spawnSandbox().catch(() => {});
  }

  private async execute(sandbox: SandboxProcess, job: Job): Promise<void> {
    if (job.onAbort !== undefined) job.signal?.removeEventListener('abort', job.onAbort);
    this.running += 1;
    const outcome = await sandbox.run(job.code, job.timeoutMs, job.timeoutMs + this.runtime.killGraceMs, job.signal);
    this.running -= 1;
    this.runCount += 1;
    const retire = outcome.retire || sandbox.runs >= this.maxRunsPerSandbox;
    if (retire) {
      this.recycle(sandbox);
    } else if (!this.closed) {
      sandbox.tenant = job.tenant;
      sandbox.idleSince = performance.now();
      this.idle.push(sandbox);
    }
    // A run cut short by close() was not the code's fault.
    const closedUnder = this.closed && !outcome.ok && outcome.reason === 'crashed';
    job.resolve(
      closedUnder
        ? this.failure(job.startedAt, 'unavailable', `The ${this.runtime.displayName} sandbox pool was closed.`)
        : this.resultOf(outcome, job),
    );
    this.dispatch();
  }

  private resultOf(outcome: ProcessOutcome, job: Job): SandboxRunResult {
    const durationMs = performance.now() - job.startedAt;
    const base = { stdout: outcome.stdout, stderr: outcome.stderr, truncated: outcome.truncated, durationMs };
    if (outcome.ok) return outcome.hasResult ? { ok: true, ...base, result: outcome.result } : { ok: true, ...base };
    const name = this.runtime.displayName;
    const reason = outcome.reason ?? 'crashed';
    const failure: SandboxFailure = { ok: false, reason, message: '', ...base };
    if (outcome.errorType !== undefined) failure.errorType = outcome.errorType;
    if (outcome.traceback !== undefined) failure.traceback = outcome.traceback;
    if (outcome.line !== undefined) failure.line = outcome.line;
    const at = outcome.line === undefined ? '' : ` (line ${outcome.line})`;
    switch (reason) {
      case 'exception':
        failure.message = `${name} ${name === 'Python' ? 'raised' : 'threw'} ${outcome.errorType ?? 'an error'}: ${oneLine(outcome.message)}${at}.`;
        break;
      case 'memory':
        failure.message = `${name} code went over the ${formatMegabytes(this.memoryLimitBytes)} memory limit${outcome.errorType === undefined ? '' : ` (${outcome.errorType})`} and was stopped${at}.`;
        break;
      case 'timeout':
        failure.message = `${name} code ran longer than the ${formatSeconds(job.timeoutMs)} time limit and was stopped.`;
        break;
      case 'cancelled':
        failure.message = `The ${name} run was cancelled.`;
        break;
      case 'crashed':
        failure.message = `The ${name} sandbox stopped: ${oneLine(outcome.message).replace(/\.$/, '')}; it was replaced and the next call starts fresh.`;
        break;
      default: {
        const unreachable: never = reason;
        return unreachable;
      }
    }
    return failure;
  }

  private failure(startedAt: number, reason: SandboxFailure['reason'], message: string): SandboxFailure {
    return {
      ok: false,
      reason,
      message,
      stdout: '',
      stderr: '',
      truncated: false,
      durationMs: performance.now() - startedAt,
    };
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new SandboxError(
      'INVALID_OPTIONS',
      `The sandbox pool option ${name} must be a positive integer, got ${String(value)}.`,
    );
  }
  return value;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function withSlash(path: string): string {
  return path.endsWith('/') ? path : `${path}/`;
}

function oneLine(text: string | undefined): string {
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  return line.length > 500 ? `${line.slice(0, 497)}...` : line;
}

function formatMegabytes(bytes: number): string {
  return `${Math.round((bytes / 2 ** 20) * 10) / 10} MB`;
}

function formatSeconds(ms: number): string {
  return `${ms / 1000} s`;
}
