/** The languages toolshed can run in a sandbox. */
export type SandboxLanguage = 'python' | 'javascript';

/**
 * Why a sandboxed run did not succeed.
 *
 * - `exception` — the code raised (Python) or threw (JavaScript); `errorType` and `traceback` say where.
 * - `memory` — the code went over the memory limit and was stopped.
 * - `timeout` — the code ran past its time limit and was stopped.
 * - `crashed` — the sandbox process died or broke (a forbidden operation, a protocol violation, a
 *   runtime failure); it was replaced.
 * - `cancelled` — the caller's `AbortSignal` fired before the run finished.
 * - `busy` — too many calls were already waiting for a sandbox; try again shortly.
 * - `unavailable` — no sandbox could be started (network isolation missing, a start failure, the
 *   pool closed); `message` says why and how to fix it.
 */
export type SandboxFailureReason =
  | 'exception'
  | 'memory'
  | 'timeout'
  | 'crashed'
  | 'cancelled'
  | 'busy'
  | 'unavailable';

/** What every run reports, success or not. */
export interface SandboxRunBase {
  /** Standard output, cut head + tail with a marker when longer than the limit. */
  stdout: string;
  /** Standard error output, cut like `stdout`. */
  stderr: string;
  /** True when `stdout`, `stderr` or the result text was cut. */
  truncated: boolean;
  /** Wall-clock milliseconds from the call to the answer, queueing included. */
  durationMs: number;
}

/** A run that finished normally. */
export interface SandboxSuccess extends SandboxRunBase {
  ok: true;
  /**
   * The value of the last expression (Python) or of the script (JavaScript), as JSON data when it
   * converts; otherwise its text form (`repr` / `String`). Absent for `None` / `undefined`.
   */
  result?: unknown;
}

/** A run that failed; `message` is one sentence about the cause. */
export interface SandboxFailure extends SandboxRunBase {
  ok: false;
  reason: SandboxFailureReason;
  message: string;
  /** The exception's class name (`ZeroDivisionError`, `TypeError`, ...), for `exception` and `memory`. */
  errorType?: string;
  /** The traceback (Python) or stack (JavaScript), limited to the user's code. */
  traceback?: string;
  /** The line of the user's code where the error was raised, when known. */
  line?: number;
}

/** The outcome of {@link Sandbox.run}. */
export type SandboxRunResult = SandboxSuccess | SandboxFailure;

/** Options of {@link Sandbox.run}. */
export interface SandboxRunOptions {
  /** Milliseconds the code may run (default: the sandbox's own limit; never more than it). */
  timeoutMs?: number;
  /** Cancels the run; a running sandbox is killed and replaced. */
  signal?: AbortSignal;
  /**
   * Who the call runs for (a workspace, a user). A process that ran one tenant's code never runs
   * another's; calls without a tenant count as one tenant. Waiting calls are served round-robin
   * across tenants.
   */
  tenant?: string;
}

/**
 * Something that runs untrusted code in isolation and reports what happened. `run` never rejects:
 * every outcome, including an unavailable sandbox, is a {@link SandboxRunResult}.
 *
 * {@link SandboxPool} implements it over a pool of child processes; tests and alternative backends
 * can implement it too.
 *
 * @example
 * ```ts
 * const sandbox: Sandbox = new SandboxPool({ runtime: createJavascriptRuntime() });
 * const outcome = await sandbox.run('console.log("hi"); 6 * 7');
 * if (outcome.ok) console.log(outcome.stdout, outcome.result); // "hi\n" 42
 * await sandbox.close();
 * ```
 */
export interface Sandbox {
  readonly language: SandboxLanguage;
  run(code: string, options?: SandboxRunOptions): Promise<SandboxRunResult>;
  /** Stops every process; later runs fail with `unavailable`. */
  close(): Promise<void>;
}
