import { defineTool } from '../core/define-tool.js';
import type { JsonSchema } from '../core/json-schema.js';
import { ToolResult } from '../core/tool-result.js';
import type { ToolAnnotations, ToolSpec } from '../core/tool-spec.js';
import type { Sandbox, SandboxFailure, SandboxLanguage, SandboxRunResult } from '../sandbox/sandbox.js';
import { sandboxToolResult } from '../sandbox/sandbox-tool.js';
import type { ToolRecord } from '../store/index.js';
import type { RowToolFactory } from './workspace-registries.js';

/** The languages a code tool can be written in: its `type` and its row's `handler_key`. */
export const CODE_TOOL_TYPES: readonly SandboxLanguage[] = Object.freeze(['python', 'javascript']);

/** What a code tool's row keeps in `config`. */
export interface CodeToolConfig {
  type: SandboxLanguage;
  code: string;
}

/** Options of {@link createCodeTool}. */
export interface CodeToolOptions {
  /** The sandbox of the tool's language, bound to the tool's workspace (`pool.forTenant(workspaceId)`). */
  sandbox: Sandbox;
  /** The sandbox's time limit of one run in milliseconds (default 5 000), for the call's own deadline. */
  sandboxTimeoutMs?: number;
}

const DISPLAY_NAMES: Readonly<Record<SandboxLanguage, string>> = { python: 'Python', javascript: 'JavaScript' };

/**
 * The runnable tool of a code tool's row: each call runs the row's code in the sandbox and calls the
 * function named like the tool with the arguments (Python: as keyword arguments; JavaScript: one
 * object, the result awaited when it is a promise). Its JSON return value is the call's data; what
 * the code printed is in the result's metadata (`stdout`, `stderr`, cut head and tail as the sandbox cuts
 * them, with `outputTruncated: true` then). An
 * exception is `EXECUTION_FAILED` with the message and the line of the code, a run past the sandbox's
 * limits `TIMEOUT` or `EXECUTION_FAILED`, as for `execute_python` / `execute_javascript`; a return
 * value that is not JSON (a Python set, a JavaScript BigInt) is `EXECUTION_FAILED` naming it.
 *
 * The code comes first in the program the sandbox runs and the call after it, so lines in errors are
 * the code's own. Annotations default to those of the code-execution tools (read-only, closed-world).
 *
 * @example
 * ```ts
 * const record = await store.tools.get('acme', 'add');
 * const tool = createCodeTool(record, { sandbox: pool.forTenant('acme') });
 * ```
 */
export function createCodeTool(record: ToolRecord, options: CodeToolOptions): ToolSpec {
  const { type, code } = codeToolConfigOf(record);
  const language = DISPLAY_NAMES[type];
  const lineCount = code.split(/\r\n|\r|\n/).length;
  const { requiresApproval } = record.annotations as { requiresApproval?: unknown };
  return defineTool({
    name: record.id,
    ...(record.name === record.id ? {} : { title: record.name }),
    description: record.description,
    ...(record.whenToUse === null ? {} : { whenToUse: record.whenToUse }),
    ...(record.inputExamples.length === 0 ? {} : { inputExamples: record.inputExamples }),
    category: record.category,
    tags: ['code', type],
    inputSchema: record.parametersSchema as JsonSchema,
    // Waiting for a free or restarting sandbox must not cut the call (as for execute_python).
    timeoutMs: (options.sandboxTimeoutMs ?? 5_000) + 60_000,
    annotations: codeToolAnnotations(record),
    ...(requiresApproval === true ? { requiresApproval: true } : {}),
    metadata: { codeType: type },
    handler: async (args, context) => {
      const program = callProgram(type, record.id, code, args as Record<string, unknown>);
      const outcome = await options.sandbox.run(program, { signal: context.signal });
      return codeToolResult(outcome, record.id, language, lineCount);
    },
  });
}

/**
 * The hints of a code tool: those its row sets, over the defaults of the code-execution tools
 * (read-only, not destructive, not idempotent, closed-world: the sandbox reaches nothing outside).
 *
 * @example
 * ```ts
 * codeToolAnnotations(record); // { readOnly: true, destructive: false, idempotent: true, openWorld: false }
 * ```
 */
export function codeToolAnnotations(record: ToolRecord): ToolAnnotations {
  const { requiresApproval: _approval, ...annotations } = record.annotations as ToolAnnotations & {
    requiresApproval?: unknown;
  };
  return { readOnly: true, destructive: false, idempotent: false, openWorld: false, ...annotations };
}

/**
 * The `{type, code}` of a code tool's row; throws a `TypeError` for a row that is not one.
 *
 * @example
 * ```ts
 * codeToolConfigOf(record); // { type: 'python', code: 'def add(a, b):\n    return a + b\n' }
 * ```
 */
export function codeToolConfigOf(record: ToolRecord): CodeToolConfig {
  const config = record.config ?? {};
  const { type, code } = config;
  if (!CODE_TOOL_TYPES.includes(type as SandboxLanguage) || typeof code !== 'string') {
    throw new TypeError(`Tool '${record.id}' is not a code tool: its config has no 'type' and 'code'.`);
  }
  return { type: type as SandboxLanguage, code };
}

/**
 * The program one call runs: the code, then on a line of its own the call of its function with the
 * arguments written as a literal, its value wrapped in a one-element array so a value that is not
 * JSON comes back as text (the sandbox's fallback) and can be told apart.
 *
 * @example
 * ```ts
 * callProgram('python', 'add', 'def add(a, b):\n    return a + b', { a: 1, b: 2 });
 * // 'def add(a, b):\n    return a + b\n[add(**{"a": 1, "b": 2})]\n'
 * ```
 */
export function callProgram(type: SandboxLanguage, id: string, code: string, args: Record<string, unknown>): string {
  switch (type) {
    case 'python':
      return `${code}\n[${id}(**${pythonLiteral(args)})]\n`;
    case 'javascript':
      // JSON is JavaScript; the arrow is async so a function that returns a promise is awaited.
      return `${code}\n;(async () => [await ${id}(${JSON.stringify(args)})])()\n`;
    default: {
      const unreachable: never = type;
      return unreachable;
    }
  }
}

/**
 * A JSON value as a Python literal: `null`, `true` and `false` become `None`, `True` and `False`;
 * JSON's strings and numbers are Python's too (JSON.stringify writes only escapes Python reads the
 * same way).
 *
 * @example
 * ```ts
 * pythonLiteral({ a: [1, true, null], b: 'x"y' }); // '{"a": [1, True, None], "b": "x\\"y"}'
 * ```
 */
export function pythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'None';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).map(
      ([key, item]) => `${JSON.stringify(key)}: ${pythonLiteral(item)}`,
    );
    return `{${entries.join(', ')}}`;
  }
  return JSON.stringify(String(value));
}

/** The call's result: the function's value as data, or the sandbox's failure with the code's lines only. */
function codeToolResult(outcome: SandboxRunResult, id: string, language: string, lineCount: number): ToolResult {
  if (!outcome.ok) return sandboxToolResult(withoutCallLines(outcome, lineCount), language);
  const metadata: Record<string, unknown> = { sandboxMs: Math.round(outcome.durationMs * 10) / 10 };
  if (outcome.stdout !== '') metadata.stdout = outcome.stdout;
  if (outcome.stderr !== '') metadata.stderr = outcome.stderr;
  if (outcome.truncated) metadata.outputTruncated = true;
  if (Array.isArray(outcome.result) && outcome.result.length === 1) {
    return ToolResult.success(outcome.result[0], metadata);
  }
  const shown = typeof outcome.result === 'string' ? outcome.result : String(outcome.result);
  const details = { stdout: outcome.stdout, stderr: outcome.stderr };
  if (outcome.truncated && shown.startsWith('[')) {
    return ToolResult.error(
      'EXECUTION_FAILED',
      `The value '${id}' returned is longer than the sandbox's output limit as JSON.`,
      { retryable: false, hint: 'Return less data: a summary, or the first items.', details, metadata },
    );
  }
  const value = shown.startsWith('[') && shown.endsWith(']') ? shown.slice(1, -1) : shown;
  const preview = value.length > 200 ? `${value.slice(0, 200)}...` : value;
  return ToolResult.error('EXECUTION_FAILED', `The value '${id}' returned is not JSON-serializable: ${preview}.`, {
    retryable: false,
    hint: `Return ${language === 'Python' ? 'dicts, lists, strings, numbers, booleans or None' : 'objects, arrays, strings, numbers, booleans or null'}.`,
    details,
    metadata,
  });
}

/**
 * A failure raised by the call line after the code (a missing or unexpected argument, say) is shown
 * without that line: the message names no line and the traceback keeps the code's frames only.
 */
function withoutCallLines(outcome: SandboxFailure, lineCount: number): SandboxFailure {
  const line = outcome.line;
  const inCode = (text: string) => {
    const number = /^\s*line (\d+), in |code\.js:(\d+)/.exec(text);
    return number === null || Number(number[1] ?? number[2]) <= lineCount;
  };
  let traceback = outcome.traceback;
  if (traceback !== undefined) {
    const lines = traceback.split('\n');
    const kept: string[] = [];
    for (let index = 0; index < lines.length; index++) {
      const text = lines[index] as string;
      if (inCode(text)) {
        kept.push(text);
        continue;
      }
      // A Python frame is two lines: "  line N, in f" and its source.
      if (/^\s*line \d+, in /.test(text) && /^ {4}/.test(lines[index + 1] ?? '')) index++;
    }
    // A Python traceback whose only frame was the call line keeps no header.
    if (kept[0] === 'Traceback (most recent call last):' && !/^\s*line \d+, in /.test(kept[1] ?? '')) kept.shift();
    traceback = kept.join('\n');
  }
  if (line === undefined || line <= lineCount) return { ...outcome, ...(traceback === undefined ? {} : { traceback }) };
  const { line: _line, ...rest } = outcome;
  return {
    ...rest,
    message: outcome.message.replace(` (line ${line}).`, '.'),
    ...(traceback === undefined ? {} : { traceback }),
  };
}

/** The sandboxes code tools run in, per language and workspace (the service's `ServiceBuiltins` is one). */
export interface CodeToolSandboxes {
  /** The language's sandbox bound to the workspace, or `undefined` when the server runs none. */
  sandboxFor(language: SandboxLanguage, workspaceId: string): Sandbox | undefined;
  /** The time limit of one run in milliseconds. */
  readonly sandboxTimeoutMs: number | undefined;
}

/**
 * The row-tool factories of code tools, one per `handler_key` (`python`, `javascript`), for
 * `WorkspaceRegistries`' `rowTools`: each builds a row's tool on the workspace's own sandbox.
 *
 * @example
 * ```ts
 * const registries = new WorkspaceRegistries({ store, rowTools: codeToolFactories(createServiceBuiltins(store)) });
 * ```
 */
export function codeToolFactories(sandboxes: CodeToolSandboxes): Record<SandboxLanguage, RowToolFactory> {
  const factory =
    (language: SandboxLanguage): RowToolFactory =>
    (record, workspaceId) => {
      const sandbox = sandboxes.sandboxFor(language, workspaceId);
      if (sandbox === undefined) throw new TypeError(`This server runs no ${DISPLAY_NAMES[language]} sandbox.`);
      return createCodeTool(record, {
        sandbox,
        ...(sandboxes.sandboxTimeoutMs === undefined ? {} : { sandboxTimeoutMs: sandboxes.sandboxTimeoutMs }),
      });
    };
  return { python: factory('python'), javascript: factory('javascript') };
}
