import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { addToolsOptions, type CliContext, pathValue, type ToolsOptions } from '../cli-context.js';
import type { ExitCode } from '../cli-error.js';
import { renderEnvExample } from '../docs/render-env-example.js';
import { renderToolCatalog } from '../docs/render-tool-catalog.js';
import { fileCliError } from '../file-cli-error.js';
import { displayPath, withTools } from '../load-registry.js';
import { toJson, visible } from '../output.js';

/** Where `toolshed docs` writes the catalog when `--out` is not given. */
export const DEFAULT_DOCS_DIR = 'docs/tools';

/** Where `toolshed docs` writes the environment template when `--env-example` is not given. */
export const DEFAULT_ENV_EXAMPLE = '.env.example';

/** Options of `toolshed docs`. */
export interface DocsCommandOptions extends ToolsOptions {
  /** `--out DIR`: the folder of the catalog's `README.md`. */
  out?: string;
  /** `--env-example FILE`: where the environment template goes. */
  envExample?: string;
  /** `--check`: compare with the files on disk instead of writing (exit 1 on any difference). */
  check?: boolean;
}

/** What happened to one generated file. */
export type DocsFileStatus = 'written' | 'unchanged' | 'stale' | 'missing';

/** One file of `toolshed docs --json`. */
export interface DocsFileJson {
  path: string;
  status: DocsFileStatus;
}

/**
 * Add `toolshed docs`: write the tool catalog (`DIR/README.md`, default `docs/tools`) and the
 * environment template (`.env.example` in the current folder) from the tool definitions (SPEC §5.2),
 * and print what was written. A file whose content is already right is left untouched.
 *
 * With `--check` nothing is written: a file that is missing or differs is reported on stderr and the
 * run exits 1, so CI catches docs that drifted from the definitions.
 *
 * @example
 * ```ts
 * defineDocsCommand(program, context);
 * await program.parseAsync(['docs', '--config', 'toolshed.yaml', '--check'], { from: 'user' });
 * ```
 */
export function defineDocsCommand(program: Command, context: CliContext): Command {
  const command = program
    .command('docs')
    .description('Write the tool catalog (README.md) and .env.example from the tool definitions.')
    .option(
      '--out <dir>',
      `the folder of the catalog's README.md (default: ./${DEFAULT_DOCS_DIR})`,
      pathValue('folder'),
    )
    .option(
      '--env-example <file>',
      `where to write the environment template (default: ./${DEFAULT_ENV_EXAMPLE})`,
      pathValue('file'),
    )
    .option('--check', 'write nothing; exit 1 when the files on disk are missing or out of date');
  return addToolsOptions(command)
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 written (or, with --check, up to date); 1 out of date with --check, or the tools failed',
        'to load; 2 usage error.',
        '',
        'Examples:',
        '  toolshed docs --config examples/toolshed.yaml --out examples/docs',
        '  toolshed docs --check',
      ].join('\n'),
    )
    .action(async (options: DocsCommandOptions) => {
      context.setExitCode(await runDocs(options, context));
    });
}

/** The `docs` action; returns the exit code. */
export async function runDocs(options: DocsCommandOptions, { io }: CliContext): Promise<ExitCode> {
  const tools = await withTools(options, io, (loaded) => loaded.registry.tools());
  const files = [
    { path: resolve(io.cwd, join(options.out ?? DEFAULT_DOCS_DIR, 'README.md')), content: renderToolCatalog(tools) },
    { path: resolve(io.cwd, options.envExample ?? DEFAULT_ENV_EXAMPLE), content: renderEnvExample(tools) },
  ];
  // Every file is read before any is written: one that cannot be read (a folder) writes nothing.
  const currents = await Promise.all(files.map((file) => readCurrent(file.path, displayPath(file.path, io.cwd))));
  const results: DocsFileJson[] = [];
  for (const [index, file] of files.entries()) {
    const current = currents[index];
    const shown = displayPath(file.path, io.cwd);
    let status: DocsFileStatus;
    if (current === file.content) status = 'unchanged';
    else if (options.check === true) status = current === undefined ? 'missing' : 'stale';
    else {
      await write(file.path, file.content, shown);
      status = 'written';
    }
    results.push({ path: shown, status });
  }

  const drifted = results.filter((result) => result.status === 'missing' || result.status === 'stale');
  if (options.json === true) io.stdout.write(toJson({ files: results }));
  else {
    for (const result of results) {
      if (result.status === 'written') io.stdout.write(`Wrote ${visible(result.path)}.\n`);
      else if (result.status === 'unchanged') io.stdout.write(`${visible(result.path)} is up to date.\n`);
    }
  }
  if (drifted.length === 0) return 0;
  const fix = rerunCommand(options);
  for (const result of drifted) {
    const problem = result.status === 'missing' ? 'does not exist' : 'is out of date with the tool definitions';
    io.stderr.write(`error: ${visible(result.path)} ${problem}; run '${visible(fix)}' to update it.\n`);
  }
  return 1;
}

async function readCurrent(path: string, shown: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw fileCliError(error, shown, 'read');
  }
}

async function write(path: string, content: string, shown: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  } catch (error) {
    throw fileCliError(error, shown, 'write');
  }
}

/** The command that brings the files up to date: this run's flags without `--check`. */
function rerunCommand(options: DocsCommandOptions): string {
  const parts = ['toolshed docs'];
  if (options.config !== undefined) parts.push('--config', options.config);
  for (const path of options.tools ?? []) parts.push('--tools', path);
  if (options.agent !== undefined) parts.push('--agent', options.agent);
  if (options.out !== undefined) parts.push('--out', options.out);
  if (options.envExample !== undefined) parts.push('--env-example', options.envExample);
  return parts.join(' ');
}
