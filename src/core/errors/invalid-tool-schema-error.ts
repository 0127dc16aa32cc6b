import { ToolshedError } from './toolshed-error.js';

/**
 * Thrown (and turned into an `EXECUTION_FAILED` result) when a tool's own input or output schema does
 * not compile: a fault in the definition, not in the arguments. Dispatch recognises it by `instanceof`.
 *
 * @example
 * ```ts
 * throw new InvalidToolSchemaError("Tool 'add' has an invalid input schema: ...");
 * ```
 */
export class InvalidToolSchemaError extends ToolshedError<'INVALID_SCHEMA'> {
  constructor(message: string) {
    super('INVALID_SCHEMA', message);
    this.name = 'InvalidToolSchemaError';
  }
}
