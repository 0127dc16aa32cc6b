import { type Command, Option } from 'commander';
import type { ExportResult } from '../../exporters/shared/export-result.js';
import type { ToolRegistry } from '../../registry/tool-registry.js';
import { addToolsOptions, type CliContext, type ToolsOptions } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { withTools } from '../load-registry.js';
import { oneLine, toJson } from '../output.js';

/** The formats `toolshed export --format` writes, in the order `--help` lists them. */
export const EXPORT_FORMATS = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const;

/** One of {@link EXPORT_FORMATS}. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const STRICT_FORMATS: ReadonlySet<ExportFormat> = new Set(['openai', 'openai-responses', 'anthropic']);

/** Options of `toolshed export`. */
export interface ExportCommandOptions extends ToolsOptions {
  format: ExportFormat;
  /** `--strict`: OpenAI strict mode, or Anthropic strict tool use (openai, openai-responses, anthropic). */
  strict?: boolean;
}

/**
 * Add `toolshed export --format FORMAT`: the provider tool list of the registry (or of `--agent ID`'s
 * tools), ready to paste into a model call. Prints the tools array, or `{tools, warnings}` with
 * `--json`; each warning (a rewrite, a tool left out) also goes to stderr as
 * `warning: <tool>: <message>`. Warnings do not change the exit code.
 *
 * An unknown `--format` is a usage error (exit 2) listing the formats, and so is `--strict` with a
 * format other than `openai`, `openai-responses` or `anthropic`.
 *
 * @example
 * ```ts
 * defineExportCommand(program, context);
 * await program.parseAsync(['export', '--format', 'anthropic', '--config', 'toolshed.yaml'], { from: 'user' });
 * ```
 */
export function defineExportCommand(program: Command, context: CliContext): Command {
  const command = program
    .command('export')
    .description('Print the tools as a provider tool list: OpenAI, Anthropic, Gemini or MCP.')
    .addOption(new Option('--format <format>', 'the tool-list format').choices(EXPORT_FORMATS).makeOptionMandatory())
    .option(
      '--strict',
      'strict mode: OpenAI (every property required, optional ones nullable, objects closed) or Anthropic strict tool use',
    );
  return addToolsOptions(command)
    .addHelpText(
      'after',
      [
        '',
        'Prints the tools array; --json prints {"tools": [...], "warnings": [...]}. Each warning also goes',
        "to stderr as 'warning: <tool>: <message>'.",
        '',
        'Examples:',
        '  toolshed export --format openai --strict --config examples/toolshed.yaml',
        '  toolshed export --format anthropic --agent assistant --json',
      ].join('\n'),
    )
    .action(async (options: ExportCommandOptions) => {
      context.setExitCode(await runExport(options, context));
    });
}

/** The `export` action; returns the exit code. */
export async function runExport(options: ExportCommandOptions, { io }: CliContext): Promise<0> {
  if (options.strict === true && !STRICT_FORMATS.has(options.format)) {
    throw new CliError(
      `error: --strict applies to --format openai, openai-responses and anthropic only, not '${options.format}'.`,
      2,
    );
  }
  const result = await withTools(options, io, (tools) =>
    exportTools(tools.registry, options.format, options.strict === true),
  );
  for (const warning of result.warnings) {
    io.stderr.write(`warning: ${oneLine(warning.tool)}: ${oneLine(warning.message)}\n`);
  }
  io.stdout.write(toJson(options.json === true ? { tools: result.tools, warnings: result.warnings } : result.tools));
  return 0;
}

/**
 * The tool list of `registry` in `format`.
 *
 * @example
 * ```ts
 * const { tools, warnings } = exportTools(registry, 'openai-responses', true);
 * ```
 */
export function exportTools(registry: ToolRegistry, format: ExportFormat, strict: boolean): ExportResult<unknown> {
  switch (format) {
    case 'openai':
      return registry.toOpenAITools({ api: 'chat', strict });
    case 'openai-responses':
      return registry.toOpenAITools({ api: 'responses', strict });
    case 'anthropic':
      return registry.toAnthropicTools({ strict });
    case 'gemini':
      return registry.toGeminiTools();
    case 'mcp':
      return registry.toMcpTools();
    default: {
      const unreachable: never = format;
      throw new CliError(`error: unknown export format '${String(unreachable)}'.`, 2);
    }
  }
}
