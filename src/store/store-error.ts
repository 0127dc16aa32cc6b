import { isBranded, ToolshedError } from '../core/errors/toolshed-error.js';

const marker = Symbol.for('toolshed.storeError');

/**
 * Codes of the errors the store throws.
 *
 * - `CONFLICT` — the row already exists (a taken id, an attachment that is already there, an approval already decided).
 * - `NOT_FOUND` — the workspace, agent, tool, attachment or approval does not exist in that workspace.
 * - `VALIDATION` — an argument is malformed: a bad id, a config that is not an object or is over the size limit.
 * - `MIGRATION_FAILED` — a schema migration failed; none of the migrations of that run was applied.
 * - `UNAVAILABLE` — the database cannot be opened or reached.
 * - `READ_ONLY` — the row belongs to the service (a built-in) or to a configuration file (a synced tool,
 *   a `config` agent): the API cannot edit or delete it, or change a `config` agent's tools.
 * - `SECRET_KEY` — the key of workspace secrets is malformed, missing (PostgreSQL without
 *   `TOOLSHED_SECRET_KEY`), exposed (a key file others may read), or not the key a secret was stored with.
 */
export type StoreErrorCode =
  | 'CONFLICT'
  | 'NOT_FOUND'
  | 'VALIDATION'
  | 'MIGRATION_FAILED'
  | 'UNAVAILABLE'
  | 'READ_ONLY'
  | 'SECRET_KEY';

/**
 * Base class of every error the store throws on purpose; any other error is a database failure.
 *
 * `StoreError.isInstance(value)` recognises errors from any copy of the package, where `instanceof`
 * would not. The subclasses {@link StoreConflictError}, {@link StoreNotFoundError} and
 * {@link StoreValidationError} map to HTTP 409, 404 and 400, and {@link StoreReadOnlyError} to 409 `READ_ONLY`.
 *
 * @example
 * ```ts
 * try {
 *   await store.agents.create('default', { id: 'research', name: 'Research' });
 * } catch (error) {
 *   if (StoreError.isInstance(error) && error.code === 'CONFLICT') console.log(error.message);
 * }
 * ```
 */
export class StoreError extends ToolshedError<StoreErrorCode> {
  readonly [marker] = true;

  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'StoreError';
  }

  /** True when `value` is a store error, from this or any other copy of the package. */
  static override isInstance(value: unknown): value is StoreError {
    return isBranded(value, marker);
  }
}
