import { resolve } from 'node:path';
import type { Command } from 'commander';
import { type ConfigDiagnostic, formatDiagnostic } from '../../config/config-diagnostic.js';
import { type CliContext, pathValue } from '../cli-context.js';
import { CliError, type ExitCode } from '../cli-error.js';
import { emailBuiltins } from '../email-builtins.js';
import { DEFAULT_CONFIG_FILE, displayPath } from '../load-registry.js';
import { toJson, visible } from '../output.js';
import type { McpServerProbe } from './probe-mcp-servers.js';

/** Options of `toolshed validate`. */
export interface ValidateCommandOptions {
  /** `--config FILE`: the same as the `[file]` argument. */
  config?: string;
  json?: boolean;
  /** `--probe`: connect to every `mcp_servers` entry and list its tools. */
  probe?: boolean;
}

/** `toolshed validate --json`: every finding, sorted by position. */
export interface ValidateJson {
  diagnostics: ConfigDiagnostic[];
  /** With `--probe`: each MCP server's tools, or why it did not answer. */
  probes?: McpServerProbe[];
}

/**
 * Add `toolshed validate [file]`: check a `toolshed.yaml` without running any tool (SPEC §5.1) and
 * print each finding as `file:line:col: error|warning: message` on stdout, with a one-line summary on
 * stderr. Exit 1 when there is any error (a missing file included), 0 otherwise (warnings alone pass).
 *
 * The file is the argument, else `--config`, else `./toolshed.yaml`. With `--probe`, a valid file's
 * `mcp_servers` are also connected to: each one's tools are listed on stderr, and one that does not
 * answer is an error on its entry.
 *
 * @example
 * ```ts
 * defineValidateCommand(program, context);
 * await program.parseAsync(['validate', 'examples/toolshed.yaml'], { from: 'user' });
 * ```
 */
export function defineValidateCommand(program: Command, context: CliContext): Command {
  return program
    .command('validate')
    .description(
      'Check a toolshed.yaml without running anything: unknown tool names, missing credentials, secrets pasted into the file.',
    )
    .argument('[file]', `the configuration file (default: --config, else ./${DEFAULT_CONFIG_FILE})`)
    .option('--config <file>', 'the configuration file, when not given as the argument', pathValue('file'))
    .option('--json', 'print {"diagnostics": [...]} on stdout')
    .option(
      '--probe',
      'also connect to every mcp_servers entry and list its tools (a server that does not answer is an error)',
    )
    .showHelpAfterError("Run 'toolshed validate --help' for usage.")
    .addHelpText(
      'after',
      [
        '',
        'Diagnostics go to stdout, one per line (file:line:col: error|warning: message); a summary goes to stderr.',
        'Exit codes: 0 no errors (warnings allowed); 1 errors, or the file is missing; 2 usage error.',
        '',
        'Examples:',
        '  toolshed validate',
        '  toolshed validate examples/toolshed.yaml --json',
        '  toolshed validate --probe',
      ].join('\n'),
    )
    .action(async (file: string | undefined, options: ValidateCommandOptions) => {
      context.setExitCode(await runValidate(file, options, context));
    });
}

/** The `validate` action; returns the exit code. */
export async function runValidate(
  file: string | undefined,
  options: ValidateCommandOptions,
  { io }: CliContext,
): Promise<ExitCode> {
  if (file !== undefined && options.config !== undefined && file !== options.config) {
    throw new CliError(
      `error: validate got two files, '${visible(file)}' and --config '${visible(options.config)}'; pass one.`,
      2,
    );
  }
  const path = file ?? options.config ?? DEFAULT_CONFIG_FILE;
  const { validateConfig } = await import('../../config/validate-config.js');
  const absolutePath = resolve(io.cwd, path);
  // The email tools are made to be checked, never called: their database is not opened.
  const check = await validateConfig(absolutePath, { env: io.env, moreBuiltins: emailBuiltins(io).builtins });
  const diagnostics = check.diagnostics;
  let probes: McpServerProbe[] | undefined;
  const valid = !diagnostics.some((diagnostic) => diagnostic.severity === 'error');
  if (options.probe === true && check.config !== undefined && valid) {
    const { probeMcpServers } = await import('./probe-mcp-servers.js');
    const probed = await probeMcpServers(check.config, check.env, displayPath(absolutePath, io.cwd));
    probes = probed.probes;
    diagnostics.push(...probed.diagnostics);
    for (const probe of probes) {
      if (probe.tools === undefined) continue;
      io.stderr.write(
        `MCP server '${probe.server}' answered with ${probe.tools.length} tool${probe.tools.length === 1 ? '' : 's'}${probe.tools.length === 0 ? '' : `: ${probe.tools.join(', ')}`}\n`,
      );
    }
  }
  if (options.json === true) {
    // Where, how bad and what: not the `tool` a credential warning is about, which may be a name the
    // file takes from the environment (messages show it as written).
    const shown = diagnostics.map(({ file, line, column, severity, message }) => ({
      file,
      line,
      column,
      severity,
      message,
    }));
    io.stdout.write(toJson({ diagnostics: shown, ...(probes === undefined ? {} : { probes }) } satisfies ValidateJson));
  } else io.stdout.write(diagnostics.map((diagnostic) => `${visible(formatDiagnostic(diagnostic))}\n`).join(''));
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  io.stderr.write(`${summary(displayPath(absolutePath, io.cwd), errors, warnings)}\n`);
  return errors > 0 ? 1 : 0;
}

function summary(file: string, errors: number, warnings: number): string {
  const shown = visible(file);
  const warningText = `${warnings} warning${warnings === 1 ? '' : 's'}`;
  if (errors > 0) return `${shown}: ${errors} error${errors === 1 ? '' : 's'}, ${warningText}.`;
  return warnings > 0 ? `${shown} is valid, with ${warningText}.` : `${shown} is valid.`;
}
