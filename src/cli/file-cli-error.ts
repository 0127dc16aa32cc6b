import { fileErrorReason } from '../core/file-error-reason.js';
import { CliError } from './cli-error.js';
import { displayPath } from './load-registry.js';
import { visible } from './output.js';

/**
 * The {@link CliError} (exit 1) for a file system error met reading or writing `path`: one line naming
 * the path as the user gave it, with what went wrong in words (see `fileErrorReason`), such as
 * `error: --out 'notes' is a folder, not a file.` Any other error is answered as it is, to be rethrown.
 * `flag` names the option the path came from, when it came from one.
 *
 * @example
 * ```ts
 * await writeFile(path, text).catch((error: unknown) => {
 *   throw fileCliError(error, options.out, 'write', '--out');
 * });
 * ```
 */
export function fileCliError(error: unknown, path: string, access: 'read' | 'write', flag?: string): unknown {
  const reason = fileErrorReason(error, access);
  if (reason === undefined) return error;
  return new CliError(`error: ${flag === undefined ? '' : `${flag} `}'${visible(path)}' ${reason}.`);
}

/**
 * The path a file system error names (the destination of a rename, else its path), as messages show
 * it: relative to `cwd` when inside it; `undefined` when the error names none.
 *
 * @example
 * ```ts
 * erroredPath(error, process.cwd()); // 'tools/add_numbers.yaml'
 * ```
 */
export function erroredPath(error: unknown, cwd: string): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { dest, path } = error as { dest?: unknown; path?: unknown };
  const named = typeof dest === 'string' ? dest : typeof path === 'string' ? path : undefined;
  return named === undefined ? undefined : displayPath(named, cwd);
}
