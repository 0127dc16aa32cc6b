import { type Command, InvalidArgumentError } from 'commander';
import { checkJsonText, describeJsonLimitBreach, type JsonLimitBreach } from '../../core/input-limits.js';
import { droppedArgsNote, resultText, ToolResult } from '../../core/tool-result.js';
import type { ToolRegistry } from '../../registry/tool-registry.js';
import { addToolsOptions, type CliContext, sandboxNetworkWarning, type ToolsOptions } from '../cli-context.js';
import type { ExitCode } from '../cli-error.js';
import { NO_CONFIGURATION_HINT, withTools } from '../load-registry.js';
import { type CliIo, toJson, visible } from '../output.js';
import { type ArgumentsInput, MAX_ARGUMENT_BYTES, readArguments } from '../read-arguments.js';

/** Options of `toolshed call`. */
export interface CallCommandOptions extends ToolsOptions {
  /** `--args`: JSON text, `@FILE` or `-` (stdin). */
  args?: string;
  /** `--timeout`: milliseconds, overriding the tool's timeout. */
  timeout?: number;
}

/** The largest `--timeout` (the largest delay a Node timer honours). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * Add `toolshed call <tool>`: run the tool through `registry.call` (the full defensive pipeline) and
 * print what a model would read, or the whole `ToolResult` with `--json`.
 *
 * Exit 0 on `success`, 1 on any other status (error, timeout, cancelled, pending approval). Bad
 * `--args` JSON is not a usage error: the registry answers it with an `INVALID_ARGUMENTS` result
 * quoting the parse position, exactly as it would answer a model, so the exit code is 1.
 *
 * @example
 * ```ts
 * defineCallCommand(program, context);
 * await program.parseAsync(['call', 'add_numbers', '--args', '{"a": 1, "b": 2}'], { from: 'user' });
 * ```
 */
export function defineCallCommand(program: Command, context: CliContext): Command {
  const command = program
    .command('call')
    .description(
      'Call a tool with JSON arguments and print its result (on stdout when it succeeds, on stderr otherwise).',
    )
    .argument('<tool>', 'the tool name')
    .option(
      '--args <json>',
      'the arguments: a JSON object, @FILE to read them from a file, or - to read stdin (default: {})',
    )
    .option('--timeout <ms>', "milliseconds before the call times out (default: the tool's timeout)", parseTimeout);
  return addToolsOptions(command, { sandbox: true })
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 the call succeeded; 1 it did not (error, timeout, cancelled, pending approval) or',
        'the tools failed to load; 2 usage error.',
        '',
        'Examples:',
        `  toolshed call add_numbers --args '{"a": 1, "b": 2}'`,
        '  toolshed call add_numbers --args @args.json --json',
        `  echo '{"text": "hi"}' | toolshed call echo --args -`,
        `  toolshed call word_count --config examples/toolshed.yaml --agent assistant --args '{"text": "a b a"}'`,
      ].join('\n'),
    )
    .action(async (name: string, options: CallCommandOptions) => {
      context.setExitCode(await runCall(name, options, context));
    });
}

/** The `call` action; returns the exit code. */
export async function runCall(name: string, options: CallCommandOptions, { io }: CliContext): Promise<ExitCode> {
  if (options.sandboxAllowNetwork === true) io.stderr.write(`${sandboxNetworkWarning('call')}\n`);
  const result = await withTools(
    options,
    io,
    async (tools) => {
      const called = await callTool(tools.registry, name, options, io);
      if (tools.config !== undefined || called.status !== 'error' || called.error.code !== 'TOOL_NOT_FOUND') {
        return called;
      }
      return ToolResult.error('TOOL_NOT_FOUND', `${called.error.message} ${NO_CONFIGURATION_HINT}`, {
        ...(called.error.hint === undefined ? {} : { hint: called.error.hint }),
        metadata: called.metadata,
      });
    },
    [name],
  );
  if (options.json === true) io.stdout.write(toJson(result));
  else {
    // Stdout keeps only the tool's output (JSON stays JSON for a pipe); the note on ignored arguments
    // goes to stderr.
    const note = droppedArgsNote(result);
    const text = visible(resultText(result));
    const output = result.status === 'success' ? io.stdout : io.stderr;
    if (text !== '') output.write(text.endsWith('\n') ? text : `${text}\n`);
    if (note !== undefined) io.stderr.write(`${visible(note)}\n`);
  }
  return result.status === 'success' ? 0 : 1;
}

async function callTool(
  registry: ToolRegistry,
  name: string,
  options: CallCommandOptions,
  io: CliIo,
): Promise<ToolResult> {
  // Let the registry phrase TOOL_NOT_FOUND (did-you-mean, available tools); no need to read --args.
  if (!registry.has(name)) return registry.call(name, undefined);
  const input = await readArguments(options.args, io.stdin, io.cwd);
  if (input.kind === 'too-large') return tooLarge(name, input);
  const breach = input.text === undefined ? undefined : checkJsonText(input.text);
  if (breach !== undefined) return overLimit(name, breach);
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  // The first Ctrl-C cancels the call (a CANCELLED result); a second one ends the process as usual.
  process.once('SIGINT', interrupt);
  try {
    return await registry.call(name, input.text, {
      signal: controller.signal,
      ...(options.timeout === undefined ? {} : { timeoutMs: options.timeout }),
    });
  } finally {
    process.removeListener('SIGINT', interrupt);
  }
}

function tooLarge(name: string, input: Extract<ArgumentsInput, { kind: 'too-large' }>): ToolResult {
  const where = input.source === 'inline' ? '' : ` (--args ${input.source === 'stdin' ? '-' : input.source})`;
  const size = input.bytes === undefined ? '' : `${input.bytes} bytes, `;
  const message = `Arguments for '${name}'${where} are ${size}more than the ${MAX_ARGUMENT_BYTES} bytes the CLI accepts.`;
  return ToolResult.error('INVALID_ARGUMENTS', message, {
    hint: 'Pass a smaller JSON object; put large content in a file the tool reads by path.',
    metadata: { tool: name },
  });
}

/** `--args` over a limit of INPUT_LIMITS, or with a refused or duplicate key: refused before it is parsed. */
function overLimit(name: string, breach: JsonLimitBreach): ToolResult {
  return ToolResult.error('INVALID_ARGUMENTS', describeJsonLimitBreach(`--args for '${name}'`, breach), {
    hint: 'Send a smaller, flatter JSON object with each key once; the limits are in docs/server.md.',
    details: { ...breach },
    metadata: { tool: name },
  });
}

function parseTimeout(value: string): number {
  const milliseconds = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(milliseconds >= 1 && milliseconds <= MAX_TIMEOUT_MS)) {
    throw new InvalidArgumentError(`Use a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}.`);
  }
  return milliseconds;
}
