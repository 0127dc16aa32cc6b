import { isBranded, ToolshedError } from '../core/errors/toolshed-error.js';

/**
 * Why `toolshed extract` refused a source file or an output folder.
 *
 * - `FILE_NOT_FOUND` — the source file does not exist, is a folder, or is not TypeScript.
 * - `SYNTAX_ERROR` — the source file does not parse.
 * - `NO_TOOLS` — the file exports no function tagged `@tool`.
 * - `MISSING_SUMMARY` — a tagged function has no JSDoc summary to become the tool's description.
 * - `INVALID_TAG` — a tag has a value it cannot take (`@timeout soon`, `@category Email`).
 * - `INVALID_NAME` — the tool name derived from the function (or given by `@tool NAME`) is not a valid tool name.
 * - `DUPLICATE_NAME` — two functions make the same tool name.
 * - `UNSUPPORTED_SIGNATURE` — the parameter list has no JSON form (overloads, rest or unannotated parameters).
 * - `UNSUPPORTED_TYPE` — a parameter's type has no JSON Schema form (functions, symbols, generics, recursion).
 * - `OUTPUT_CONFLICT` — writing would overwrite a file that `toolshed extract` did not generate from this source.
 * - `MULTIPLE` — several of the above; `errors` lists each.
 */
export type ExtractErrorReason =
  | 'FILE_NOT_FOUND'
  | 'SYNTAX_ERROR'
  | 'NO_TOOLS'
  | 'MISSING_SUMMARY'
  | 'INVALID_TAG'
  | 'INVALID_NAME'
  | 'DUPLICATE_NAME'
  | 'UNSUPPORTED_SIGNATURE'
  | 'UNSUPPORTED_TYPE'
  | 'OUTPUT_CONFLICT'
  | 'MULTIPLE';

/** Where an extraction problem is and what it concerns; lines and columns are 1-based. */
export interface ExtractErrorDetails {
  file?: string;
  line?: number;
  column?: number;
  /** The exported function at fault. */
  functionName?: string;
  /** The parameter at fault, as a path into the arguments (`filter.labels[]`). */
  parameter?: string;
  cause?: unknown;
  errors?: readonly ExtractError[];
}

const brand = Symbol.for('toolshed.ExtractError');

/**
 * Thrown by `extractTools`, `writeDefinitions` and `runExtract` when a TypeScript source cannot become
 * tool definitions. Its `code` is `INVALID_DEFINITION` (a definition in code that breaks the tool
 * model); `reason` says which rule it broke. The message starts with `file:line:col:` when the problem
 * has a place in a file.
 *
 * @example
 * ```ts
 * try {
 *   await extractTools('src/tools.ts');
 * } catch (error) {
 *   if (ExtractError.isInstance(error)) for (const each of error.errors) console.error(each.message);
 * }
 * ```
 */
export class ExtractError extends ToolshedError<'INVALID_DEFINITION'> {
  readonly [brand] = true;
  readonly reason: ExtractErrorReason;
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly functionName: string | undefined;
  readonly parameter: string | undefined;
  /** Every problem when `reason` is `MULTIPLE`; `[this]` otherwise. */
  readonly errors: readonly ExtractError[];

  constructor(reason: ExtractErrorReason, message: string, details: ExtractErrorDetails = {}) {
    super(
      'INVALID_DEFINITION',
      withLocation(message, details),
      details.cause === undefined ? undefined : { cause: details.cause },
    );
    this.name = 'ExtractError';
    this.reason = reason;
    this.file = details.file;
    this.line = details.line;
    this.column = details.column;
    this.functionName = details.functionName;
    this.parameter = details.parameter;
    this.errors = details.errors ?? [this];
  }

  /** True when `value` is an `ExtractError` from any copy of the package. */
  static override isInstance(value: unknown): value is ExtractError {
    return isBranded(value, brand);
  }
}

/**
 * One error for a list of problems: the problem itself when there is one, else a `MULTIPLE` error
 * whose message lists them all.
 *
 * @example
 * ```ts
 * throw combineExtractErrors(problems, 'src/tools.ts'); // '2 problems stop tool extraction from src/tools.ts:\n  ...'
 * ```
 */
export function combineExtractErrors(errors: readonly ExtractError[], file: string): ExtractError {
  if (errors.length === 1) return errors[0]!;
  return new ExtractError(
    'MULTIPLE',
    `${errors.length} problems stop tool extraction from ${file}:\n${errors.map((error) => `  ${error.message}`).join('\n')}`,
    { errors },
  );
}

function withLocation(message: string, details: ExtractErrorDetails): string {
  if (details.file === undefined) return message;
  let prefix = details.file;
  if (details.line !== undefined) prefix += `:${details.line}:${details.column ?? 1}`;
  return `${prefix}: ${message}`;
}
