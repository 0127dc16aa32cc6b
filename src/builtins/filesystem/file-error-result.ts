import { type ToolFailure, ToolResult } from '../../core/tool-result.js';
import { FileAccessError, type FileAccessErrorCode } from './file-access-error.js';

/**
 * The {@link ToolResult} a model reads for a failed file operation: path problems are
 * `INVALID_ARGUMENTS` (change the path), a missing or wrong-kind target is `EXECUTION_FAILED` with a
 * hint to look around first, anything else is rethrown (the dispatcher reports it). `hints` replaces
 * the default hint per code; `message` replaces the error's message.
 *
 * @example
 * ```ts
 * try {
 *   await backend.read(path);
 * } catch (error) {
 *   return fileErrorResult(error, { NOT_A_FILE: 'Call list_files to see what the folder holds.' });
 * }
 * ```
 */
export function fileErrorResult(
  error: unknown,
  hints: Partial<Record<FileAccessErrorCode, string>> = {},
  message?: string,
): ToolFailure {
  if (!FileAccessError.isInstance(error)) throw error;
  const text = message ?? error.message;
  const hint = hints[error.code];
  switch (error.code) {
    case 'INVALID_PATH':
    case 'OUTSIDE_ROOT':
      return ToolResult.error('INVALID_ARGUMENTS', text, {
        hint: hint ?? "Use a path inside the workspace, relative to its root '/' (for example 'src/index.ts').",
        details: { code: error.code },
      });
    case 'NOT_FOUND':
    case 'NOT_A_FILE':
    case 'NOT_A_DIRECTORY':
      return ToolResult.error('EXECUTION_FAILED', text, {
        hint:
          hint ?? "Paths are relative to the workspace root '/'; call list_files to see which files and folders exist.",
        details: { code: error.code },
      });
    case 'TOO_LARGE':
      return ToolResult.error('OUTPUT_TOO_LARGE', text, {
        ...(hint === undefined ? {} : { hint }),
        details: { code: error.code, ...error.size },
      });
    case 'IO_ERROR':
      return ToolResult.error('EXECUTION_FAILED', text, {
        ...(hint === undefined ? {} : { hint }),
        details: { code: error.code },
      });
    default: {
      const unreachable: never = error.code;
      return unreachable;
    }
  }
}
