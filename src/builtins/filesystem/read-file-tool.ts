import { z } from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolResult } from '../../core/tool-result.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { FileAccessError } from './file-access-error.js';
import type { FileBackend } from './file-backend.js';
import { fileErrorResult } from './file-error-result.js';
import { type FileToolLimits, formatBytes, resolveFileToolLimits } from './file-tool-limits.js';
import { MAX_PATH_LENGTH, normalizeVirtualPath } from './normalize-virtual-path.js';

const TEXT_ENCODINGS = ['utf-8', 'utf8', 'utf-16le', 'latin1', 'ascii'] as const;
const BINARY_ENCODINGS = ['base64', 'hex'] as const;

const readFileInput = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe(
      `Path of the file, relative to the workspace root '/' (for example 'src/index.ts'); at most ${MAX_PATH_LENGTH} characters.`,
    ),
  encoding: z
    .enum([...TEXT_ENCODINGS, ...BINARY_ENCODINGS])
    .default('utf-8')
    .describe("How to decode the bytes. 'base64' or 'hex' for binary files (no line ranges then)."),
  start_line: z.int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe('First line to return, 1-based.'),
  end_line: z
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe('Last line to return, 1-based and inclusive (default: the last line).'),
});

/** The arguments of `read_file`, after defaults. */
export type ReadFileArgs = z.output<typeof readFileInput>;

/**
 * The `read_file` tool over a {@link FileBackend}: returns `{path, content, lines, total_lines}` for
 * text (with `start_line`/`end_line` when a range was asked for) and `{path, content, encoding, bytes}`
 * for `base64`/`hex`.
 *
 * Files over `maxReadBytes` (1 MB) are refused with `OUTPUT_TOO_LARGE` and a hint to read a line range;
 * ranges can be read from files up to `maxScanBytes` (20 MB). A text file holding NUL bytes is refused
 * with a hint to use `base64`.
 *
 * @example
 * ```ts
 * registry.register(createReadFileTool(new LocalFolderBackend('./workspace')));
 * await registry.call('read_file', { path: 'src/index.ts', start_line: 10, end_line: 20 });
 * ```
 */
export function createReadFileTool(backend: FileBackend, limits: FileToolLimits = {}): ToolSpec<ReadFileArgs> {
  const { maxReadBytes, maxScanBytes } = resolveFileToolLimits(limits);
  return defineTool({
    name: 'read_file',
    title: 'Read File',
    description: `Read a file from the workspace and return its text, with line counts. Paths are relative to the workspace root '/'. Pass start_line and end_line (1-based, inclusive) to read part of a file; files over ${formatBytes(maxReadBytes)} can only be read in parts.`,
    whenToUse:
      'Before changing or quoting a file, read it. For a big file, read the lines you need (search_code finds their numbers).',
    category: 'filesystem',
    tags: ['file', 'read', 'open', 'view', 'cat', 'lines'],
    annotations: { readOnly: true, idempotent: true, openWorld: false },
    cli: 'read',
    input: readFileInput,
    handler: async ({ path, encoding, start_line: startLine, end_line: endLine }) => {
      let virtual: string;
      try {
        virtual = normalizeVirtualPath(path);
      } catch (error) {
        return fileErrorResult(error);
      }
      const binary = (BINARY_ENCODINGS as readonly string[]).includes(encoding);
      const ranged = startLine !== undefined || endLine !== undefined;
      if (binary && ranged) {
        return ToolResult.error(
          'INVALID_ARGUMENTS',
          `Line ranges cannot be combined with encoding '${encoding}'; leave out start_line and end_line.`,
        );
      }
      if (startLine !== undefined && endLine !== undefined && endLine < startLine) {
        return ToolResult.error(
          'INVALID_ARGUMENTS',
          `end_line (${endLine}) is before start_line (${startLine}); pass end_line >= start_line.`,
        );
      }
      const limit = ranged ? maxScanBytes : maxReadBytes;
      let bytes: Uint8Array;
      try {
        bytes = await backend.read(virtual, { maxBytes: limit });
      } catch (error) {
        if (FileAccessError.isInstance(error) && error.code === 'TOO_LARGE') {
          const size = error.size?.actual;
          const shown = size === undefined ? 'too large' : formatBytes(size);
          return ranged
            ? fileErrorResult(
                error,
                { TOO_LARGE: 'Use search_code to find what you need in it instead.' },
                `File '${virtual}' is ${shown}; line ranges can only be read from files up to ${formatBytes(maxScanBytes)}.`,
              )
            : fileErrorResult(
                error,
                { TOO_LARGE: 'Pass start_line and end_line to read a part of it, for example lines 1 to 200.' },
                `File '${virtual}' is ${shown}, over the ${formatBytes(maxReadBytes)} limit for reading a whole file.`,
              );
        }
        return fileErrorResult(error, { NOT_A_FILE: 'Call list_files to see what the folder holds.' });
      }
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (binary) {
        return { path: virtual, content: buffer.toString(encoding as BufferEncoding), encoding, bytes: buffer.length };
      }
      if (encoding !== 'utf-16le' && buffer.subarray(0, 8192).includes(0)) {
        return ToolResult.error('EXECUTION_FAILED', `File '${virtual}' looks binary (it holds NUL bytes).`, {
          hint: "Read it with encoding 'base64' to get its bytes.",
        });
      }
      const text = buffer.toString(encoding === 'utf-8' ? 'utf8' : (encoding as BufferEncoding));
      const starts = lineStarts(text);
      const totalLines = starts.length;
      if (!ranged) return { path: virtual, content: text, lines: totalLines, total_lines: totalLines };

      const first = startLine ?? 1;
      if (first > totalLines) {
        return ToolResult.error(
          'INVALID_ARGUMENTS',
          `start_line ${first} is past the end of '${virtual}', which has ${totalLines} line${totalLines === 1 ? '' : 's'}.`,
          { hint: totalLines === 0 ? 'The file is empty.' : `Pass a start_line between 1 and ${totalLines}.` },
        );
      }
      const last = Math.min(endLine ?? totalLines, totalLines);
      const content = text.slice(starts[first - 1], last < totalLines ? starts[last] : text.length);
      const contentBytes = Buffer.byteLength(content);
      if (contentBytes > maxReadBytes) {
        return ToolResult.error(
          'OUTPUT_TOO_LARGE',
          `Lines ${first} to ${last} of '${virtual}' are ${formatBytes(contentBytes)}, over the ${formatBytes(maxReadBytes)} read limit.`,
          { hint: 'Read a smaller range of lines.' },
        );
      }
      return {
        path: virtual,
        content,
        lines: last - first + 1,
        total_lines: totalLines,
        start_line: first,
        end_line: last,
      };
    },
  });
}

/** Offsets at which each line starts; a final newline does not start a line, an empty text has none. */
function lineStarts(text: string): number[] {
  const starts: number[] = [];
  if (text.length === 0) return starts;
  starts.push(0);
  let index = text.indexOf('\n');
  while (index !== -1 && index + 1 < text.length) {
    starts.push(index + 1);
    index = text.indexOf('\n', index + 1);
  }
  return starts;
}
