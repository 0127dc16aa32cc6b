import type { ContentBlock } from './content-block.js';
import { type ErrorCode, isRetryable } from './errors/error-code.js';

/** What toolshed records about a call, beside its outcome. */
export interface ResultMetadata {
  /** The canonical name of the tool called (as asked for, when no tool had that name). */
  tool: string;
  /** Wall time of the call in milliseconds, lookup to result. */
  durationMs: number;
  /** Arguments the tool does not accept, dropped before the call. */
  droppedArgs?: string[];
  /** True when the output was cut to the tool's `maxOutputChars`. */
  truncated?: boolean;
  /** The handle of the full output, for `read_tool_output`, when it was truncated. */
  outputHandle?: string;
  /** The id the caller gave the call (a model's tool-call id). */
  toolCallId?: string;
  [key: string]: unknown;
}

/** Why a call failed, in words a model can act on. */
export interface ToolError {
  code: ErrorCode;
  /** One or two sentences quoting the offending value and naming the way out. */
  message: string;
  /** True when the same call may succeed if simply tried again. */
  retryable: boolean;
  /** What to do next, when there is more to say than the message. */
  hint?: string;
  /** Structured detail for programs (validation issues, the error class, ...). Not shown to models. */
  details?: unknown;
}

/** A call that succeeded. `data` is what the handler returned. */
export interface ToolSuccess {
  status: 'success';
  data: unknown;
  content?: ContentBlock[];
  metadata: ResultMetadata;
}

/** A call that failed, timed out or was cancelled. */
export interface ToolFailure {
  status: 'error' | 'timeout' | 'cancelled';
  error: ToolError;
  metadata: ResultMetadata;
}

/** A call that waits for a person to approve it; `approval.arguments` is what will run. */
export interface ToolPendingApproval {
  status: 'pending_approval';
  approval: { id: string; arguments: unknown };
  metadata: ResultMetadata;
}

/**
 * The one envelope for every outcome of a tool call: `registry.call` always resolves to one of these
 * and never throws.
 *
 * @example
 * ```ts
 * const result = await registry.call('add', { a: 1, b: 2 });
 * if (result.status === 'success') console.log(result.data);
 * else console.log(toModelText(result));
 * ```
 */
export type ToolResult = ToolSuccess | ToolFailure | ToolPendingApproval;

/** Every `status` a {@link ToolResult} can have. */
export type ToolStatus = ToolResult['status'];

const brand = Symbol.for('toolshed.result');

function branded<T extends object>(value: T): T {
  Object.defineProperty(value, brand, { value: true });
  return value;
}

function statusFor(code: ErrorCode): ToolFailure['status'] {
  if (code === 'TIMEOUT') return 'timeout';
  if (code === 'CANCELLED') return 'cancelled';
  return 'error';
}

/**
 * Builders for {@link ToolResult} values. A handler may return one of these to control the envelope
 * (content blocks, metadata, a deliberate error); any other return value is wrapped as success data.
 *
 * @example
 * ```ts
 * const readFile = defineTool({
 *   name: 'read_file',
 *   description: 'Read a file',
 *   inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
 *   handler: ({ path }) =>
 *     path === 'missing.txt'
 *       ? ToolResult.error('EXECUTION_FAILED', `File '${path}' does not exist.`, { hint: 'Call list_files first.' })
 *       : ToolResult.success({ content: 'hello' }, { bytes: 5 }),
 * });
 * ```
 */
export const ToolResult = Object.freeze({
  /** A success envelope; `metadata` is merged into the call's metadata. */
  success(data: unknown, metadata: Partial<ResultMetadata> = {}): ToolSuccess {
    return branded({ status: 'success', data, metadata: { tool: '', durationMs: 0, ...metadata } });
  },

  /** A success envelope with rich content blocks (text, image, audio, resources). */
  content(content: ContentBlock[], data?: unknown, metadata: Partial<ResultMetadata> = {}): ToolSuccess {
    return branded({ status: 'success', data, content, metadata: { tool: '', durationMs: 0, ...metadata } });
  },

  /**
   * A failure envelope; the status follows the code (`TIMEOUT` → `timeout`, `CANCELLED` →
   * `cancelled`, else `error`) and `retryable` defaults from the code.
   */
  error(
    code: ErrorCode,
    message: string,
    extra: { hint?: string; details?: unknown; retryable?: boolean; metadata?: Partial<ResultMetadata> } = {},
  ): ToolFailure {
    const error: ToolError = { code, message, retryable: extra.retryable ?? isRetryable(code) };
    if (extra.hint !== undefined) error.hint = extra.hint;
    if (extra.details !== undefined) error.details = extra.details;
    return branded({
      status: statusFor(code),
      error,
      metadata: { tool: '', durationMs: 0, ...extra.metadata },
    });
  },

  /** A pending-approval envelope. */
  pendingApproval(id: string, args: unknown, metadata: Partial<ResultMetadata> = {}): ToolPendingApproval {
    return branded({
      status: 'pending_approval',
      approval: { id, arguments: args },
      metadata: { tool: '', durationMs: 0, ...metadata },
    });
  },

  /** True for a value built by these helpers (what a handler returns to control its own envelope). */
  isToolResult(value: unknown): value is ToolResult {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
  },
});

/**
 * True when the call succeeded; narrows the result to {@link ToolSuccess}.
 *
 * @example
 * ```ts
 * const result = await registry.call('add', { a: 1, b: 2 });
 * if (isSuccess(result)) console.log(result.data);
 * ```
 */
export function isSuccess(result: ToolResult): result is ToolSuccess {
  return result.status === 'success';
}

/**
 * The text a model reads for a result: the data (a string as is, anything else as JSON), the text of
 * content blocks, or `Error [CODE]: message` followed by the hint. A success whose call sent
 * arguments the tool does not take (`metadata.droppedArgs`) ends with a note naming them, so the
 * model knows they changed nothing.
 *
 * @example
 * ```ts
 * toModelText(ToolResult.error('TIMEOUT', "Tool 'slow' timed out after 100 ms.", { hint: 'Try again.' }));
 * // "Error [TIMEOUT]: Tool 'slow' timed out after 100 ms.\nHint: Try again."
 * toModelText(await registry.call('list_files', { path: '.', recursive: true }));
 * // "Contents of /: ...\n\nNote: the argument 'recursive' was ignored: 'list_files' does not take it."
 * ```
 */
export function toModelText(result: ToolResult): string {
  const text = resultText(result);
  const note = droppedArgsNote(result);
  return note === undefined ? text : `${text}\n\n${note}`;
}

/**
 * {@link toModelText} without the note on ignored arguments: what `toolshed call` prints on stdout,
 * the note going to stderr. Not exported from the package.
 *
 * @example
 * ```ts
 * resultText(ToolResult.success({ sum: 3 }, { tool: 'add', droppedArgs: ['c'] })); // '{"sum":3}'
 * ```
 */
export function resultText(result: ToolResult): string {
  switch (result.status) {
    case 'success':
      return successText(result);
    case 'pending_approval':
      return `Approval required: the call to '${result.metadata.tool}' is waiting for a person to approve it (approval id ${result.approval.id}).`;
    case 'error':
    case 'timeout':
    case 'cancelled': {
      const text = `Error [${result.error.code}]: ${result.error.message}`;
      return result.error.hint === undefined ? text : `${text}\nHint: ${result.error.hint}`;
    }
    default: {
      const unreachable: never = result;
      return unreachable;
    }
  }
}

/**
 * The note {@link toModelText} ends a success with when the call sent arguments the tool does not
 * take (`metadata.droppedArgs`), or `undefined`. Not exported from the package: the CLI prints it apart.
 *
 * @example
 * ```ts
 * droppedArgsNote(result); // "Note: the argument 'recursive' was ignored: 'list_files' does not take it."
 * ```
 */
export function droppedArgsNote(result: ToolResult): string | undefined {
  const dropped = result.metadata.droppedArgs;
  if (result.status !== 'success' || dropped === undefined || dropped.length === 0) return undefined;
  const names = dropped.map((name) => `'${name.length > 64 ? `${name.slice(0, 61)}...` : name}'`);
  const shown = names.length > 10 ? [...names.slice(0, 10), `and ${names.length - 10} more`] : names;
  return dropped.length === 1
    ? `Note: the argument ${shown[0]} was ignored: '${result.metadata.tool}' does not take it.`
    : `Note: the arguments ${shown.join(', ')} were ignored: '${result.metadata.tool}' does not take them.`;
}

function successText(result: ToolSuccess): string {
  const { data, content } = result;
  if (data === undefined && content !== undefined) {
    return content
      .map((block) => (block.type === 'text' ? block.text : `[${block.type}${describeBlock(block)}]`))
      .join('\n');
  }
  if (typeof data === 'string') return data;
  if (data === undefined) return '';
  return stringifyData(data);
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'image':
    case 'audio':
      return ` ${block.mimeType}`;
    case 'resource':
      return ` ${block.resource.uri}`;
    case 'resource_link':
      return ` ${block.uri}`;
    case 'text':
      return '';
    default: {
      const unreachable: never = block;
      return unreachable;
    }
  }
}

/** JSON text of a value, tolerating bigints and cycles (a handler's data is not always plain JSON). */
export function stringifyData(data: unknown): string {
  try {
    return JSON.stringify(data) ?? String(data);
  } catch {
    try {
      const seen = new WeakSet<object>();
      return (
        JSON.stringify(data, (_key, value: unknown) => {
          if (typeof value === 'bigint') return value.toString();
          if (typeof value === 'object' && value !== null) {
            if (seen.has(value)) return '[Circular]';
            seen.add(value);
          }
          return value;
        }) ?? String(data)
      );
    } catch (error) {
      // Nesting deeper than the stack allows: say so rather than throw.
      return `[data that cannot be shown as JSON: ${(error as Error).message}]`;
    }
  }
}
