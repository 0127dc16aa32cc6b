import { StoreError } from './store-error.js';

/** The kinds of rows the store's typed errors name. */
export type StoreResource = 'workspace' | 'token' | 'tool' | 'agent' | 'attachment' | 'approval';

/**
 * A workspace, agent, tool, attachment or approval does not exist — or belongs to another workspace,
 * which callers must not be able to tell apart (REST: 404 `NOT_FOUND`).
 *
 * @example
 * ```ts
 * try {
 *   await store.attachments.attach('default', 'no_such_agent', 'read_file');
 * } catch (error) {
 *   if (StoreNotFoundError.isInstance(error)) console.log(error.resource); // 'agent'
 * }
 * ```
 */
export class StoreNotFoundError extends StoreError {
  /** What kind of row is missing. */
  readonly resource: StoreResource;
  /** The id that was looked up. */
  readonly id: string;

  constructor(resource: StoreResource, id: string, message: string, options?: { cause?: unknown }) {
    super('NOT_FOUND', message, options);
    this.name = 'StoreNotFoundError';
    this.resource = resource;
    this.id = id;
  }

  /** True when `value` is a store not-found error, from this or any other copy of the package. */
  static override isInstance(value: unknown): value is StoreNotFoundError {
    return StoreError.isInstance(value) && value.code === 'NOT_FOUND';
  }
}
