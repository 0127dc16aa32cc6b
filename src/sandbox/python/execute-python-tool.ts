import type { ToolSpec } from '../../core/tool-spec.js';
import { defineCodeTool, lazySandbox, type SandboxToolOptions } from '../sandbox-tool.js';
import { createPythonRuntime, DEFAULT_PYTHON_MODULES, type PythonRuntimeOptions } from './python-runtime.js';

/** Options of {@link createExecutePythonTool}: the sandbox limits and the Python runtime's options. */
export interface ExecutePythonToolOptions extends SandboxToolOptions, PythonRuntimeOptions {}

/** The arguments of `execute_python`. */
export type ExecutePythonArgs = {
  code: string;
};

/**
 * The `execute_python` tool: runs a Python 3 program in a sandbox (Pyodide in an isolated child
 * process, see {@link SandboxPool}) and returns `{stdout, stderr, result?}`, where `result` is the
 * value of the last expression (JSON data, or its `repr`), plus `truncated: true` when output was cut.
 *
 * Limits (defaults): 5 s, 50 MB of memory, imports from the allowlist only (`json`, `re`, `typing`,
 * `math`, `datetime`; `allowedModules` changes it), 20 000 characters of stdout and of stderr, no
 * files, network, subprocesses or JavaScript bridge. An exception is `EXECUTION_FAILED` with the
 * traceback; going over the time limit is `TIMEOUT`; over the memory limit, `EXECUTION_FAILED`.
 *
 * The pool starts on the first call (or pass `sandbox` to share one and control its lifetime). On a
 * host where no network namespace can be made, every call fails with a message saying how to enable
 * one, unless `allowNetwork` is set.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry();
 * registry.register(createExecutePythonTool());
 * await registry.call('execute_python', { code: 'import math\nprint(math.factorial(20))\nmath.pi' });
 * // data: { stdout: '2432902008176640000\n', stderr: '', result: 3.141592653589793 }
 * ```
 */
export function createExecutePythonTool(options: ExecutePythonToolOptions = {}): ToolSpec<ExecutePythonArgs> {
  const allowedModules = [...(options.allowedModules ?? DEFAULT_PYTHON_MODULES)].sort();
  const runtimeOptions: PythonRuntimeOptions = { allowedModules };
  if (options.snapshotDir !== undefined) runtimeOptions.snapshotDir = options.snapshotDir;
  if (options.pyodideDir !== undefined) runtimeOptions.pyodideDir = options.pyodideDir;
  // Check the options now (a bad module name throws here), not on the first call.
  if (options.sandbox === undefined) createPythonRuntime(runtimeOptions);
  return defineCodeTool(
    {
      name: 'execute_python',
      title: 'Execute Python',
      description: ({ seconds, memoryMb }) =>
        `Run a self-contained Python 3 program in an isolated sandbox and return what it printed (stdout, stderr) and the value of its last expression (result). Modules that can be imported: ${allowedModules.join(', ') || 'none'}. No files, network, subprocesses or package installs. Limits: ${seconds} s, ${memoryMb} MB of memory; long output is cut.`,
      whenToUse:
        'For exact computation on data you already have: arithmetic over many values, parsing, sorting, dates, regular expressions, checking logic. Put the data in the code and print the answer or end with an expression. Not for fetching data or reading files.',
      tags: ['python', 'code', 'execute', 'run', 'sandbox', 'compute', 'script'],
      cli: 'python',
      codeDescription: 'The Python program. print() what you need, or end with an expression whose value is returned.',
      language: 'Python',
      mediaType: 'text/x-python',
      allowedModules,
    },
    lazySandbox(() => createPythonRuntime(runtimeOptions), options),
    options,
  );
}
