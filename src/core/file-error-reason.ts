import { ToolshedError } from './errors/toolshed-error.js';

/**
 * What went wrong with a file, in words, from the `code` of a file system error (`EISDIR`,
 * `EACCES`, ...): the end of a sentence that starts with the path, such as `'out' is a folder, not a
 * file` or `'x.jsonl' cannot be written: permission denied`. `undefined` when `error` is not a file
 * system error (it has no `E...` code), so the caller can let it through as it is. A code without words
 * of its own gives the error's message.
 *
 * @example
 * ```ts
 * fileErrorReason(Object.assign(new Error('EISDIR: illegal operation on a directory'), { code: 'EISDIR' }), 'write');
 * // 'is a folder, not a file'
 * ```
 */
export function fileErrorReason(error: unknown, access: 'read' | 'write'): string | undefined {
  if (typeof error !== 'object' || error === null || ToolshedError.isInstance(error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) return undefined;
  const cannot = access === 'read' ? 'cannot be read' : 'cannot be written';
  switch (code) {
    case 'ENOENT':
      return access === 'read' ? 'does not exist' : `${cannot}: its folder does not exist`;
    case 'ENOTDIR':
    case 'EEXIST':
      // EEXIST: `mkdir -p` of a folder on the path met a file of that name.
      return `${cannot}: a part of its path is a file, not a folder`;
    case 'EISDIR':
      return 'is a folder, not a file';
    case 'EACCES':
    case 'EPERM':
      return `${cannot}: permission denied`;
    case 'EROFS':
      return `${cannot}: the file system is read-only`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `${cannot}: no space is left on the disk`;
    case 'ENAMETOOLONG':
      return `${cannot}: a name in its path is too long`;
    case 'ELOOP':
      return `${cannot}: its path goes through a loop of symbolic links`;
    default:
      return `${cannot}: ${error instanceof Error ? error.message : code}`;
  }
}
