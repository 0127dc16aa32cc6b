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
export type ToolshedErrorCode = (typeof TOOLSHED_ERROR_CODES)[number];

/**
 * The codes of {@link ToolshedErrorCode}: the registry's own errors, written for people. The other
 * error classes (store, server, sandbox, built-ins...) extend `ToolshedError` with codes of their own.
 *
 * @example
 * ```ts
 * if (ToolshedError.isInstance(error) && isToolshedErrorCode(error.code)) console.error(error.message);
 * ```
 */
export const TOOLSHED_ERROR_CODES = [
  'DUPLICATE_TOOL',
  'INVALID_DEFINITION',
  'HANDLER_RESOLUTION_FAILED',
  'LOAD_FAILED',
  'TOOL_NOT_FOUND',
  'TOOL_CALL_FAILED',
  'APPROVAL_INVALID',
] as const;

const registryCodes: ReadonlySet<string> = new Set(TOOLSHED_ERROR_CODES);

/**
 * Whether `code` is one of the registry's {@link ToolshedErrorCode}s.
 *
 * @example
 * ```ts
 * isToolshedErrorCode('DUPLICATE_TOOL'); // true
 * isToolshedErrorCode('NOT_FOUND'); // false (a store error's code)
 * ```
 */
export function isToolshedErrorCode(code: string): code is ToolshedErrorCode {
  return registryCodes.has(code);
}

/**
 * Base class of every error toolshed throws, with a `code` saying what went wrong. The registry's
 * errors use {@link ToolshedErrorCode}; other parts extend it with codes of their own
 * (`class StoreError extends ToolshedError<StoreErrorCode>`). Recognise an error by `instanceof`, its
 * class's `isInstance` or its `code`, never by its `name`.
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
export class ToolshedError<Code extends string = ToolshedErrorCode> extends Error {
  readonly [marker] = true;
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ToolshedError';
    this.code = code;
  }

  /** True when `value` is a toolshed error, from this or any other copy of the package. */
  static isInstance(value: unknown): value is ToolshedError<string> {
    return isBranded(value, marker);
  }
}

/**
 * Whether `value` carries `brand` (a `Symbol.for` key set to `true`): how an error class recognises its
 * instances from any copy of the package, where `instanceof` sees only its own.
 *
 * @example
 * ```ts
 * const brand = Symbol.for('toolshed.StoreError');
 * isBranded({ [brand]: true }, brand); // true
 * ```
 */
export function isBranded(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}
