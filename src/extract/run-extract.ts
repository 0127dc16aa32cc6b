import { checkDefinitions, type DefinitionDrift, formatDrift } from './check-definitions.js';
import { displayPath } from './display-path.js';
import { type ExtractedTool, extractTools } from './extract-tools.js';
import { writeDefinitions } from './write-definitions.js';

/** The output folder when none is given: the folder the CLI loads tools from by default. */
export const DEFAULT_EXTRACT_OUT_DIR = 'tools';

/** Options of {@link runExtract}: the flags of `toolshed extract FILE [--out DIR] [--module FILE] [--check]`. */
export interface RunExtractOptions {
  /** The TypeScript file holding the `@tool` functions. */
  file: string;
  /** Where the definitions go (default `tools`). */
  outDir?: string | undefined;
  /** Compare instead of writing; exit code 1 when the folder has drifted from the code. */
  check?: boolean | undefined;
  /** The compiled JavaScript module handlers import (default: `file` with `.ts` → `.js`). */
  moduleOut?: string | undefined;
  /** The tsconfig.json to read the file with (default: the nearest one; `false` for none). */
  tsconfig?: string | false | undefined;
}

/** What {@link runExtract} did: the data for `--json`, the text for a terminal, and the exit code. */
export interface RunExtractResult {
  tools: ExtractedTool[];
  /** Files written (none with `check`). */
  written: string[];
  /** Stale generated files removed (none with `check`). */
  removed: string[];
  /** How the folder differed from the code before this run (with `check`: the reason for exit code 1). */
  drift: DefinitionDrift;
  /** 0 when written, or with `check` when there is no drift; 1 on drift with `check`. */
  exitCode: 0 | 1;
  /** A human summary: what was written, or with `check` the drift and how to fix it. */
  report: string;
}

/**
 * The `toolshed extract` verb without its command-line parsing: extract the `@tool` functions of
 * `file` and write their definitions to `outDir`, or with `check` only report the drift (exit code 1
 * when there is any, for CI).
 *
 * Throws `ExtractError` when the source cannot be extracted (its message is the one line to print;
 * a CLI exits 1) — see {@link extractTools} and {@link writeDefinitions}.
 *
 * @example
 * ```ts
 * const { exitCode, report } = await runExtract({ file: 'src/tools.ts', outDir: 'tools', check: true });
 * (exitCode === 0 ? process.stdout : process.stderr).write(report);
 * process.exitCode = exitCode;
 * ```
 */
export async function runExtract(options: RunExtractOptions): Promise<RunExtractResult> {
  const outDir = options.outDir ?? DEFAULT_EXTRACT_OUT_DIR;
  const tools = await extractTools(options.file, { moduleOut: options.moduleOut, tsconfig: options.tsconfig });
  const drift = await checkDefinitions(tools, outDir);
  const source = displayPath(tools[0]!.sourceFile);
  const count = `${tools.length} tool${tools.length === 1 ? '' : 's'}`;
  if (options.check === true) {
    if (drift.clean) {
      return {
        tools,
        written: [],
        removed: [],
        drift,
        exitCode: 0,
        report: `${outDir} is up to date with ${source} (${count}).\n`,
      };
    }
    const command = [
      'toolshed extract',
      options.file,
      '--out',
      outDir,
      ...(options.moduleOut === undefined ? [] : ['--module', options.moduleOut]),
    ].join(' ');
    return {
      tools,
      written: [],
      removed: [],
      drift,
      exitCode: 1,
      report: `${outDir} has drifted from ${source}:\n${formatDrift(drift)}Run \`${command}\` to update it.\n`,
    };
  }
  const { written, unchanged, removed } = await writeDefinitions(tools, outDir);
  const parts = [`${written.length} written`, `${unchanged.length} unchanged`];
  if (removed.length > 0) parts.push(`${removed.length} stale removed`);
  return {
    tools,
    written,
    removed,
    drift,
    exitCode: 0,
    report: `Extracted ${count} from ${source} into ${outDir}: ${parts.join(', ')}.\n`,
  };
}
