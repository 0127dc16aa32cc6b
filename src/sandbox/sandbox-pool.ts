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
  /** Sandbox processes kept warm (default 2). Each runs one call at a time. */
  size?: number;
  /** Replace a sandbox after this many runs (default 100); 1 gives every call a fresh process. */
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
  /** Calls answered since the pool started. */
  runs: number;
  /** Sandboxes replaced: after a crash, a timeout, a memory kill, a cancellation or `maxRunsPerSandbox` runs. */
  recycled: number;
}

interface Job {
  code: string;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  startedAt: number;
  resolve: (result: SandboxRunResult) => void;
  onAbort?: () => void;
}

const CONSECUTIVE_START_FAILURES = 3;

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
 * Calls queue for a free sandbox. A sandbox is replaced after a crash, a timeout (SIGKILL at the
 * deadline: code that catches every exception is stopped too), a memory kill, a cancellation, a
 * runtime that asks for it (Python after a MemoryError) or `maxRunsPerSandbox` runs; the replacement
 * starts in the background and the next call succeeds.
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
  readonly allowNetwork: boolean;
  private readonly isolation: SandboxIsolation;
  private readonly startTimeoutMs: number;
  private readonly rssSlackBytes: number;
  private plan: Extract<IsolationPlan, { ok: true }> | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;
  private readonly processes = new Set<SandboxProcess>();
  private readonly idle: SandboxProcess[] = [];
  private readonly queue: Job[] = [];
  private pendingStarts = 0;
  private startFailures = 0;
  private runCount = 0;
  private recycledCount = 0;

  constructor(options: SandboxPoolOptions) {
    this.runtime = options.runtime;
    this.language = options.runtime.language;
    this.size = positiveInteger('size', options.size ?? 2);
    this.maxRunsPerSandbox = positiveInteger('maxRunsPerSandbox', options.maxRunsPerSandbox ?? 100);
    this.timeoutMs = positiveInteger('timeoutMs', options.timeoutMs ?? 5_000);
    this.memoryLimitBytes = positiveInteger('memoryLimitBytes', options.memoryLimitBytes ?? 50 * 2 ** 20);
    this.maxOutputChars = positiveInteger('maxOutputChars', options.maxOutputChars ?? 20_000);
    this.maxQueueLength = positiveInteger('maxQueueLength', options.maxQueueLength ?? 1_000);
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
    if (this.queue.length >= this.maxQueueLength) {
      return this.failure(
        startedAt,
        'busy',
        `The ${this.runtime.displayName} sandbox pool is busy: ${this.queue.length} calls are already waiting; try again shortly.`,
      );
    }
    return new Promise<SandboxRunResult>((resolve) => {
      const job: Job = { code, timeoutMs, signal: options.signal, startedAt, resolve };
      if (options.signal !== undefined) {
        job.onAbort = () => {
          const index = this.queue.indexOf(job);
          if (index === -1) return;
          this.queue.splice(index, 1);
          resolve(this.failure(startedAt, 'cancelled', `The ${this.runtime.displayName} run was cancelled.`));
        };
        options.signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.dispatch();
    });
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
      queued: this.queue.length,
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
    for (const job of this.queue.splice(0)) job.resolve(this.failure(job.startedAt, 'unavailable', message));
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
      for (const job of this.queue.splice(0)) job.resolve(this.failure(job.startedAt, 'unavailable', error.message));
      return;
    }
    if (this.starting === undefined) return;
    setTimeout(() => {
      if (!this.closed && this.liveCount() < this.size) this.spawnSandbox().catch(() => {});
    }, 100 * this.startFailures).unref();
  }

  private liveCount(): number {
    let count = 0;
    for (const sandbox of this.processes) if (sandbox.state !== 'dead') count += 1;
    return count + this.pendingStarts;
  }

  private forget(sandbox: SandboxProcess): void {
    this.processes.delete(sandbox);
    const index = this.idle.indexOf(sandbox);
    if (index !== -1) this.idle.splice(index, 1);
  }

  private dispatch(): void {
    while (this.queue.length > 0 && this.idle.length > 0) {
      const sandbox = this.idle.shift()!;
      if (sandbox.state !== 'idle') continue;
      const job = this.queue.shift()!;
      void this.execute(sandbox, job);
    }
    // Keep the pool at size: replace sandboxes that died while idle.
    if (!this.closed && this.starting !== undefined && this.plan !== undefined) {
      const missing = this.size - this.liveCount();
      for (let index = 0; index < missing; index++) this.spawnSandbox().catch(() => {});
    }
  }

  private async execute(sandbox: SandboxProcess, job: Job): Promise<void> {
    if (job.onAbort !== undefined) job.signal?.removeEventListener('abort', job.onAbort);
    const outcome = await sandbox.run(job.code, job.timeoutMs, job.timeoutMs + this.runtime.killGraceMs, job.signal);
    this.runCount += 1;
    const retire = outcome.retire || sandbox.runs >= this.maxRunsPerSandbox;
    if (retire) {
      this.recycledCount += 1;
      sandbox.kill('closed');
      this.processes.delete(sandbox);
    } else if (!this.closed) {
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
