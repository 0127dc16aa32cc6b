const marker = Symbol.for('toolshed.error');

/**
 * Codes of the errors toolshed throws (programmer and configuration errors; tool-level failures are
 * returned as {@link ToolResult} values instead).
 *
 * - `DUPLICATE_TOOL` — a tool with that name is already registered and `allowOverride` was not set.
 * - `INVALID_DEFINITION` — a tool definition (code, YAML or database row) breaks the tool model.
 * - `HANDLER_RESOLUTION_FAILED` — a declarative handler reference could not be loaded or is not callable.
 * - `LOAD_FAILED` — a batch load (a YAML directory) failed; `errors` lists every failing file.
 * - `TOOL_NOT_FOUND` — `get()` or `subset()` named a tool the registry does not have.
 * - `TOOL_CALL_FAILED` — `callOrThrow()` got a result other than success.
 * - `APPROVAL_INVALID` — an approval id is unknown, already used, or its arguments were tampered with.
 */
export type ToolshedErrorCode =
  | 'DUPLICATE_TOOL'
  | 'INVALID_DEFINITION'
  | 'HANDLER_RESOLUTION_FAILED'
  | 'LOAD_FAILED'
  | 'TOOL_NOT_FOUND'
  | 'TOOL_CALL_FAILED'
  | 'APPROVAL_INVALID';

/**
 * Base class of every error toolshed throws.
 *
 * `ToolshedError.isInstance(value)` recognises errors from any copy of the package (a duplicated
 * install), where `instanceof` would not.
 *
 * @example
 * ```ts
 * try {
 *   registry.register(tool);
 * } catch (error) {
 *   if (ToolshedError.isInstance(error) && error.code === 'DUPLICATE_TOOL') console.log(error.message);
 * }
 * ```
 */
export class ToolshedError extends Error {
  readonly [marker] = true;
  readonly code: ToolshedErrorCode;

  constructor(code: ToolshedErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolshedError';
    this.code = code;
  }

  /** True when `value` is a toolshed error, from this or any other copy of the package. */
  static isInstance(value: unknown): value is ToolshedError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
