import type { ToolSpec } from '../core/tool-spec.js';
import { EmailStore } from '../emails/email-store.js';
import { createEmailTools } from '../emails/email-tools.js';
import { createExecuteJavascriptTool } from '../sandbox/javascript/execute-javascript-tool.js';
import { createJavascriptRuntime } from '../sandbox/javascript/javascript-runtime.js';
import { createExecutePythonTool } from '../sandbox/python/execute-python-tool.js';
import { createPythonRuntime } from '../sandbox/python/python-runtime.js';
import type { Sandbox, SandboxLanguage } from '../sandbox/sandbox.js';
import { SandboxPool, type SandboxPoolStats } from '../sandbox/sandbox-pool.js';
import type { SandboxToolOptions } from '../sandbox/sandbox-tool.js';
import type { ToolshedStore } from '../store/index.js';

/** Options of {@link createServiceBuiltins}. */
export interface ServiceBuiltinsOptions {
  /** Limits of the `execute_python` / `execute_javascript` pools, or `false` to leave both tools out. */
  sandbox?:
    | Pick<SandboxToolOptions, 'size' | 'timeoutMs' | 'memoryLimitBytes' | 'allowNetwork' | 'maxRunsPerSandbox'>
    | false;
  /** `false` leaves `email_search` / `email_get` out. */
  emails?: boolean;
}

/** The built-ins the service shares between workspaces, and how to stop them. */
export interface ServiceBuiltins {
  /** The tools as the store lists them (their code runs as no workspace in particular). */
  readonly tools: readonly ToolSpec[];
  /**
   * The same tools for one workspace's registry: its code runs as that workspace, so a sandbox
   * process never serves two workspaces.
   */
  forWorkspace(workspaceId: string): readonly ToolSpec[];
  /**
   * The sandbox of one language as one workspace uses it (the pool bound to the workspace, as for
   * `forWorkspace`), for the code tools a workspace stores; `undefined` when the sandbox is off.
   */
  sandboxFor(language: SandboxLanguage, workspaceId: string): Sandbox | undefined;
  /** Each sandbox pool's counts right now, by language (none when the sandbox is off). */
  sandboxStats(): Array<{ language: SandboxLanguage; stats: SandboxPoolStats }>;
  /** The time limit of one sandbox run, in milliseconds (`undefined` when the sandbox is off). */
  readonly sandboxTimeoutMs: number | undefined;
  /** Stop the sandbox pools (started on their first call; closing unstarted pools costs nothing). */
  close(): Promise<void>;
}

/**
 * The built-ins of the service beyond the per-workspace file, web and math tools (SPEC §10):
 * `execute_python` and `execute_javascript`, each on one sandbox pool for the whole server (started on
 * the first call), and `email_search` / `email_get` over the store's email corpus.
 *
 * @example
 * ```ts
 * const builtins = createServiceBuiltins(store);
 * await store.tools.upsertBuiltins([...createBuiltins(), ...builtins.tools]);
 * await builtins.close();
 * ```
 */
export function createServiceBuiltins(store: ToolshedStore, options: ServiceBuiltinsOptions = {}): ServiceBuiltins {
  const pools: SandboxPool[] = [];
  let codeTools: (python: Sandbox, javascript: Sandbox) => ToolSpec[] = () => [];
  if (options.sandbox !== false) {
    const limits = options.sandbox ?? {};
    pools.push(
      new SandboxPool({ runtime: createPythonRuntime(), ...limits }),
      new SandboxPool({ runtime: createJavascriptRuntime(), ...limits }),
    );
    codeTools = (python, javascript) => [
      createExecutePythonTool({ ...limits, sandbox: python }) as ToolSpec,
      createExecuteJavascriptTool({ ...limits, sandbox: javascript }) as ToolSpec,
    ];
  }
  const [python, javascript] = pools;
  const emailTools =
    options.emails === false ? [] : (createEmailTools({ emails: new EmailStore(store) }) as ToolSpec[]);
  return {
    tools: [...(python && javascript ? codeTools(python, javascript) : []), ...emailTools],
    forWorkspace(workspaceId) {
      if (python === undefined || javascript === undefined) return emailTools;
      return [...codeTools(python.forTenant(workspaceId), javascript.forTenant(workspaceId)), ...emailTools];
    },
    sandboxFor(language, workspaceId) {
      const pool = language === 'python' ? python : javascript;
      return pool?.forTenant(workspaceId);
    },
    sandboxStats() {
      if (python === undefined || javascript === undefined) return [];
      return [
        { language: 'python', stats: python.stats() },
        { language: 'javascript', stats: javascript.stats() },
      ];
    },
    sandboxTimeoutMs: python?.timeoutMs,
    async close() {
      await Promise.all(pools.map((pool) => pool.close()));
    },
  };
}
