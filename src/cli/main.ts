import { Command, CommanderError } from 'commander';
import { isToolshedErrorCode, ToolshedError } from '../core/errors/toolshed-error.js';
import { toolshedVersion } from '../registry/toolshed-version.js';
import type { CliContext } from './cli-context.js';
import { CliError, type ExitCode } from './cli-error.js';
import { defineCallCommand } from './commands/call.js';
import { defineDbCommand } from './commands/db.js';
import { defineDescribeCommand } from './commands/describe.js';
import { defineDocsCommand } from './commands/docs.js';
import { defineEmailsCommand } from './commands/emails.js';
import { defineExportCommand } from './commands/export.js';
import { defineExtractCommand } from './commands/extract.js';
import { defineListCommand } from './commands/list.js';
import { defineMcpCommand } from './commands/mcp.js';
import { defineMcpServersCommand } from './commands/mcp-servers.js';
import { definePromptCommand } from './commands/prompt.js';
import { defineSearchCommand } from './commands/search.js';
import { defineSecretCommand } from './commands/secret.js';
import { defineServeCommand } from './commands/serve.js';
import { defineTokenCommand } from './commands/token.js';
import { defineValidateCommand } from './commands/validate.js';
import { defineWorkspaceCommand } from './commands/workspace.js';
import { environmentVariable } from './environment-variable.js';
import { explainValuesOfSwitches } from './flag-values.js';
import { type CliIo, processIo, visible } from './output.js';

/**
 * Build the `toolshed` command tree. Usage errors are thrown as `CommanderError`s (after commander has
 * printed them) instead of exiting, so {@link runCli} decides the exit code.
 *
 * The verbs' modules are small; the registry (and Ajv, YAML, handler modules), the configuration
 * loader, the MCP SDK, the built-in tools and the TypeScript compiler load only inside the action of
 * the verb that needs them, so `--help` and usage errors never pay for them.
 *
 * @example
 * ```ts
 * let exitCode = 0;
 * const program = createProgram({ io: processIo(), setExitCode: (code) => { exitCode = code; } });
 * await program.parseAsync(['list'], { from: 'user' });
 * ```
 */
export function createProgram(context: CliContext): Command {
  const { io } = context;
  const program = new Command('toolshed')
    .description(
      'Define an LLM agent tool once; check, list, call, export, document and serve it (MCP over stdio or HTTP).',
    )
    .version(toolshedVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [verb]', 'show help for a verb')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHelpWidth: () => io.stdout.columns ?? 100,
      getErrHelpWidth: () => io.stderr.columns ?? 100,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .showHelpAfterError("Run 'toolshed --help' for usage.")
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 ok; 1 failure (a tool error result, tools or a configuration that fail to load,',
        'validation errors, drift found by --check); 2 usage error.',
        'Tools come from --config FILE (default ./toolshed.yaml when it exists) and --tools PATH (repeatable);',
        'without either, from ./tools when that folder exists. --agent ID narrows them to one agent.',
      ].join('\n'),
    );
  defineListCommand(program, context);
  defineDescribeCommand(program, context);
  defineCallCommand(program, context);
  defineSearchCommand(program, context);
  defineValidateCommand(program, context);
  defineExportCommand(program, context);
  definePromptCommand(program, context);
  defineDocsCommand(program, context);
  defineMcpCommand(program, context);
  defineMcpServersCommand(program, context);
  defineServeCommand(program, context);
  defineExtractCommand(program, context);
  defineEmailsCommand(program, context);
  defineDbCommand(program, context);
  defineWorkspaceCommand(program, context);
  defineTokenCommand(program, context);
  defineSecretCommand(program, context);
  explainValuesOfSwitches(program);
  return program;
}

/**
 * Run the CLI on `argv` (the arguments after `toolshed`) and return the exit code: 0 ok, 1 failure,
 * 2 usage. Never throws for user errors: they are printed to stderr as one message, without a stack
 * trace. Waits until everything written has been handed to the streams.
 *
 * Set `TOOLSHED_DEBUG=1` to print the stack of an unexpected internal error.
 *
 * @example
 * ```ts
 * const exitCode = await runCli(['call', 'add_numbers', '--args', '{"a": 1, "b": 2}']);
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<ExitCode> {
  let exitCode: ExitCode = 0;
  const program = createProgram({
    io,
    setExitCode: (code) => {
      exitCode = code;
    },
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    exitCode = reportError(error, io);
  }
  await Promise.all([io.stdout.flush(), io.stderr.flush()]);
  return exitCode;
}

/**
 * The `bin/toolshed.js` entry: run the CLI on `process.argv` and exit with its code. Exiting
 * explicitly ends handlers a timed-out or cancelled call left running.
 *
 * @example
 * ```js
 * // bin/toolshed.js, which runs this module's bundle (scripts/bundle-cli.mjs)
 * import { main } from '../dist/cli-bundle/main.js';
 * await main();
 * ```
 */
export async function main(): Promise<never> {
  const exitCode = await runCli(process.argv.slice(2));
  process.exit(exitCode);
}

function reportError(error: unknown, io: CliIo): ExitCode {
  if (error instanceof CommanderError) {
    // Commander has already printed the message (or the help) through configureOutput.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    if (error.code === 'commander.help') return error.exitCode === 0 ? 0 : 2;
    return 2;
  }
  if (error instanceof CliError) {
    io.stderr.write(`${visible(error.message)}\n`);
    return error.exitCode;
  }
  if (ToolshedError.isInstance(error) && isToolshedErrorCode(error.code)) {
    // Registry errors are written for people: `file:line:col: ...`, "Did you mean ...?".
    io.stderr.write(`${visible(error.message)}\n`);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (environmentVariable(io.env, 'TOOLSHED_DEBUG') !== undefined && error instanceof Error) {
    io.stderr.write(`${visible(error.stack ?? message)}\n`);
  } else {
    io.stderr.write(`error: unexpected failure: ${visible(message)} (set TOOLSHED_DEBUG=1 for the stack trace)\n`);
  }
  return 1;
}
