/**
 * Where the CLI writes and reads, and the formatting helpers every verb shares. Nothing here colours
 * its output: text is the same on a terminal and in a pipe, so piped output never holds ANSI codes.
 */

/** A stream the CLI writes to; `flush` resolves once everything written so far has been handed off. */
export interface CliOutput {
  write(text: string): void;
  flush(): Promise<void>;
  /** True for a terminal (line truncation applies); false for pipes and files. */
  readonly isTTY: boolean;
  /** Terminal width in columns, when writing to a terminal. */
  readonly columns: number | undefined;
}

/** The process surface the CLI runs against; tests and embedders can pass their own. */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  /** Read for `call --args -`. */
  stdin: AsyncIterable<Uint8Array | string>;
  env: Readonly<Record<string, string | undefined>>;
  /** The folder relative paths and the default `./tools` resolve against. */
  cwd: string;
}

/**
 * The real process's streams, environment and working folder.
 *
 * A closed pipe (`toolshed list | head -1`) is not an error: `EPIPE` is swallowed and later writes
 * are dropped.
 *
 * @example
 * ```ts
 * const io = processIo();
 * io.stdout.write('hello\n');
 * await io.stdout.flush();
 * ```
 */
export function processIo(): CliIo {
  return {
    stdout: streamOutput(process.stdout),
    stderr: streamOutput(process.stderr),
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

function streamOutput(stream: NodeJS.WriteStream): CliOutput {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') closed = true;
    else throw error;
  });
  return {
    write(text) {
      if (!closed && text !== '') stream.write(text);
    },
    flush() {
      if (closed) return Promise.resolve();
      // A write callback runs after every earlier write on the stream, so an empty write is a barrier.
      return new Promise((resolve) => stream.write('', () => resolve()));
    },
    isTTY: stream.isTTY === true,
    columns: stream.isTTY === true ? stream.columns : undefined,
  };
}

// C0 and C1 controls (except tab and newline), DEL, and the bidirectional overrides that can make a
// terminal show text other than what is there.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text safe to print: control characters (ANSI escapes included), DEL and bidirectional overrides
 * become visible `\uXXXX` escapes; tabs and newlines stay, and `\r\n` becomes `\n`.
 *
 * Tool definitions and tool output are untrusted: a description holding `ESC[2J` must not clear the
 * reader's terminal. Use `--json` for the exact text.
 *
 * @example
 * ```ts
 * visible('red \u001b[31mtext'); // 'red \\u001b[31mtext'
 * ```
 */
export function visible(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(UNSAFE_CHARACTERS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * {@link visible} text on one line: every run of whitespace (newlines included) becomes one space.
 *
 * @example
 * ```ts
 * oneLine('Read a file.\n  Then edit it.'); // 'Read a file. Then edit it.'
 * ```
 */
export function oneLine(text: string): string {
  return visible(text.replace(/\s+/g, ' ').trim());
}

/**
 * The first sentence of a description, on one line: up to the first `.`, `!` or `?` that is followed
 * by whitespace or ends the text; the whole text when there is no such stop.
 *
 * @example
 * ```ts
 * firstSentence('Add two numbers. Works with decimals.'); // 'Add two numbers.'
 * firstSentence('Version 1.2 of the parser'); // 'Version 1.2 of the parser'
 * ```
 */
export function firstSentence(text: string): string {
  const line = oneLine(text);
  const match = /^.*?[.!?](?=\s|$)/.exec(line);
  return match === null ? line : match[0];
}

/**
 * Rows of cells as aligned text lines: each column is as wide as its widest cell, columns are two
 * spaces apart, and the last column is not padded (no trailing spaces).
 *
 * @example
 * ```ts
 * formatTable([['add', 'math'], ['echo', 'text']]); // ['add   math', 'echo  text']
 * ```
 */
export function formatTable(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * `line` cut to `width` characters with a trailing `…` when longer; unchanged when `width` is
 * undefined (not a terminal).
 *
 * @example
 * ```ts
 * truncate('abcdef', 4); // 'abc…'
 * ```
 */
export function truncate(line: string, width: number | undefined): string {
  if (width === undefined || width < 2 || line.length <= width) return line;
  return `${line.slice(0, width - 1)}…`;
}

/**
 * Text wrapped at word boundaries to `width` columns (at least 20 for the text itself), each line
 * prefixed with `indent`; newlines in the text start new lines. Words longer than a line are left whole.
 *
 * @example
 * ```ts
 * wrap('one two three four five six seven', 24, '  '); // ['  one two three four', '  five six seven']
 * ```
 */
export function wrap(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  const room = Math.max(20, width - indent.length);
  for (const paragraph of visible(text).split('\n')) {
    let line = '';
    for (const word of paragraph.split(/[ \t]+/).filter((part) => part !== '')) {
      if (line !== '' && line.length + 1 + word.length > room) {
        lines.push(indent + line);
        line = word;
      } else {
        line = line === '' ? word : `${line} ${word}`;
      }
    }
    lines.push(indent + line);
  }
  return lines.map((line) => line.trimEnd());
}

/**
 * Pretty JSON (two-space indent, trailing newline) that tolerates what handlers return beyond plain
 * JSON: bigints become strings, cycles become `"[Circular]"`, functions and `undefined` are left out.
 *
 * @example
 * ```ts
 * toJson({ n: 1n }); // '{\n  "n": "1"\n}\n'
 * ```
 */
export function toJson(value: unknown): string {
  const ancestors: object[] = [];
  const text = JSON.stringify(
    value,
    function replacer(this: unknown, _key, item: unknown) {
      if (typeof item === 'bigint') return item.toString();
      if (typeof item !== 'object' || item === null) return item;
      // `this` is the holder of `item`: drop ancestors that are no longer on the path to it.
      while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
      if (ancestors.includes(item)) return '[Circular]';
      ancestors.push(item);
      return item;
    },
    2,
  );
  return `${text ?? 'null'}\n`;
}
