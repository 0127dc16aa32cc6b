import { z } from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolResult } from '../../core/tool-result.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { FileBackend, FileEntry } from './file-backend.js';
import { fileErrorResult } from './file-error-result.js';
import { type FileToolLimits, formatBytes, resolveFileToolLimits } from './file-tool-limits.js';
import { normalizeVirtualPath } from './normalize-virtual-path.js';
import { type LineMatch, MatcherStoppedError, RegexLineMatcher } from './regex-line-matcher.js';

const MAX_SHOWN_CHARS = 500;

const searchCodeInput = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .max(1000)
    .describe('JavaScript regular expression tested against each line, e.g. "function\\s+load" or "TODO|FIXME".'),
  directory: z
    .string()
    .default('.')
    .describe(
      "Folder to search, relative to the workspace root (default '.', the whole workspace); may also name one file.",
    ),
  file_extensions: z
    .array(z.string().min(1).max(32))
    .max(50)
    .optional()
    .describe('Only search files with these extensions, e.g. [".ts", ".js"] (default: every text file).'),
  case_sensitive: z.boolean().default(true).describe('Match letter case exactly (default true).'),
  max_results: z.int().min(1).max(1000).default(100).describe('Stop after this many matching lines (default 100).'),
  include_context: z.boolean().default(false).describe('Also return the lines around each match (default false).'),
  context_lines: z
    .int()
    .min(0)
    .max(20)
    .default(2)
    .describe('How many lines before and after each match, when include_context is true (default 2).'),
});

/** The arguments of `search_code`, after defaults. */
export type SearchCodeArgs = z.output<typeof searchCodeInput>;

/** One match of `search_code`: a line of a file. */
export interface CodeMatch extends LineMatch {
  path: string;
}

/**
 * The `search_code` tool over a {@link FileBackend}: a regular-expression search, line by line, over
 * the text files of a folder (binary files and files over `maxSearchFileBytes` are skipped; `.git` and
 * `node_modules` are not entered by the local backend).
 *
 * The pattern runs in a worker thread under `searchTimeoutMs` (10 s), so a catastrophically
 * backtracking pattern is stopped instead of freezing the process; lines are matched on their first
 * `maxLineLength` characters, and the search stops after `maxSearchBytes` or `maxSearchFiles`. When a
 * limit stops it early, the matches found so far come back with `stopped` saying why (or an error when
 * there are none). An invalid pattern is `INVALID_ARGUMENTS` quoting the regex engine's complaint.
 *
 * @example
 * ```ts
 * registry.register(createSearchCodeTool(new LocalFolderBackend('.')));
 * await registry.call('search_code', { pattern: 'TODO', directory: 'src', file_extensions: ['.ts'] });
 * // { matches: [{ path: '/src/a.ts', line: 3, text: '// TODO: ...' }], total_matches: 1, ... }
 * ```
 */
export function createSearchCodeTool(backend: FileBackend, limits: FileToolLimits = {}): ToolSpec<SearchCodeArgs> {
  const resolved = resolveFileToolLimits(limits);
  return defineTool({
    name: 'search_code',
    title: 'Search Code',
    description:
      'Search the text files of a workspace folder for lines matching a regular expression (JavaScript syntax). Returns each matching line with its file path and 1-based line number, optionally with the lines around it. Filter by file extension and letter case; results stop at max_results.',
    whenToUse:
      'To find where something is defined or used across many files, before reading them with read_file. Escape regex characters such as ( . [ with a backslash to match them literally.',
    category: 'filesystem',
    tags: ['search', 'grep', 'regex', 'find', 'code', 'text'],
    annotations: { readOnly: true, idempotent: true, openWorld: false },
    cli: 'grep',
    timeoutMs: resolved.searchTimeoutMs + 20_000,
    input: searchCodeInput,
    handler: (args, context) => searchCode(backend, resolved, args, context.signal),
  });
}

async function searchCode(
  backend: FileBackend,
  limits: Required<FileToolLimits>,
  args: SearchCodeArgs,
  signal: AbortSignal,
): Promise<unknown> {
  const flags = args.case_sensitive ? '' : 'i';
  try {
    new RegExp(args.pattern, flags);
  } catch (error) {
    const reason = (error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
    return ToolResult.error(
      'INVALID_ARGUMENTS',
      `The pattern '${args.pattern}' is not a valid regular expression: ${reason}.`,
      {
        hint: 'Escape characters such as ( ) [ ] { } . * + ? | \\ with a backslash to match them literally.',
      },
    );
  }

  let directory: string;
  let target: FileEntry | undefined;
  try {
    directory = normalizeVirtualPath(args.directory);
    target = await backend.stat(directory);
  } catch (error) {
    return fileErrorResult(error);
  }
  if (target === undefined) {
    return ToolResult.error('EXECUTION_FAILED', `'${directory}' does not exist.`, {
      hint: 'Call list_files to see which folders exist.',
    });
  }

  const extensions = args.file_extensions?.map((extension) =>
    (extension.startsWith('.') ? extension : `.${extension}`).toLowerCase(),
  );
  const deadline = Date.now() + limits.searchTimeoutMs;
  const contextLines = args.include_context ? args.context_lines : 0;
  const matches: CodeMatch[] = [];
  let filesSearched = 0;
  let filesSkipped = 0;
  let bytesRead = 0;
  let stopped: string | undefined;
  let matcher: RegexLineMatcher | undefined;

  const files: AsyncIterable<FileEntry> | FileEntry[] =
    target.type === 'file' ? [target] : backend.walk(directory, { signal });
  try {
    for await (const file of files) {
      if (signal.aborted) break;
      if (matches.length >= args.max_results) break;
      if (extensions !== undefined && !extensions.some((extension) => file.path.toLowerCase().endsWith(extension))) {
        continue;
      }
      if (Date.now() >= deadline) {
        stopped = `time limit of ${limits.searchTimeoutMs / 1000} s reached`;
        break;
      }
      if (filesSearched >= limits.maxSearchFiles) {
        stopped = `file limit of ${limits.maxSearchFiles} files reached`;
        break;
      }
      if (file.size > limits.maxSearchFileBytes) {
        filesSkipped++;
        continue;
      }
      if (bytesRead + file.size > limits.maxSearchBytes) {
        stopped = `byte limit of ${formatBytes(limits.maxSearchBytes)} read reached`;
        break;
      }
      let bytes: Uint8Array;
      try {
        bytes = await backend.read(file.path, { maxBytes: limits.maxSearchFileBytes });
      } catch {
        filesSkipped++;
        continue;
      }
      bytesRead += bytes.byteLength;
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (buffer.subarray(0, 8192).includes(0)) {
        filesSkipped++;
        continue;
      }
      filesSearched++;
      matcher ??= new RegexLineMatcher(args.pattern, flags, {
        maxLineLength: limits.maxLineLength,
        contextLines,
        maxShownChars: MAX_SHOWN_CHARS,
      });
      try {
        const found = await matcher.match(buffer.toString('utf8'), args.max_results - matches.length, deadline, signal);
        for (const match of found) matches.push({ path: file.path, ...match });
      } catch (error) {
        if (!(error instanceof MatcherStoppedError)) throw error;
        if (error.reason === 'aborted') break;
        stopped =
          error.reason === 'deadline'
            ? `time limit of ${limits.searchTimeoutMs / 1000} s reached while matching '${file.path}'`
            : `the matcher failed on '${file.path}'`;
        break;
      }
    }
  } catch (error) {
    return fileErrorResult(error);
  } finally {
    await matcher?.close();
  }

  if (stopped !== undefined && matches.length === 0) {
    return ToolResult.error(
      'EXECUTION_FAILED',
      `The search for '${args.pattern}' in '${directory}' stopped without a match: ${stopped}.`,
      {
        hint: 'Simplify the pattern (nested repetition such as (a+)+ can take forever) or search a smaller folder or fewer file extensions.',
      },
    );
  }
  const result: Record<string, unknown> = {
    pattern: args.pattern,
    directory,
    matches,
    total_matches: matches.length,
    truncated: matches.length >= args.max_results,
    files_searched: filesSearched,
  };
  if (filesSkipped > 0) result.files_skipped = filesSkipped;
  if (stopped !== undefined) result.stopped = stopped;
  return result;
}
