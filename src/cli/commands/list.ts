import type { Command } from 'commander';
import type { ToolSpec } from '../../core/tool-spec.js';
import { addToolsOptions, type CliContext, type ToolsOptions } from '../cli-context.js';
import { loadTools, resolveToolSetup } from '../load-registry.js';
import { firstSentence, formatTable, oneLine, toJson, truncate } from '../output.js';

/** One tool in `toolshed list --json`; `title` is `null` when the tool has none. */
export interface ListedTool {
  name: string;
  title: string | null;
  category: string;
  description: string;
  tags: string[];
}

/** The line `list` prints when there are no tools (exit 0). */
export const NO_TOOLS_MESSAGE =
  'No tools registered. Pass --config FILE (a toolshed.yaml) or --tools PATH (a YAML definition file or a folder of *.yaml files), or create ./toolshed.yaml or a ./tools folder.';

/**
 * Add `toolshed list`: one aligned line per tool (name, category, first sentence of the description),
 * or `{"tools": [...]}` with `--json`.
 *
 * With no configuration, no `--tools` and no `./tools` folder, it lists the built-in tools (their file
 * tools rooted at the working folder, said in a note on stderr); `--tools` paths that hold no
 * definitions print {@link NO_TOOLS_MESSAGE}. `--agent ID` lists that agent's tools only.
 *
 * @example
 * ```ts
 * defineListCommand(program, context);
 * await program.parseAsync(['list', '--tools', './tools', '--json'], { from: 'user' });
 * ```
 */
export function defineListCommand(program: Command, context: CliContext): Command {
  const command = program
    .command('list')
    .description('List the registered tools: name, category and the first sentence of the description.');
  return addToolsOptions(command)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  toolshed list --tools ./tools',
        '  toolshed list --tools tools/add.yaml --json',
        '  toolshed list --config examples/toolshed.yaml --agent assistant',
      ].join('\n'),
    )
    .action(async (options: ToolsOptions) => {
      context.setExitCode(await runList(options, context));
    });
}

/** The `list` action; returns the exit code. */
export async function runList(options: ToolsOptions, { io }: CliContext): Promise<0> {
  const loaded = await loadTools(await resolveToolSetup(options, io.cwd), io, []);
  let tools: ToolSpec[];
  try {
    tools = loaded.registry.tools();
  } finally {
    await loaded.close();
  }
  if (options.json === true) {
    io.stdout.write(toJson({ tools: tools.map(toListedTool) }));
    return 0;
  }
  if (tools.length === 0) {
    io.stdout.write(`${NO_TOOLS_MESSAGE}\n`);
    return 0;
  }
  const lines = formatTable(tools.map((tool) => [tool.name, oneLine(tool.category), firstSentence(tool.description)]));
  io.stdout.write(lines.map((line) => `${truncate(line, io.stdout.columns)}\n`).join(''));
  return 0;
}

function toListedTool(tool: ToolSpec): ListedTool {
  return {
    name: tool.name,
    title: tool.title ?? null,
    category: tool.category,
    description: tool.description,
    tags: [...tool.tags],
  };
}
