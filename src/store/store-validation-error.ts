import { StoreError } from './store-error.js';

/**
 * An argument is malformed: an id that breaks its pattern, a value of the wrong type, or JSON over
 * its size limit (REST: 400 `VALIDATION_ERROR`). Nothing was written.
 *
 * @example
 * ```ts
 * try {
 *   await store.attachments.attach('default', 'research', 'read_file', { blob: 'x'.repeat(70_000) });
 * } catch (error) {
 *   if (StoreValidationError.isInstance(error)) console.log(error.field); // 'config'
 * }
 * ```
 */
export class StoreValidationError extends StoreError {
  /** The argument or field that was refused (`config`, `toolId`, `limit`, ...). */
  readonly field: string;

  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super('VALIDATION', message, options);
    this.name = 'StoreValidationError';
    this.field = field;
  }

  /** True when `value` is a store validation error, from this or any other copy of the package. */
  static override isInstance(value: unknown): value is StoreValidationError {
    return StoreError.isInstance(value) && value.code === 'VALIDATION';
  }
}
