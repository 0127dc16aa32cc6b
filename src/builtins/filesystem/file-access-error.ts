import { isBranded, ToolshedError } from '../../core/errors/toolshed-error.js';

const marker = Symbol.for('toolshed.fileAccessError');

/**
 * Why a file operation was refused or failed.
 *
 * - `INVALID_PATH` — the path is malformed: a NUL or control character, too long, or a drive letter.
 * - `OUTSIDE_ROOT` — the path, or a symbolic link on it, leads outside the root.
 * - `NOT_FOUND` — nothing exists at the path (or at its parent folder, for a write).
 * - `NOT_A_FILE` — the path names a folder (or a device, socket or pipe) where a file was expected.
 * - `NOT_A_DIRECTORY` — the path names a file where a folder was expected.
 * - `TOO_LARGE` — the file or the content is over the size limit.
 * - `IO_ERROR` — the backend failed for another reason (permissions, disk full, ...).
 */
export type FileAccessErrorCode =
  | 'INVALID_PATH'
  | 'OUTSIDE_ROOT'
  | 'NOT_FOUND'
  | 'NOT_A_FILE'
  | 'NOT_A_DIRECTORY'
  | 'TOO_LARGE'
  | 'IO_ERROR';

/**
 * Thrown by a {@link FileBackend} and by path normalization. `path` is the path as the caller gave it
 * (never the host path behind the root, which the model must not learn); the message quotes it.
 *
 * @example
 * ```ts
 * try {
 *   normalizeVirtualPath('../etc/passwd');
 * } catch (error) {
 *   if (FileAccessError.isInstance(error)) console.log(error.code); // 'OUTSIDE_ROOT'
 * }
 * ```
 */
export class FileAccessError extends ToolshedError<FileAccessErrorCode> {
  readonly [marker] = true;
  readonly path: string;
  /** For `TOO_LARGE`: the size found and the limit, in bytes. */
  readonly size: { actual: number; limit: number } | undefined;

  constructor(
    code: FileAccessErrorCode,
    path: string,
    message: string,
    options: { cause?: unknown; size?: { actual: number; limit: number } } = {},
  ) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FileAccessError';
    this.path = path;
    this.size = options.size;
  }

  /** True when `value` is a `FileAccessError`, from this or any other copy of the package. */
  static override isInstance(value: unknown): value is FileAccessError {
    return isBranded(value, marker);
  }
}
