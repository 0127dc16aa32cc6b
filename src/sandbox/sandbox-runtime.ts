import type { SandboxLanguage } from './sandbox.js';

/** What a preparation child is started with (see {@link SandboxRuntime.prepare}). */
export interface ChildLaunchOptions {
  /** The configuration sent to the child in its `init` message. */
  config: Record<string, unknown>;
  /** Files the child may create or replace; only for children that run no user code. */
  writePaths?: readonly string[];
  /** Milliseconds before the child is killed and the launch rejected (default 60 000). */
  timeoutMs?: number;
}

/**
 * Starts a child of the runtime under the pool's isolation, sends it `config`, and resolves with the
 * child's `prepared` message once the child exits cleanly; rejects with a `SandboxError`
 * (`START_FAILED`) otherwise.
 */
export type ChildLauncher = (options: ChildLaunchOptions) => Promise<Record<string, unknown>>;

/**
 * A language runtime a {@link SandboxPool} can run: which child entry script to start, what it may
 * read, and how it is configured. One implementation per folder (`python/`, `javascript/`), each
 * with the same file set: `*-runtime.ts` (this), `*-child.mjs` (the child entry) and
 * `execute-*-tool.ts` (the tool).
 *
 * The child entry script is a plain `.mjs` file beside the runtime, found with
 * `new URL('./x-child.mjs', import.meta.url)`: in the sources under vitest and in `dist/` once the
 * build has copied it (see docs/sandbox.md).
 */
export interface SandboxRuntime {
  readonly language: SandboxLanguage;
  /** The language's name in messages: `Python`, `JavaScript`. */
  readonly displayName: string;
  /** Absolute path of the child entry script. */
  readonly childScript: string;
  /** Extra Node flags for the child (heap size, ...). */
  readonly nodeFlags: readonly string[];
  /**
   * The child's data segment limit (RLIMIT_DATA) beyond the pool's memory limit, in bytes: the hard
   * backstop for memory a runtime allocates outside its WebAssembly heap.
   */
  readonly dataLimitBytes: number;
  /**
   * Milliseconds the pool waits past the deadline before killing the child: 0 when the runtime cannot
   * stop code by itself (Pyodide), a little more when it answers its own deadline (QuickJS).
   */
  readonly killGraceMs: number;
  /**
   * True when the child gives every run an interpreter of its own (QuickJS: a new runtime and context
   * per run, with no host object in reach), so a process may serve several runs of one tenant
   * without one run seeing another's state: the pool's `maxRunsPerSandbox` then defaults to 100.
   * False or absent (Pyodide, whose interpreter lives as long as its process): it defaults to 1.
   */
  readonly freshInterpreterPerRun?: boolean;
  /** Files and folders the child may read (Node's permission model), besides its own folder. */
  readPaths(): readonly string[];
  /** The configuration each sandbox child receives in its `init` message (JSON). */
  childConfig(): Record<string, unknown>;
  /** One-time work before the first sandbox starts (Python: the memory snapshot). */
  prepare?(launch: ChildLauncher): Promise<void>;
  /** Told when a sandbox failed to start, so a cache that may be at fault can be dropped. */
  startFailed?(error: Error): void;
}
