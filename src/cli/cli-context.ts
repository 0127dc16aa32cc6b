import type { Command } from 'commander';
import type { ExitCode } from './cli-error.js';
import type { CliIo } from './output.js';

/** What a verb's action needs from the run: the process surface and a way to set the exit code. */
export interface CliContext {
  io: CliIo;
  /** Record how the run ends; the last call wins. */
  setExitCode(code: ExitCode): void;
}

/** The options every verb that reads tools accepts. */
export interface ToolsOptions {
  /** `--tools PATH`, in the order given (repeatable); absent when none was given. */
  tools?: string[];
  /** `--json`: machine output on stdout. */
  json?: boolean;
}

/**
 * Add `--tools PATH` (repeatable) and `--json` to a verb, and the verb's own usage hint after errors.
 *
 * @example
 * ```ts
 * addToolsOptions(program.command('list').description('List the registered tools.'));
 * ```
 */
export function addToolsOptions(command: Command): Command {
  return command
    .option(
      '--tools <path>',
      'a YAML definition file or a folder of *.yaml files; repeatable (default: ./tools when that folder exists)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--json', 'print machine-readable JSON on stdout')
    .showHelpAfterError(`Run 'toolshed ${command.name()} --help' for usage.`);
}
