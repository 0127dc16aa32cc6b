import { z } from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolResult } from '../../core/tool-result.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { FileBackend } from './file-backend.js';
import { fileErrorResult } from './file-error-result.js';
import { type FileToolLimits, formatBytes, resolveFileToolLimits } from './file-tool-limits.js';
import { normalizeVirtualPath } from './normalize-virtual-path.js';

const writeFileInput = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe(
      "Path of the file to create or replace, relative to the workspace root '/' (for example 'out/report.md').",
    ),
  content: z.string().describe('The complete new content of the file (UTF-8 text).'),
  create_dirs: z.boolean().default(true).describe('Create missing parent folders (default true).'),
});

/** The arguments of `write_file`, after defaults. */
export type WriteFileArgs = z.output<typeof writeFileInput>;

/**
 * The `write_file` tool over a {@link FileBackend}: creates or replaces a UTF-8 file and returns
 * `{path, bytes, created}`. Content over `maxWriteBytes` (5 MB) is refused before anything is written.
 *
 * @example
 * ```ts
 * registry.register(createWriteFileTool(new LocalFolderBackend('./workspace')));
 * await registry.call('write_file', { path: 'notes/todo.md', content: '- buy milk\n' });
 * // { path: '/notes/todo.md', bytes: 11, created: true }
 * ```
 */
export function createWriteFileTool(backend: FileBackend, limits: FileToolLimits = {}): ToolSpec<WriteFileArgs> {
  const { maxWriteBytes } = resolveFileToolLimits(limits);
  return defineTool({
    name: 'write_file',
    title: 'Write File',
    description: `Create a file in the workspace, or replace its whole content, with the given UTF-8 text. Paths are relative to the workspace root '/'; missing parent folders are created. At most ${formatBytes(maxWriteBytes)} per file. Returns the path, the size written and whether the file is new.`,
    whenToUse:
      'To save results, notes or edited files. Read a file before replacing it, and write the complete content: this tool does not append or patch.',
    category: 'filesystem',
    tags: ['file', 'write', 'save', 'create', 'edit'],
    annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
    cli: 'write',
    input: writeFileInput,
    handler: async ({ path, content, create_dirs: createDirs }) => {
      let virtual: string;
      try {
        virtual = normalizeVirtualPath(path);
      } catch (error) {
        return fileErrorResult(error);
      }
      const bytes = Buffer.from(content, 'utf8');
      if (bytes.length > maxWriteBytes) {
        return ToolResult.error(
          'INVALID_ARGUMENTS',
          `The content for '${virtual}' is ${formatBytes(bytes.length)}, over the ${formatBytes(maxWriteBytes)} write limit.`,
          { hint: 'Split the content into several smaller files.' },
        );
      }
      try {
        const { created } = await backend.write(virtual, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), {
          createDirs,
        });
        return { path: virtual, bytes: bytes.length, created };
      } catch (error) {
        return fileErrorResult(error, {
          NOT_FOUND: 'Pass create_dirs: true to create the missing folders, or call list_files to check the path.',
          NOT_A_FILE: 'Choose a file name inside the folder, for example adding /notes.md to the path.',
        });
      }
    },
  });
}
