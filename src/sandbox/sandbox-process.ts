import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { SandboxError } from './sandbox-error.js';

/** How one sandbox process is started and watched (built by the pool). */
export interface SandboxProcessOptions {
  command: string;
  args: readonly string[];
  /** The `init` message. */
  init: Record<string, unknown>;
  /** Milliseconds to become ready (or prepared) before the start fails. */
  readyTimeoutMs: number;
  /** Longest protocol line accepted once ready, in bytes; a longer one kills the process. */
  maxMessageBytes: number;
  /** RSS above the ready baseline at which a running process is killed (bytes); undefined: no watchdog. */
  rssHeadroomBytes?: number;
  /** Refuse a child that reports a network interface (it should be in an empty network namespace). */
  expectNoNetwork: boolean;
}

/** What a child reported when it became ready. */
export interface ReadyInfo {
  type: 'ready' | 'prepared';
  memoryBytes?: number;
  privileges?: string;
  uid?: number;
  networkInterfaces?: number;
  [key: string]: unknown;
}

/** A run's outcome as the child reported it (validated), or why the process ended instead. */
export interface ProcessOutcome {
  ok: boolean;
  /** For failures: `exception`, `memory`, `timeout`, `crashed`, `cancelled`. */
  reason?: 'exception' | 'memory' | 'timeout' | 'crashed' | 'cancelled';
  result?: unknown;
  hasResult: boolean;
  errorType?: string;
  message?: string;
  traceback?: string;
  line?: number;
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** The process must not run anything else: it was killed, broke, or asked to be replaced. */
  retire: boolean;
}

type KillReason = 'timeout' | 'memory' | 'cancelled' | 'protocol' | 'closed';

const READY_LINE_LIMIT = 64 * 1024;
const STDERR_TAIL = 4096;
const WATCHDOG_MS = 50;
const WRAPPERS = new Set(['setpriv', 'unshare', 'prlimit']);
const OUT_OF_MEMORY = /out of memory|OOMErrorHandler|allocation failed/i;

/** Every live child, so they die with this process even if nobody closed their pool. */
const live = new Set<SandboxProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const sandbox of live) sandbox.kill('closed');
  });
}

/**
 * One sandbox child process and the line protocol with it (see child-host.mjs). Internal to the
 * pool: it starts the process, sends runs one at a time, enforces the deadline and the RSS watchdog
 * by SIGKILL, and reports how each run ended. Nothing the child says is trusted beyond its shape.
 */
export class SandboxProcess {
  readonly options: SandboxProcessOptions;
  /** Runs answered by this process. */
  runs = 0;
  /** The tenant whose calls this process has run; undefined while it has run none. */
  tenant: string | undefined;
  /** `performance.now()` when it last became idle, to evict the longest-idle first. */
  idleSince = 0;
  state: 'new' | 'starting' | 'idle' | 'busy' | 'dead' = 'new';
  ready: ReadyInfo | undefined;
  private child: ChildProcess | undefined;
  private runtimePid: number | undefined;
  private baselineRss = 0;
  private buffered = '';
  private bufferedBytes = 0;
  private stderrTail = '';
  private nextId = 1;
  private killReason: KillReason | undefined;
  private onMessage: ((message: Record<string, unknown>) => void) | undefined;
  private onExit: (() => void) | undefined;
  private readonly exitedPromise: Promise<void>;
  private resolveExited: () => void = () => {};

  constructor(options: SandboxProcessOptions) {
    this.options = options;
    this.exitedPromise = new Promise((resolve) => {
      this.resolveExited = resolve;
    });
  }

  /** Resolves when the process has exited (or was never started). */
  get exited(): Promise<void> {
    return this.exitedPromise;
  }

  /** The last few kilobytes the child wrote to stderr (its crash messages). */
  get stderr(): string {
    return this.stderrTail;
  }

  /** Spawn the child, send `init`, and resolve with its `ready` (or `prepared`) message. */
  start(): Promise<ReadyInfo> {
    if (this.state !== 'new') return Promise.reject(new Error('A sandbox process can only be started once.'));
    this.state = 'starting';
    installExitHook();
    return new Promise<ReadyInfo>((resolve, reject) => {
      const fail = (message: string, cause?: unknown) => {
        clearTimeout(timer);
        this.onMessage = undefined;
        this.onExit = undefined;
        this.kill('closed');
        reject(new SandboxError('START_FAILED', message, cause === undefined ? undefined : { cause }));
      };
      const timer = setTimeout(
        () => fail(`The sandbox process did not start within ${this.options.readyTimeoutMs} ms.${this.stderrHint()}`),
        this.options.readyTimeoutMs,
      );
      this.onMessage = (message) => {
        if (message.type === 'fatal') {
          fail(`The sandbox process failed while starting: ${String(message.message)}.${this.stderrHint()}`);
          return;
        }
        if (message.type !== 'ready' && message.type !== 'prepared') return;
        const info = message as ReadyInfo;
        if (this.options.expectNoNetwork && info.type === 'ready' && Number(info.networkInterfaces) !== 0) {
          fail(
            `The sandbox process sees ${String(info.networkInterfaces)} network interface(s) although it should run in an empty network namespace.`,
          );
          return;
        }
        clearTimeout(timer);
        this.onExit = undefined;
        this.onMessage = undefined;
        this.ready = info;
        // A preparation child exits by itself now: whoever awaits that must keep the host alive.
        if (info.type === 'prepared') this.child?.ref();
        if (info.type === 'ready') {
          this.state = 'idle';
          this.runtimePid = this.findRuntimePid();
          this.baselineRss = this.readRss() ?? 0;
        }
        resolve(info);
      };
      this.onExit = () => fail(`The sandbox process exited while starting.${this.stderrHint()}`);
      try {
        this.spawnChild();
      } catch (error) {
        fail(`The sandbox process could not be started: ${(error as Error).message}`, error);
      }
    });
  }

  /**
   * Run `code`; resolves when the child answers, or when the process is killed (deadline `killAtMs`
   * after sending, watchdog, cancellation) or dies.
   */
  run(code: string, timeoutMs: number, killAtMs: number, signal?: AbortSignal): Promise<ProcessOutcome> {
    if (this.state !== 'idle') return Promise.resolve(this.ended('crashed', 'The sandbox process is not ready.'));
    this.state = 'busy';
    const id = this.nextId++;
    return new Promise<ProcessOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: ProcessOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        clearInterval(watchdog);
        signal?.removeEventListener('abort', abort);
        this.onMessage = undefined;
        this.onExit = undefined;
        this.runs += 1;
        if (this.state === 'busy') this.state = outcome.retire ? 'dead' : 'idle';
        if (outcome.retire) this.kill('closed');
        resolve(outcome);
      };
      const killWith = (reason: KillReason, message: string) => {
        this.kill(reason);
        finish(this.ended(reason === 'protocol' || reason === 'closed' ? 'crashed' : reason, message));
      };
      const abort = () => killWith('cancelled', 'The run was cancelled.');
      const deadline = setTimeout(() => killWith('timeout', 'The run went past its deadline.'), killAtMs);
      const headroom = this.options.rssHeadroomBytes;
      const watchdog = setInterval(() => {
        if (headroom === undefined) return;
        const rss = this.readRss();
        if (rss !== undefined && rss > this.baselineRss + headroom) {
          killWith('memory', `The sandbox process used ${Math.round(rss / 2 ** 20)} MB of memory.`);
        }
      }, WATCHDOG_MS);
      watchdog.unref();
      if (signal?.aborted) {
        abort();
        return;
      }
      signal?.addEventListener('abort', abort, { once: true });
      this.onMessage = (message) => {
        if (message.type !== 'result' || message.id !== id) return;
        finish(this.outcomeOf(message));
      };
      this.onExit = () => {
        const reason = this.killReason;
        if (reason === 'timeout' || reason === 'memory' || reason === 'cancelled') return;
        // V8 aborts the process when an allocation fails (RLIMIT_DATA, --max-old-space-size).
        if (reason === undefined && OUT_OF_MEMORY.test(this.stderrTail)) {
          finish(this.ended('memory', 'The sandbox process ran out of memory.'));
          return;
        }
        finish(this.ended('crashed', `The sandbox process exited unexpectedly.${this.stderrHint()}`));
      };
      this.write({ type: 'run', id, code, timeoutMs });
    });
  }

  /** Stop the process now (SIGKILL); idempotent. */
  kill(reason: KillReason): void {
    if (this.state === 'dead' && this.child === undefined) return;
    this.killReason ??= reason;
    this.state = 'dead';
    const child = this.child;
    if (child === undefined) {
      this.resolveExited();
      return;
    }
    if (child.exitCode === null && child.signalCode === null) {
      // Until it is gone, `await pool.close()` must not let the host's event loop run dry.
      child.ref();
      // The runtime is a grandchild under the namespace wrappers: kill it directly as well, so the
      // answer does not wait for the wrappers to pass the signal on.
      if (this.runtimePid !== undefined && this.runtimePid !== child.pid) {
        try {
          process.kill(this.runtimePid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      child.kill('SIGKILL');
    }
  }

  private spawnChild(): void {
    const child = spawn(this.options.command, [...this.options.args], {
      stdio: ['pipe', 'ignore', 'pipe', 'pipe'],
      // Nothing from the host's environment (API keys, tokens) reaches the sandbox.
      env: {},
      windowsHide: true,
    });
    this.child = child;
    live.add(this);
    child.unref();
    const stdin = child.stdin as Writable;
    const stderr = child.stderr as Readable;
    const protocol = child.stdio[3] as Readable;
    for (const stream of [stdin, stderr, protocol] as Array<{ unref?: () => void }>) stream.unref?.();
    // A dead child makes writes fail with EPIPE; the exit event reports it.
    stdin.on('error', () => {});
    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
    protocol.on('data', (chunk: Buffer) => this.receive(chunk));
    child.on('error', (error) => {
      this.stderrTail += `\n${error.message}`;
      this.exit();
    });
    child.on('exit', () => this.exit());
    this.write({ ...this.options.init });
  }

  private exit(): void {
    if (this.child !== undefined && live.has(this)) live.delete(this);
    this.state = 'dead';
    const onExit = this.onExit;
    this.onExit = undefined;
    onExit?.();
    this.resolveExited();
  }

  private write(message: Record<string, unknown>): void {
    const stdin = this.child?.stdin;
    if (stdin === undefined || stdin === null || stdin.destroyed) return;
    stdin.write(`${JSON.stringify(message)}\n`);
  }

  private receive(chunk: Buffer): void {
    const limit = this.ready === undefined ? READY_LINE_LIMIT : this.options.maxMessageBytes;
    let text = chunk.toString('utf8');
    for (;;) {
      const newline = text.indexOf('\n');
      if (newline === -1) {
        this.buffered += text;
        this.bufferedBytes += Buffer.byteLength(text);
        if (this.bufferedBytes > limit) this.violation(limit);
        return;
      }
      const line = this.buffered + text.slice(0, newline);
      text = text.slice(newline + 1);
      this.buffered = '';
      this.bufferedBytes = 0;
      if (Buffer.byteLength(line) > limit) {
        this.violation(limit);
        return;
      }
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof message === 'object' && message !== null && !Array.isArray(message)) {
        this.onMessage?.(message as Record<string, unknown>);
      }
    }
  }

  private violation(limit: number): void {
    this.buffered = '';
    this.bufferedBytes = 0;
    const onExit = this.onExit;
    this.kill('protocol');
    this.stderrTail += `\nThe sandbox process sent a message over ${limit} bytes.`;
    onExit?.();
  }

  private ended(reason: NonNullable<ProcessOutcome['reason']>, message: string): ProcessOutcome {
    return { ok: false, reason, message, hasResult: false, stdout: '', stderr: '', truncated: false, retire: true };
  }

  private outcomeOf(message: Record<string, unknown>): ProcessOutcome {
    const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
    const reasons = ['exception', 'memory', 'timeout', 'crashed'] as const;
    const reason = reasons.find((candidate) => candidate === message.reason);
    const ok = message.ok === true;
    const outcome: ProcessOutcome = {
      ok,
      hasResult: ok && Object.hasOwn(message, 'result'),
      stdout: text(message.stdout) ?? '',
      stderr: text(message.stderr) ?? '',
      truncated: message.truncated === true,
      retire: message.recycle === true,
    };
    if (outcome.hasResult) outcome.result = message.result;
    if (!ok) {
      outcome.reason = reason ?? 'crashed';
      outcome.message = text(message.message) ?? 'The sandbox reported a failure without a message.';
      const errorType = text(message.errorType);
      if (errorType !== undefined) outcome.errorType = errorType;
      const traceback = text(message.traceback);
      if (traceback !== undefined) outcome.traceback = traceback;
      if (typeof message.line === 'number' && Number.isInteger(message.line)) outcome.line = message.line;
      // A timeout the child answered itself (QuickJS's interrupt) leaves it healthy; a crash does not.
      if (outcome.reason === 'crashed') outcome.retire = true;
    }
    return outcome;
  }

  private stderrHint(): string {
    const lines = this.stderrTail
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.includes('ExperimentalWarning') && !line.includes('--trace-warnings'));
    const last = lines.findLast((line) => /error|denied|failed|cannot|not /i.test(line)) ?? lines.at(-1);
    return last === undefined ? '' : ` Its last error output: ${last.slice(0, 300)}`;
  }

  /** The pid of the node process itself, under the wrapper commands (setpriv, unshare, prlimit). */
  private findRuntimePid(): number | undefined {
    let pid = this.child?.pid;
    for (let depth = 0; pid !== undefined && depth < 4; depth++) {
      let command: string;
      try {
        command = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        return undefined;
      }
      if (!WRAPPERS.has(command)) return pid;
      try {
        const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/);
        pid = children[0] === undefined || children[0] === '' ? undefined : Number(children[0]);
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  private readRss(): number | undefined {
    if (this.runtimePid === undefined) return undefined;
    try {
      const status = readFileSync(`/proc/${this.runtimePid}/status`, 'utf8');
      const match = /VmRSS:\s+(\d+) kB/.exec(status);
      return match === null ? undefined : Number(match[1]) * 1024;
    } catch {
      return undefined;
    }
  }
}
