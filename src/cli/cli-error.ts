import { ToolshedError } from '../core/errors/toolshed-error.js';
/**
 * How a CLI run ended: `0` ok, `1` failure (a tool error result, a load error, a bad input file),
 * `2` usage (unknown verb, missing argument, bad flag).
 */
export type ExitCode = 0 | 1 | 2;

/**
 * A user-facing CLI failure: the message is printed to stderr as is (no stack trace) and the run ends
 * with `exitCode`.
 *
 * @example
 * ```ts
 * throw new CliError(`error: --tools path 'nope' does not exist.`, 1);
 * ```
 */
export class CliError extends ToolshedError<'CLI_FAILED'> {
  readonly exitCode: ExitCode;

  constructor(message: string, exitCode: ExitCode = 1) {
    super('CLI_FAILED', message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
