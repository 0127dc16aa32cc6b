import type { ToolFailure } from '../tool-result.js';
import { ToolshedError } from './toolshed-error.js';

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
export class ToolCallError extends ToolshedError {
  readonly result: ToolFailure;

  constructor(message: string, result: ToolFailure) {
    super('TOOL_CALL_FAILED', message);
    this.name = 'ToolCallError';
    this.result = result;
  }

  /** True when `value` is a `ToolCallError` from any copy of the package. */
  static override isInstance(value: unknown): value is ToolCallError {
    return ToolshedError.isInstance(value) && value.name === 'ToolCallError';
  }
}
