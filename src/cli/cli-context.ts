import { type Command, InvalidArgumentError } from 'commander';
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
  /** `--config FILE`: the `toolshed.yaml` to load (default `./toolshed.yaml` when that file exists). */
  config?: string;
  /** `--tools PATH`, in the order given (repeatable); absent when none was given. */
  tools?: string[];
  /** `--agent ID`: work on that agent's tools only (its view of the registry, with its per-tool config). */
  agent?: string;
  /** `--json`: machine output on stdout. */
  json?: boolean;
  /**
   * `--sandbox-allow-network`: run the code tools' sandboxes without a network namespace, so sandboxed
   * code can reach the network (this host's loopback included): the operator's choice on a host that
   * cannot create network namespaces, where the sandboxes otherwise refuse to start.
   */
  sandboxAllowNetwork?: boolean;
}

/** Which of the shared flags a verb takes besides `--config` and `--tools` (both default to true). */
export interface ToolsFlags {
  /** Add `--agent ID`. */
  agent?: boolean;
  /** Add `--json`. */
  json?: boolean;
  /** Add `--sandbox-allow-network`, for a verb that runs the tools (default false). */
  sandbox?: boolean;
}

/** What `--sandbox-allow-network` does, as its help says it; `toolshed serve`, `mcp` and `call` take it. */
const SANDBOX_ALLOW_NETWORK_HELP =
  "run execute_python / execute_javascript and code tools without a network namespace, so sandboxed code can reach the network, this host's loopback and database included; for a host that cannot create network namespaces, where the sandboxes otherwise refuse to start (default: every sandbox in a network namespace without interfaces)";

/**
 * The warning a verb run with `--sandbox-allow-network` prints on stderr.
 *
 * @example
 * ```ts
 * sandboxNetworkWarning('mcp');
 * // "toolshed mcp: warning: --sandbox-allow-network: sandboxed code runs without a network namespace and can reach the network, this host's loopback and database included"
 * ```
 */
export function sandboxNetworkWarning(verb: string): string {
  return `toolshed ${verb}: warning: --sandbox-allow-network: sandboxed code runs without a network namespace and can reach the network, this host's loopback and database included`;
}

/**
 * Add the flags of a verb that reads tools — `--config FILE`, `--tools PATH` (repeatable), and unless
 * turned off `--agent ID` and `--json` — and the verb's own usage hint after errors.
 *
 * @example
 * ```ts
 * addToolsOptions(program.command('list').description('List the registered tools.'));
 * addToolsOptions(program.command('mcp'), { json: false });
 * ```
 */
export function addToolsOptions(command: Command, flags: ToolsFlags = {}): Command {
  command
    .option(
      '--config <file>',
      'the toolshed.yaml to load tools and agents from (default: ./toolshed.yaml when that file exists)',
      pathValue('file'),
    )
    .option(
      '--tools <path>',
      'a YAML definition file or a folder of *.yaml files; repeatable (default without a config: ./tools when that folder exists)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), pathValue('path')(value)],
    );
  if (flags.agent !== false) command.option('--agent <id>', 'only the tools of this agent of the configuration');
  if (flags.json !== false) command.option('--json', 'print machine-readable JSON on stdout');
  if (flags.sandbox === true) command.option('--sandbox-allow-network', SANDBOX_ALLOW_NETWORK_HELP);
  return command.showHelpAfterError(`Run 'toolshed ${command.name()} --help' for usage.`);
}

/**
 * The parser of a flag that names a file or folder: an empty value (an unset shell variable,
 * `--out "$DIR"`) is refused rather than read as the current folder, where a write would replace what
 * is there.
 *
 * @example
 * ```ts
 * command.option('--out <dir>', 'the folder to write to', pathValue('folder'));
 * // toolshed docs --out '' → error: option '--out <dir>' argument '' is invalid. Give a folder; an empty value names none.
 * ```
 */
export function pathValue(what: 'file' | 'folder' | 'path'): (value: string) => string {
  return (value) => {
    if (value.trim() === '') throw new InvalidArgumentError(`Give a ${what}; an empty value names none.`);
    return value;
  };
}
