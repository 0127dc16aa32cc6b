import { StoreError } from './store-error.js';
import type { StoreResource } from './store-not-found-error.js';

/**
 * The row already exists: a taken workspace, agent or tool id, an attachment that is already there, or
 * an approval that was already decided (REST: 409 `ALREADY_EXISTS`).
 *
 * @example
 * ```ts
 * try {
 *   await store.attachments.attach('default', 'research', 'read_file');
 * } catch (error) {
 *   if (StoreConflictError.isInstance(error)) console.log(`${error.resource} ${error.id} exists`);
 * }
 * ```
 */
export class StoreConflictError extends StoreError {
  /** What kind of row collided. */
  readonly resource: StoreResource;
  /** The id that collided (`agentId/toolId` for an attachment). */
  readonly id: string;

  constructor(resource: StoreResource, id: string, message: string, options?: { cause?: unknown }) {
    super('CONFLICT', message, options);
    this.name = 'StoreConflictError';
    this.resource = resource;
    this.id = id;
  }

  /** True when `value` is a store conflict error, from this or any other copy of the package. */
  static override isInstance(value: unknown): value is StoreConflictError {
    return StoreError.isInstance(value) && value.code === 'CONFLICT';
  }
}
