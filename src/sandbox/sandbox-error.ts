import { isBranded, ToolshedError } from '../core/errors/toolshed-error.js';

const marker = Symbol.for('toolshed.sandboxError');

/**
 * Why a sandbox could not be set up (configuration and host problems, thrown by `SandboxPool.start`).
 * Failures of the code itself are never thrown: they come back as `SandboxRunResult` values.
 *
 * - `NETWORK_ISOLATION_UNAVAILABLE` — no network namespace can be created on this host and
 *   `allowNetwork` was not set; the message says how to enable one.
 * - `START_FAILED` — a sandbox process did not become ready (missing child script, runtime load
 *   failure, start timeout).
 * - `INVALID_OPTIONS` — an option is out of range.
 * - `CLOSED` — the pool was closed.
 */
export type SandboxErrorCode = 'NETWORK_ISOLATION_UNAVAILABLE' | 'START_FAILED' | 'INVALID_OPTIONS' | 'CLOSED';

/**
 * Thrown when a sandbox cannot be set up. `SandboxError.isInstance` works across duplicated package
 * copies, where `instanceof` would not.
 *
 * @example
 * ```ts
 * try {
 *   await pool.start();
 * } catch (error) {
 *   if (SandboxError.isInstance(error) && error.code === 'NETWORK_ISOLATION_UNAVAILABLE') console.error(error.message);
 * }
 * ```
 */
export class SandboxError extends ToolshedError<SandboxErrorCode> {
  readonly [marker] = true;

  constructor(code: SandboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'SandboxError';
  }

  /** True when `value` is a `SandboxError`, from this or any other copy of the package. */
  static override isInstance(value: unknown): value is SandboxError {
    return isBranded(value, marker);
  }
}
