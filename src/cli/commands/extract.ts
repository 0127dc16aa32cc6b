import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import { type CliContext, pathValue } from '../cli-context.js';
import type { ExitCode } from '../cli-error.js';
import { erroredPath, fileCliError } from '../file-cli-error.js';
import { toJson, visible } from '../output.js';

/** Options of `toolshed extract`. */
export interface ExtractCommandOptions {
  /** `--out DIR`: where the definitions go (default `tools`). */
  out?: string;
  /** `--check`: compare instead of writing; exit 1 on drift. */
  check?: boolean;
  /** `--module FILE`: the compiled JavaScript module the handlers import. */
  module?: string;
  /** `--tsconfig FILE`: the tsconfig.json to read the source with. */
  tsconfig?: string;
  json?: boolean;
}

/** `toolshed extract --json`: what was extracted, written and removed, and the drift found. */
export interface ExtractJson {
  tools: string[];
  written: string[];
  removed: string[];
  drift: { missing: string[]; extra: string[]; changed: string[]; clean: boolean };
}

/**
 * Add `toolshed extract <file.ts>`: read the exported functions tagged `@tool` in a TypeScript file and
 * write their YAML definitions (SPEC §4.3), or with `--check` report how the folder drifted from the
 * code. The report goes to stdout on success and to stderr on drift (exit 1). A source that cannot be
 * extracted prints the extractor's message, starting with `file:line:col:` (exit 1).
 *
 * The TypeScript compiler loads inside the action, never for other verbs.
 *
 * @example
 * ```ts
 * defineExtractCommand(program, context);
 * await program.parseAsync(['extract', 'src/tools.ts', '--out', 'tools', '--check'], { from: 'user' });
 * ```
 */
export function defineExtractCommand(program: Command, context: CliContext): Command {
  return program
    .command('extract')
    .description('Write tool definitions from the @tool functions of a TypeScript file (or check them with --check).')
    .argument('<file>', 'the TypeScript file holding the @tool functions')
    .option('--out <dir>', 'the folder the definitions go to (default: ./tools)', pathValue('folder'))
    .option('--check', 'write nothing; exit 1 when the folder has drifted from the code')
    .option(
      '--module <file>',
      'the compiled JavaScript module the handlers import (default: the file with .js)',
      pathValue('file'),
    )
    .option('--tsconfig <file>', 'the tsconfig.json to read the file with (default: the nearest one)')
    .option('--json', 'print what was extracted, written and removed as JSON on stdout')
    .showHelpAfterError("Run 'toolshed extract --help' for usage.")
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 written (or, with --check, up to date); 1 drift with --check, or the file cannot be',
        'extracted; 2 usage error.',
        '',
        'Examples:',
        '  toolshed extract src/tools.ts --out tools --module dist/tools.js',
        '  toolshed extract src/tools.ts --out tools --module dist/tools.js --check',
      ].join('\n'),
    )
    .action(async (file: string, options: ExtractCommandOptions) => {
      context.setExitCode(await runExtractCommand(file, options, context));
    });
}

/** The `extract` action; returns the exit code (an `ExtractError` propagates and exits 1). */
export async function runExtractCommand(
  file: string,
  options: ExtractCommandOptions,
  { io }: CliContext,
): Promise<ExitCode> {
  const { runExtract } = await import('../../extract/run-extract.js');
  // Paths as given when the CLI runs in its own folder, so the report repeats what was typed.
  const at = (path: string) => (io.cwd === process.cwd() || isAbsolute(path) ? path : resolve(io.cwd, path));
  const result = await runExtract({
    file: at(file),
    outDir: options.out === undefined ? undefined : at(options.out),
    check: options.check === true,
    moduleOut: options.module === undefined ? undefined : at(options.module),
    tsconfig: options.tsconfig === undefined ? undefined : at(options.tsconfig),
  }).catch((error: unknown) => {
    // The output folder cannot be read or written (a file on its path, a folder named like a
    // definition, no permission): one line naming it, not "unexpected failure".
    throw fileCliError(error, erroredPath(error, io.cwd) ?? options.out ?? 'tools', 'write');
  });
  if (options.json === true) {
    const json: ExtractJson = {
      tools: result.tools.map((tool) => tool.definition.name),
      written: result.written,
      removed: result.removed,
      drift: {
        missing: result.drift.missing,
        extra: result.drift.extra,
        changed: result.drift.changed.map((change) => change.file),
        clean: result.drift.clean,
      },
    };
    io.stdout.write(toJson(json));
  }
  const report = visible(result.report);
  if (result.exitCode === 0) {
    if (options.json !== true) io.stdout.write(report);
  } else io.stderr.write(report);
  return result.exitCode;
}
