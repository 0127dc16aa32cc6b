import { z } from 'zod';
import { defineTool } from '../core/define-tool.js';
import { ToolResult } from '../core/tool-result.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { withSpan } from '../core/tracing.js';
import type { Sandbox, SandboxFailure, SandboxRunResult } from './sandbox.js';
import type { SandboxIsolation } from './sandbox-isolation.js';
import { SandboxPool } from './sandbox-pool.js';
import type { SandboxRuntime } from './sandbox-runtime.js';

/** Options every code-execution tool shares (`createExecutePythonTool`, `createExecuteJavascriptTool`). */
export interface SandboxToolOptions {
  /**
   * The sandbox to run in; the pool's own limits apply and the caller closes it. Default: a
   * {@link SandboxPool} made from the options below on the first call, shared by every call of the
   * tool; its processes die with the host process.
   */
  sandbox?: Sandbox;
  /** Sandbox processes kept warm (default 2). */
  size?: number;
  /** Time limit of a run in milliseconds (default 5 000). */
  timeoutMs?: number;
  /** Memory the code may use, in bytes (default 50 MB). */
  memoryLimitBytes?: number;
  /** Characters of stdout, of stderr and of the result kept (default 20 000), cut head + tail with a marker. */
  maxOutputChars?: number;
  /**
   * Calls one sandbox process may run, all of one tenant, before it is replaced (default: 1 for
   * Python, a fresh process for every call; 100 for JavaScript, a fresh QuickJS runtime every call).
   */
  maxRunsPerSandbox?: number;
  /** Run without a network namespace when the host cannot make one (default false: refuse to start). */
  allowNetwork?: boolean;
  /** How processes are wrapped (default: namespaces via util-linux). */
  isolation?: SandboxIsolation;
  /** Longest `code` argument accepted, in characters (default 100 000). */
  maxCodeChars?: number;
}

/** What a successful run returns to the model. */
export interface CodeRunData {
  stdout: string;
  stderr: string;
  /** The value of the last expression, when there is one. */
  result?: unknown;
  /** Present (true) when output or the result was cut to the limit. */
  truncated?: true;
}

/** A sandbox made on first use from the tool options (one per tool instance). */
export function lazySandbox(runtime: () => SandboxRuntime, options: SandboxToolOptions): () => Sandbox {
  let sandbox = options.sandbox;
  return () => {
    sandbox ??= new SandboxPool({
      runtime: runtime(),
      ...(options.size === undefined ? {} : { size: options.size }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.memoryLimitBytes === undefined ? {} : { memoryLimitBytes: options.memoryLimitBytes }),
      ...(options.maxOutputChars === undefined ? {} : { maxOutputChars: options.maxOutputChars }),
      ...(options.maxRunsPerSandbox === undefined ? {} : { maxRunsPerSandbox: options.maxRunsPerSandbox }),
      ...(options.allowNetwork === undefined ? {} : { allowNetwork: options.allowNetwork }),
      ...(options.isolation === undefined ? {} : { isolation: options.isolation }),
    });
    return sandbox;
  };
}

/** What sets one code-execution tool apart; its limits, input, annotations and handler are shared. */
export interface CodeToolShape {
  name: string;
  title: string;
  /** The description, given the limits the tool's options set. */
  description(limits: { seconds: number; memoryMb: number }): string;
  whenToUse: string;
  tags: string[];
  cli: string;
  /** What the `code` argument is, as the model reads it. */
  codeDescription: string;
  /** The language's name in error hints. */
  language: string;
  /**
   * The media type of the code, set as `contentMediaType` on the `code` property (`text/x-python`,
   * `text/javascript`): clients such as the web catalog give the field a code editor.
   */
  mediaType: string;
  /** The modules the code may import, named in the hint when an import is refused. */
  allowedModules?: readonly string[];
  /**
   * A hint for an exception a model often causes in this language (a Node API the sandbox lacks,
   * top-level `await`), given the failure and the code; `undefined` for the usual "fix the code".
   */
  exceptionHint?(failure: SandboxFailure, code: string): string | undefined;
}

/**
 * A code-execution tool (`execute_python`, `execute_javascript`): `{code}` in (1 to `maxCodeChars`
 * characters), the run's outcome out as {@link sandboxToolResult}. Read-only and closed-world; its call
 * deadline is the run's time limit plus a minute, so waiting for a free or restarting sandbox does
 * not cut the call.
 *
 * @example
 * ```ts
 * const tool = defineCodeTool(shape, lazySandbox(() => createJavascriptRuntime(), options), options);
 * ```
 */
export function defineCodeTool(
  shape: CodeToolShape,
  sandbox: () => Sandbox,
  options: SandboxToolOptions,
): ToolSpec<{ code: string }> {
  const runMs = options.timeoutMs ?? 5_000;
  const memoryMb = Math.round((options.memoryLimitBytes ?? 50 * 2 ** 20) / 2 ** 20);
  return defineTool({
    name: shape.name,
    title: shape.title,
    description: shape.description({ seconds: runMs / 1000, memoryMb }),
    whenToUse: shape.whenToUse,
    category: 'code',
    tags: shape.tags,
    annotations: { readOnly: true, destructive: false, idempotent: false, openWorld: false },
    cli: shape.cli,
    timeoutMs: runMs + 60_000,
    input: z.strictObject({
      code: z
        .string()
        .min(1)
        .max(options.maxCodeChars ?? 100_000)
        .describe(shape.codeDescription)
        .meta({ contentMediaType: shape.mediaType }),
    }),
    handler: async ({ code }, context) => {
      const outcome = await withSpan(
        `sandbox.run ${shape.language.toLowerCase()}`,
        { 'toolshed.sandbox.language': shape.language.toLowerCase(), 'toolshed.sandbox.code_chars': code.length },
        async (span) => {
          const ran = await sandbox().run(code, { signal: context.signal });
          span?.setAttribute('toolshed.sandbox.outcome', ran.ok ? 'ok' : ran.reason);
          span?.setAttribute('toolshed.sandbox.duration_ms', ran.durationMs);
          return ran;
        },
      );
      const hint = outcome.ok || outcome.reason !== 'exception' ? undefined : shape.exceptionHint?.(outcome, code);
      return sandboxToolResult(outcome, shape.language, shape.allowedModules, hint);
    },
  });
}

const OUTPUT_IN_MESSAGE = 2_000;

/**
 * The {@link ToolResult} for a sandbox outcome: success data `{stdout, stderr, result?, truncated?}`,
 * or an error a model can act on — `EXECUTION_FAILED` for exceptions, memory and crashes (with the
 * traceback and the output printed before the failure), `TIMEOUT`, `CANCELLED`, `RATE_LIMITED` when
 * the pool is busy. Failures are not retryable unless retrying can help. An exception's hint is
 * `exceptionHint` when given (see `CodeToolShape.exceptionHint`).
 *
 * @example
 * ```ts
 * const outcome = await pool.run('1 / 0');
 * toModelText(sandboxToolResult(outcome, 'Python', ['json']));
 * // "Error [EXECUTION_FAILED]: Python raised ZeroDivisionError: division by zero (line 1).\nTraceback ..."
 * ```
 */
export function sandboxToolResult(
  outcome: SandboxRunResult,
  language: string,
  allowedModules?: readonly string[],
  exceptionHint?: string,
): ToolResult {
  const metadata = { sandboxMs: Math.round(outcome.durationMs * 10) / 10 };
  if (outcome.ok) {
    const data: CodeRunData = { stdout: outcome.stdout, stderr: outcome.stderr };
    if (Object.hasOwn(outcome, 'result')) data.result = outcome.result;
    if (outcome.truncated) data.truncated = true;
    return ToolResult.success(data, metadata);
  }
  const details: Record<string, unknown> = {
    reason: outcome.reason,
    stdout: outcome.stdout,
    stderr: outcome.stderr,
  };
  for (const key of ['errorType', 'traceback', 'line'] as const) {
    if (outcome[key] !== undefined) details[key] = outcome[key];
  }
  const printed = [
    outcome.stdout === '' ? '' : `\nOutput before the error:\n${clip(outcome.stdout)}`,
    outcome.stderr === '' ? '' : `\nError output:\n${clip(outcome.stderr)}`,
  ].join('');
  const extra = { details, metadata };
  switch (outcome.reason) {
    case 'exception': {
      const traceback = outcome.traceback === undefined ? '' : `\n${outcome.traceback}`;
      const notAllowed = /module '[^']+' is not allowed in the sandbox/.test(outcome.message);
      return ToolResult.error('EXECUTION_FAILED', `${outcome.message}${traceback}${printed}`, {
        ...extra,
        retryable: false,
        hint: notAllowed
          ? `Only these modules can be imported: ${(allowedModules ?? []).join(', ') || 'none'}; write the rest in plain ${language}.`
          : (exceptionHint ?? 'Fix the code and run it again.'),
      });
    }
    case 'memory':
      return ToolResult.error('EXECUTION_FAILED', `${outcome.message}${printed}`, {
        ...extra,
        retryable: false,
        hint: 'Use less memory: process the data in smaller pieces instead of building huge lists or strings.',
      });
    case 'timeout':
      return ToolResult.error('TIMEOUT', `${outcome.message}${printed}`, {
        ...extra,
        retryable: false,
        hint: 'Look for an infinite loop, or do less work per call.',
      });
    case 'crashed':
      return ToolResult.error('EXECUTION_FAILED', `${outcome.message}${printed}`, {
        ...extra,
        retryable: false,
        hint: `The code did something the sandbox does not allow (files, processes, network, the host's JavaScript) or broke the ${language} runtime; change the code and call again.`,
      });
    case 'cancelled':
      return ToolResult.error('CANCELLED', outcome.message, extra);
    case 'busy':
      return ToolResult.error('RATE_LIMITED', outcome.message, { ...extra, retryable: true });
    case 'unavailable':
      return ToolResult.error('EXECUTION_FAILED', outcome.message, {
        ...extra,
        retryable: false,
        hint: `${language} code cannot run on this host until the sandbox can start; tell the user.`,
      });
    default: {
      const unreachable: never = outcome.reason;
      return unreachable;
    }
  }
}

function clip(text: string): string {
  return text.length <= OUTPUT_IN_MESSAGE
    ? text.replace(/\n$/, '')
    : `${text.slice(0, OUTPUT_IN_MESSAGE)}\n[... ${text.length - OUTPUT_IN_MESSAGE} more characters in details ...]`;
}
