/**
 * toolshed/sandbox — run untrusted Python and JavaScript: a pool of isolated child processes and the
 * `execute_python` / `execute_javascript` tools over it. Node-only (Linux for network isolation):
 * import it from this subpath, never from the root entry. See docs/sandbox.md for the threat model.
 *
 * Internal helpers (the child protocol, the process wrapper) are not exported.
 */

export type { ExecuteJavascriptArgs, ExecuteJavascriptToolOptions } from './javascript/execute-javascript-tool.js';
export { createExecuteJavascriptTool } from './javascript/execute-javascript-tool.js';
export type { JavascriptRuntimeOptions } from './javascript/javascript-runtime.js';
export { createJavascriptRuntime } from './javascript/javascript-runtime.js';
export type { ExecutePythonArgs, ExecutePythonToolOptions } from './python/execute-python-tool.js';
export { createExecutePythonTool } from './python/execute-python-tool.js';
export type { PythonRuntimeOptions } from './python/python-runtime.js';
export { createPythonRuntime, DEFAULT_PYTHON_MODULES } from './python/python-runtime.js';
export type {
  Sandbox,
  SandboxFailure,
  SandboxFailureReason,
  SandboxLanguage,
  SandboxRunBase,
  SandboxRunOptions,
  SandboxRunResult,
  SandboxSuccess,
} from './sandbox.js';
export type { SandboxErrorCode } from './sandbox-error.js';
export { SandboxError } from './sandbox-error.js';
export type {
  IsolationPlan,
  IsolationRequest,
  NamespaceIsolationOptions,
  SandboxIsolation,
} from './sandbox-isolation.js';
export { createNamespaceIsolation, findExecutable, networkIsolationMessage } from './sandbox-isolation.js';
export type { SandboxPoolOptions, SandboxPoolStats } from './sandbox-pool.js';
export { SandboxPool } from './sandbox-pool.js';
export type { ChildLauncher, ChildLaunchOptions, SandboxRuntime } from './sandbox-runtime.js';
export type { CodeRunData, SandboxToolOptions } from './sandbox-tool.js';
export { sandboxToolResult } from './sandbox-tool.js';
