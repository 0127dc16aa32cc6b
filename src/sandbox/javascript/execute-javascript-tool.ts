import type { ToolSpec } from '../../core/tool-spec.js';
import type { SandboxFailure } from '../sandbox.js';
import { defineCodeTool, lazySandbox, type SandboxToolOptions } from '../sandbox-tool.js';
import { createJavascriptRuntime, type JavascriptRuntimeOptions } from './javascript-runtime.js';

/** Options of {@link createExecuteJavascriptTool}: the sandbox limits and the JavaScript runtime's options. */
export interface ExecuteJavascriptToolOptions extends SandboxToolOptions, JavascriptRuntimeOptions {}

/** The arguments of `execute_javascript`. */
export type ExecuteJavascriptArgs = {
  code: string;
};

/**
 * The `execute_javascript` tool: runs a JavaScript (ES2023) script in QuickJS inside an isolated
 * child process (see {@link SandboxPool}) and returns `{stdout, stderr, result?}`: what
 * `console.log` / `console.error` printed and the script's completion value (JSON data, or its text),
 * plus `truncated: true` when output was cut. A script whose value is a promise is settled first.
 *
 * Limits (defaults): 5 s, 50 MB of memory, a 256 KB stack, 20 000 characters of stdout and of
 * stderr. The code sees ECMAScript built-ins and `console` only: no host objects, `require`, `fetch`,
 * timers or files. A throw is `EXECUTION_FAILED` with the stack; the time limit is `TIMEOUT`.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry();
 * registry.register(createExecuteJavascriptTool());
 * await registry.call('execute_javascript', { code: 'console.log("hi"); [3, 1, 2].sort()' });
 * // data: { stdout: 'hi\n', stderr: '', result: [1, 2, 3] }
 * ```
 */
export function createExecuteJavascriptTool(
  options: ExecuteJavascriptToolOptions = {},
): ToolSpec<ExecuteJavascriptArgs> {
  const runtimeOptions: JavascriptRuntimeOptions = {};
  if (options.quickjsDir !== undefined) runtimeOptions.quickjsDir = options.quickjsDir;
  return defineCodeTool(
    {
      name: 'execute_javascript',
      title: 'Execute JavaScript',
      description: ({ seconds, memoryMb }) =>
        `Run a self-contained JavaScript script in an isolated sandbox (QuickJS, ECMAScript 2023) and return what console.log / console.error printed (stdout, stderr) and the value of its last expression (result). Only the language's built-ins exist: no require, import, fetch, timers, files or DOM. Limits: ${seconds} s, ${memoryMb} MB of memory; long output is cut.`,
      whenToUse:
        'For exact computation or data transformation on data you already have (JSON reshaping, string and date handling, checking logic) when JavaScript is the natural language for it. Put the data in the code and log the answer or end with an expression.',
      tags: ['javascript', 'js', 'code', 'execute', 'run', 'sandbox', 'compute', 'script'],
      cli: 'js',
      codeDescription:
        'The JavaScript code. console.log() what you need, or end with an expression whose value is returned.',
      language: 'JavaScript',
      mediaType: 'text/javascript',
      exceptionHint: javascriptExceptionHint,
    },
    lazySandbox(() => createJavascriptRuntime(runtimeOptions), options),
    options,
  );
}

/** Names of Node and browser APIs a model reaches for that the sandbox does not have. */
const HOST_APIS =
  /'(require|fetch|process|Buffer|setTimeout|setInterval|setImmediate|XMLHttpRequest|module|exports|window|document)' is not defined/;

/**
 * The hint for a JavaScript exception models often cause: a Node or browser API, an `import`, or
 * top-level `await`, none of which a QuickJS script has; `undefined` for any other exception.
 *
 * @example
 * ```ts
 * javascriptExceptionHint({ errorType: 'ReferenceError', message: "JavaScript threw ReferenceError: 'fetch' is not defined (line 1)." }, 'fetch(url)');
 * // 'The sandbox runs plain JavaScript: ...'
 * ```
 */
export function javascriptExceptionHint(
  failure: Pick<SandboxFailure, 'errorType' | 'message'>,
  code: string,
): string | undefined {
  if (failure.errorType === 'ReferenceError' && HOST_APIS.test(failure.message)) {
    return 'The sandbox runs plain JavaScript: there is no require, fetch, process, Buffer, timer or DOM. Compute with the language and its built-ins (Math, JSON, Date, RegExp, ...), with the data in the code.';
  }
  if (failure.errorType !== 'SyntaxError') return undefined;
  if (/^\s*import\b(?!\s*\()/m.test(code)) {
    return "The sandbox runs one script without modules: 'import' is not available. Use the language's built-ins, with the data in the code.";
  }
  if (/\bawait\b/.test(code)) {
    return 'Top-level await is not supported: wrap the code in (async () => { ...; return value; })(); its promise is awaited and its value returned.';
  }
  return undefined;
}
