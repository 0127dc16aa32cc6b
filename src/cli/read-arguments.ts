import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CliError } from './cli-error.js';
import { visible } from './output.js';
import { readLimitedStdin } from './read-limited-stdin.js';

/**
 * The most `--args` text the CLI accepts, in bytes (the same bound as a YAML definition file). Larger
 * input is refused before it is parsed, whichever way it arrives.
 */
export const MAX_ARGUMENT_BYTES = 1_000_000;

/** What `--args` gave: the JSON text (unparsed: the registry parses it and reports bad JSON), or too much. */
export type ArgumentsInput =
  | { kind: 'text'; text: string | undefined }
  | { kind: 'too-large'; bytes: number | undefined; source: string };

/**
 * Read the `--args` value: inline JSON text, `@FILE` (read as UTF-8), or `-` (stdin). No value means
 * no arguments. A leading byte-order mark is dropped (editors on Windows write one).
 *
 * Throws {@link CliError} (exit 1) when an `@FILE` does not exist or cannot be read.
 *
 * @example
 * ```ts
 * await readArguments('{"a": 1}', process.stdin, process.cwd()); // { kind: 'text', text: '{"a": 1}' }
 * await readArguments('@args.json', process.stdin, process.cwd());
 * ```
 */
export async function readArguments(
  value: string | undefined,
  stdin: AsyncIterable<Uint8Array | string>,
  cwd: string,
): Promise<ArgumentsInput> {
  if (value === undefined) return { kind: 'text', text: undefined };
  if (value === '-') return readStdin(stdin);
  if (value.startsWith('@')) return readArgumentsFile(value.slice(1), cwd);
  const bytes = Buffer.byteLength(value);
  if (bytes > MAX_ARGUMENT_BYTES) return { kind: 'too-large', bytes, source: 'inline' };
  return { kind: 'text', text: value };
}

async function readArgumentsFile(path: string, cwd: string): Promise<ArgumentsInput> {
  const shown = visible(path);
  if (path === '')
    throw new CliError(`error: --args '@' names no file; use --args @FILE, --args - (stdin) or --args '{...}'.`);
  const absolutePath = resolve(cwd, path);
  try {
    const info = await stat(absolutePath);
    if (!info.isFile()) throw new CliError(`error: --args file '${shown}' is not a file.`);
    if (info.size > MAX_ARGUMENT_BYTES) return { kind: 'too-large', bytes: info.size, source: `@${shown}` };
    return { kind: 'text', text: stripByteOrderMark(await readFile(absolutePath, 'utf8')) };
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new CliError(`error: --args file '${shown}' does not exist.`);
    throw new CliError(`error: --args file '${shown}' cannot be read: ${(error as Error).message}`);
  }
}

async function readStdin(stdin: AsyncIterable<Uint8Array | string>): Promise<ArgumentsInput> {
  const text = await readLimitedStdin(stdin, MAX_ARGUMENT_BYTES);
  if (text === undefined) return { kind: 'too-large', bytes: undefined, source: 'stdin' };
  return { kind: 'text', text: stripByteOrderMark(text) };
}

function stripByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
