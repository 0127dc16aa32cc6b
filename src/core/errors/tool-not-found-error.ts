import { isBranded, ToolshedError } from './toolshed-error.js';

const brand = Symbol.for('toolshed.ToolNotFoundError');

/**
 * Thrown by `registry.get(name)` (and a strict `subset`) for a name the registry does not hold.
 * `registry.call` never throws it: it returns a `TOOL_NOT_FOUND` result with the same message.
 *
 * @example
 * ```ts
 * try {
 *   registry.get('serach');
 * } catch (error) {
 *   if (ToolNotFoundError.isInstance(error)) console.log(error.suggestions); // ['search']
 * }
 * ```
 */
export class ToolNotFoundError extends ToolshedError<'TOOL_NOT_FOUND'> {
  readonly [brand] = true;
  readonly toolName: string;
  /** Up to three registered names closest to the one asked for, best first. */
  readonly suggestions: readonly string[];

  constructor(toolName: string, message: string, suggestions: readonly string[]) {
    super('TOOL_NOT_FOUND', message);
    this.name = 'ToolNotFoundError';
    this.toolName = toolName;
    this.suggestions = suggestions;
  }

  /** True when `value` is a `ToolNotFoundError` from any copy of the package. */
  static override isInstance(value: unknown): value is ToolNotFoundError {
    return isBranded(value, brand);
  }
}
