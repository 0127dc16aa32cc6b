import type { Command, ErrorOptions } from 'commander';
import { visible } from './output.js';

/**
 * Make every command of `program` say plainly when a flag that takes no value is given one with `=`
 * (`--json=true`): commander reports it as an unknown option, since `--json=true` is not a flag it
 * knows, which reads as if `--json` did not exist. Other errors pass through unchanged.
 *
 * @example
 * ```ts
 * explainValuesOfSwitches(program);
 * // toolshed list --json=true →
 * // error: option '--json' takes no value: give '--json' alone, without '=true'.
 * ```
 */
export function explainValuesOfSwitches(program: Command): void {
  for (const command of [program, ...descendants(program)]) {
    const report = command.error.bind(command);
    command.error = (message: string, options?: ErrorOptions): never =>
      report(
        options?.code === 'commander.unknownOption' ? (switchGivenValue(command, message) ?? message) : message,
        options,
      );
  }
}

function descendants(command: Command): Command[] {
  return command.commands.flatMap((child) => [child, ...descendants(child)]);
}

/** The message for `--flag=value` when `--flag` is a switch of `command` (or of a command above it). */
function switchGivenValue(command: Command, message: string): string | undefined {
  const given = /^error: unknown option '(--[^=']+)=([^']*)'/.exec(message);
  if (given === null) return undefined;
  const [, flag, value] = given;
  for (let current: Command | null = command; current !== null; current = current.parent) {
    const option = current.options.find((candidate) => candidate.long === flag);
    if (option !== undefined && !option.required && !option.optional) {
      return `error: option '${flag}' takes no value: give '${flag}' alone, without '=${visible(value ?? '')}'.`;
    }
  }
  return undefined;
}
