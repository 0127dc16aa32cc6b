import type { ToolSpec } from '../../core/tool-spec.js';
import type { FileBackend } from './file-backend.js';
import type { FileToolLimits } from './file-tool-limits.js';
import { createListFilesTool } from './list-files-tool.js';
import { LocalFolderBackend } from './local-folder-backend.js';
import { createReadFileTool } from './read-file-tool.js';
import { createSearchCodeTool } from './search-code-tool.js';
import { createWriteFileTool } from './write-file-tool.js';

/** Options of {@link createFileTools}: a local folder `root`, or any {@link FileBackend}. */
export interface FileToolsOptions extends FileToolLimits {
  /** Folder the tools are confined to (a {@link LocalFolderBackend}). */
  root?: string;
  /** Where files live, instead of `root` (for example the database's virtual filesystem). */
  backend?: FileBackend;
  /** For `root`: folder names `search_code` does not enter (default `.git`, `.hg`, `.svn`, `node_modules`). */
  ignoreDirectories?: readonly string[];
}

/**
 * The filesystem built-ins — `read_file`, `write_file`, `list_files` and `search_code` — over one
 * backend, confined to its root.
 *
 * Pass `root` for a local folder or `backend` for any other {@link FileBackend}; one of them is
 * required. Limits (`maxReadBytes`, `maxWriteBytes`, ...) apply to every tool that uses them.
 *
 * @example
 * ```ts
 * import { ToolRegistry } from 'toolshed';
 * import { createFileTools } from 'toolshed/builtins';
 *
 * const registry = new ToolRegistry();
 * registry.registerAll(createFileTools({ root: './workspace' }));
 * await registry.call('list_files', { path: '/' });
 * ```
 */
export function createFileTools(options: FileToolsOptions): ToolSpec[] {
  const backend =
    options.backend ??
    (options.root === undefined
      ? undefined
      : new LocalFolderBackend(
          options.root,
          options.ignoreDirectories === undefined ? {} : { ignoreDirectories: options.ignoreDirectories },
        ));
  if (backend === undefined) {
    throw new TypeError('createFileTools needs a root folder (root) or a file backend (backend).');
  }
  return [
    createReadFileTool(backend, options),
    createWriteFileTool(backend, options),
    createListFilesTool(backend, options),
    createSearchCodeTool(backend, options),
  ];
}
