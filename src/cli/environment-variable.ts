import type { CliIo } from './output.js';

/**
 * The value of a `TOOLSHED_*` environment variable, or `undefined` when it is unset, empty or blank:
 * `TOOLSHED_DATABASE_URL=` (as a `.env` template or `docker run -e NAME=` leaves it) means "not set",
 * never "the current folder".
 *
 * @example
 * ```ts
 * const url = environmentVariable(io.env, 'TOOLSHED_DATABASE_URL') ?? './toolshed.db';
 * ```
 */
export function environmentVariable(env: CliIo['env'], name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}
