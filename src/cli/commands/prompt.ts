import type { Command } from 'commander';
import { addToolsOptions, type CliContext, type ToolsOptions } from '../cli-context.js';
import { withTools } from '../load-registry.js';
import { visible } from '../output.js';

/** Options of `toolshed prompt`. */
export interface PromptCommandOptions extends Omit<ToolsOptions, 'json'> {
  /** `--cli`: append the command-line keyword block, for runtimes without tool calling. */
  cli?: boolean;
}

/**
 * Add `toolshed prompt`: the system-prompt block describing the tools (SPEC §5.2) — tools grouped by
 * category, a bullet per tool, a paragraph per when-to-use — as markdown on stdout. With `--agent ID`
 * it covers that agent's tools and starts with the agent's `prompt` from the configuration, when it has
 * one. `--cli` appends the block of command keywords.
 *
 * @example
 * ```ts
 * definePromptCommand(program, context);
 * await program.parseAsync(['prompt', '--agent', 'assistant', '--cli'], { from: 'user' });
 * ```
 */
export function definePromptCommand(program: Command, context: CliContext): Command {
  const command = program
    .command('prompt')
    .description("Print the system-prompt block describing the tools (an agent's prompt first, with --agent).")
    .option('--cli', 'append the command-line keywords, for runtimes without tool calling');
  return addToolsOptions(command, { json: false })
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  toolshed prompt --config examples/toolshed.yaml',
        '  toolshed prompt --config examples/toolshed.yaml --agent assistant --cli > system-prompt.md',
      ].join('\n'),
    )
    .action(async (options: PromptCommandOptions) => {
      context.setExitCode(await runPrompt(options, context));
    });
}

/** The `prompt` action; returns the exit code. */
export async function runPrompt(options: PromptCommandOptions, { io }: CliContext): Promise<0> {
  const text = await withTools(options, io, (tools) => {
    const docs = tools.registry.renderPromptDocs(options.cli === true ? { cliBlock: true } : {});
    const intro = tools.agent?.prompt?.trim();
    return intro === undefined || intro === '' ? docs : `${intro}\n\n${docs}`;
  });
  io.stdout.write(visible(text));
  return 0;
}
