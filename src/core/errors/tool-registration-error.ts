import { isBranded, ToolshedError, type ToolshedErrorCode } from './toolshed-error.js';

/** Where in a source file a registration problem is. Lines and columns are 1-based. */
export interface SourceLocation {
  file?: string;
  line?: number;
  column?: number;
}

const brand = Symbol.for('toolshed.ToolRegistrationError');

/** The codes a {@link ToolRegistrationError} has. */
type RegistrationErrorCode = Extract<
  ToolshedErrorCode,
  'DUPLICATE_TOOL' | 'INVALID_DEFINITION' | 'HANDLER_RESOLUTION_FAILED' | 'LOAD_FAILED'
>;

/**
 * Thrown when a tool cannot be registered: a taken name, an invalid definition, a handler that cannot
 * be resolved, or a batch load in which some files failed (`errors` then lists each failure).
 *
 * The message starts with `file:line:col:` when the problem has a place in a file, so editors and CI
 * logs link straight to it.
 *
 * @example
 * ```ts
 * try {
 *   await registry.loadYamlDirectory('./tools');
 * } catch (error) {
 *   if (ToolRegistrationError.isInstance(error)) for (const e of error.errors) console.error(e.message);
 * }
 * ```
 */
export class ToolRegistrationError extends ToolshedError<RegistrationErrorCode> {
  readonly [brand] = true;
  readonly toolName: string | undefined;
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  /** The field of the definition at fault (`parameters.properties.limit.type`), when known. */
  readonly field: string | undefined;
  /** Every failure of a batch load (`code === 'LOAD_FAILED'`); `[this]` otherwise. */
  readonly errors: readonly ToolRegistrationError[];

  constructor(
    code: RegistrationErrorCode,
    message: string,
    details: SourceLocation & {
      toolName?: string;
      field?: string;
      cause?: unknown;
      errors?: readonly ToolRegistrationError[];
    } = {},
  ) {
    super(code, withLocation(message, details), details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ToolRegistrationError';
    this.toolName = details.toolName;
    this.file = details.file;
    this.line = details.line;
    this.column = details.column;
    this.field = details.field;
    this.errors = details.errors ?? [this];
  }

  /** True when `value` is a `ToolRegistrationError` from any copy of the package. */
  static override isInstance(value: unknown): value is ToolRegistrationError {
    return isBranded(value, brand);
  }
}

function withLocation(message: string, location: SourceLocation): string {
  if (location.file === undefined) return message;
  let prefix = location.file;
  if (location.line !== undefined) prefix += `:${location.line}:${location.column ?? 1}`;
  return `${prefix}: ${message}`;
}
