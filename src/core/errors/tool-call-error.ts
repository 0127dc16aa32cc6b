import type { ToolFailure } from '../tool-result.js';
import { isBranded, ToolshedError } from './toolshed-error.js';

const brand = Symbol.for('toolshed.ToolCallError');

/**
 * Thrown by `registry.callOrThrow()` when a call does not succeed; `result` is the result that
 * `registry.call()` would have returned, and the message is the text a model would read.
 *
 * @example
 * ```ts
 * try {
 *   const sum = await registry.callOrThrow('add', { a: 1, b: 2 });
 * } catch (error) {
 *   if (ToolCallError.isInstance(error)) console.log(error.result.error.code);
 * }
 * ```
 */
export class ToolCallError extends ToolshedError<'TOOL_CALL_FAILED'> {
  readonly [brand] = true;
  readonly result: ToolFailure;

  constructor(message: string, result: ToolFailure) {
    super('TOOL_CALL_FAILED', message);
    this.name = 'ToolCallError';
    this.result = result;
  }

  /** True when `value` is a `ToolCallError` from any copy of the package. */
  static override isInstance(value: unknown): value is ToolCallError {
    return isBranded(value, brand);
  }
}
