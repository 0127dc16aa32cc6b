import { readFileSync } from 'node:fs';

/** One `$ ` command of a console example and the output the document shows after it. */
export interface ConsoleCommand {
  /** The command line without its `$ `, as a shell reads it. */
  command: string;
  /** The lines shown after it, up to the next command, without trailing blank lines. */
  output: string[];
  /** The line of the document the command is on (1-based). */
  line: number;
}

/** A ```console block of a Markdown file. */
export interface ConsoleExample {
  file: string;
  /** The line of the document the block's fence is on (1-based). */
  line: number;
  /** The repository folder the block runs in (`cwd=...` in its info string); `.` for the root. */
  cwd: string;
  /** Environment variables the block sets (`NAME=value` in its info string). */
  env: Record<string, string>;
  /** Why the block is not run: the text of a `<!-- not run: ... -->` comment on the line before it. */
  notRun: string | undefined;
  commands: ConsoleCommand[];
}

/** A block of a Markdown file that shows `$ ` commands without being a console example. */
export interface StrayCommandBlock {
  file: string;
  line: number;
  language: string;
}

const FENCE = /^(`{3,})(\S*)(.*)$/;

/**
 * The console examples of a Markdown file: ```console blocks whose lines starting with `$ ` are
 * commands and whose other lines are the output of the command above them. The info string may name
 * the folder the block runs in (`cwd=test/cli/fixtures`) and environment variables (`NAME=value`);
 * a `<!-- not run: reason -->` comment on the line before the fence marks a block the test leaves out.
 * Blank lines right before a command only separate it from the output above.
 *
 * @example
 * ```ts
 * const [first] = consoleExamplesOf('docs/cli.md');
 * console.log(first?.commands[0]?.command, first?.commands[0]?.output);
 * ```
 */
export function consoleExamplesOf(file: string): { examples: ConsoleExample[]; strays: StrayCommandBlock[] } {
  const lines = readFileSync(file, 'utf8').split('\n');
  const examples: ConsoleExample[] = [];
  const strays: StrayCommandBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const fence = FENCE.exec(lines[index] as string);
    if (fence === null) continue;
    const [, ticks = '```', language = '', info = ''] = fence;
    let end = index + 1;
    while (end < lines.length && (lines[end] as string).trim() !== ticks) end += 1;
    const body = lines.slice(index + 1, end);
    if (language === 'console') {
      examples.push({
        file,
        line: index + 1,
        ...optionsOf(info, `${file}:${index + 1}`),
        notRun: /^<!-- not run: (.+) -->$/.exec((lines[index - 1] ?? '').trim())?.[1],
        commands: commandsOf(body, index + 2),
      });
    } else if (language !== 'markdown' && body.some((line) => line.startsWith('$ '))) {
      strays.push({ file, line: index + 1, language });
    }
    index = end;
  }
  return { examples, strays };
}

function optionsOf(info: string, where: string): Pick<ConsoleExample, 'cwd' | 'env'> {
  let cwd = '.';
  const env: Record<string, string> = {};
  for (const word of info.trim().split(/\s+/).filter(Boolean)) {
    const pair = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(word);
    if (pair === null) throw new Error(`${where}: '${word}' is not a console block option (cwd=PATH or NAME=value)`);
    if (pair[1] === 'cwd') cwd = pair[2] as string;
    else env[pair[1] as string] = pair[2] as string;
  }
  return { cwd, env };
}

function commandsOf(body: string[], firstLine: number): ConsoleCommand[] {
  const commands: ConsoleCommand[] = [];
  body.forEach((text, offset) => {
    if (text.startsWith('$ ')) {
      commands.push({ command: text.slice(2), output: [], line: firstLine + offset });
      return;
    }
    const current = commands.at(-1);
    if (current === undefined) throw new Error(`line ${firstLine + offset}: output before the first '$ ' command`);
    current.output.push(text);
  });
  for (const command of commands) {
    while (command.output.at(-1) === '') command.output.pop();
  }
  return commands;
}
