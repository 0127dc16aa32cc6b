import { z } from 'zod';
import { defineTool } from '../../core/define-tool.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { FileBackend, FileEntry } from './file-backend.js';
import { fileErrorResult } from './file-error-result.js';
import { type FileToolLimits, resolveFileToolLimits } from './file-tool-limits.js';
import { normalizeVirtualPath } from './normalize-virtual-path.js';

const listFilesInput = z.strictObject({
  path: z
    .string()
    .default('/')
    .describe("Folder to list, relative to the workspace root (default '/', the root itself)."),
});

/** The arguments of `list_files`, after defaults. */
export type ListFilesArgs = z.output<typeof listFilesInput>;

/**
 * The `list_files` tool over a {@link FileBackend}: the direct children of a folder, folders first,
 * as text a model reads at a glance:
 *
 * ```text
 * Contents of /data:
 * [DIR]  /data/inputs
 * [FILE] /data/report.txt (1024 bytes)
 * ```
 *
 * At most `maxListEntries` (1000) entries are shown, then a line saying how many were left out.
 *
 * @example
 * ```ts
 * registry.register(createListFilesTool(new LocalFolderBackend('./workspace')));
 * const result = await registry.call('list_files', { path: '/data' });
 * ```
 */
export function createListFilesTool(backend: FileBackend, limits: FileToolLimits = {}): ToolSpec<ListFilesArgs> {
  const { maxListEntries } = resolveFileToolLimits(limits);
  return defineTool({
    name: 'list_files',
    title: 'List Files',
    description:
      "List the files and folders directly inside a workspace folder, with file sizes in bytes. Paths are relative to the workspace root '/'; the default lists the root.",
    whenToUse:
      'To find out what exists before reading or writing: start at the root and list subfolders as needed. Use search_code to find text across many files.',
    category: 'filesystem',
    tags: ['file', 'folder', 'directory', 'list', 'ls', 'browse'],
    annotations: { readOnly: true, idempotent: true, openWorld: false },
    cli: 'ls',
    input: listFilesInput,
    handler: async ({ path }) => {
      let virtual: string;
      let entries: FileEntry[];
      try {
        virtual = normalizeVirtualPath(path);
        entries = await backend.list(virtual);
      } catch (error) {
        return fileErrorResult(error, { NOT_A_DIRECTORY: 'Call read_file to read a file.' });
      }
      return formatListing(virtual, entries, maxListEntries);
    },
  });
}

/**
 * The text of a folder listing, in the format of the virtual-filesystem design this tool comes from.
 *
 * @example
 * ```ts
 * formatListing('/data', [{ path: '/data/report.txt', type: 'file', size: 1024 }]);
 * // 'Contents of /data:\n[FILE] /data/report.txt (1024 bytes)'
 * ```
 */
export function formatListing(
  path: string,
  entries: readonly FileEntry[],
  maxEntries = Number.POSITIVE_INFINITY,
): string {
  const lines = [`Contents of ${path}:`];
  if (entries.length === 0) lines.push('(empty folder)');
  for (const entry of entries.slice(0, maxEntries)) {
    lines.push(entry.type === 'directory' ? `[DIR]  ${entry.path}` : `[FILE] ${entry.path} (${entry.size} bytes)`);
  }
  if (entries.length > maxEntries) {
    const hidden = entries.length - maxEntries;
    lines.push(`... and ${hidden} more entr${hidden === 1 ? 'y' : 'ies'} (list a subfolder to narrow it down)`);
  }
  return lines.join('\n');
}
