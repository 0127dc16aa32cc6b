import type { Command } from 'commander';
import type { StdioServing } from '../../mcp/serve-stdio.js';
import { addToolsOptions, type CliContext, sandboxNetworkWarning, type ToolsOptions } from '../cli-context.js';
import { loadTools, resolveToolSetup } from '../load-registry.js';
import { visible } from '../output.js';

/** Options of `toolshed mcp`. */
export type McpCommandOptions = Omit<ToolsOptions, 'json'>;

/**
 * Add `toolshed mcp`: serve the registry (or `--agent ID`'s tools, with that agent's per-tool config)
 * over MCP on stdio, the way Claude Desktop and other MCP clients launch local servers (SPEC §7.1).
 *
 * stdout carries the protocol only; configuration warnings and server problems go to stderr. The run
 * ends with exit 0 when the client closes stdin, or on SIGINT/SIGTERM. Configured `mcp_servers` stay
 * connected while serving; one that does not come up at start is tried again until it does. A change
 * of their tool lists (a server coming up, lost or back) reaches the client as
 * `notifications/tools/list_changed`.
 *
 * @example
 * ```ts
 * defineMcpCommand(program, context);
 * await program.parseAsync(['mcp', '--config', 'toolshed.yaml', '--agent', 'assistant'], { from: 'user' });
 * ```
 */
export function defineMcpCommand(program: Command, context: CliContext): Command {
  const command = program
    .command('mcp')
    .description('Serve the tools over MCP on stdio (for Claude Desktop and other MCP clients).');
  return addToolsOptions(command, { json: false, sandbox: true })
    .addHelpText(
      'after',
      [
        '',
        'stdout carries the MCP protocol only; everything else goes to stderr. The server stops when the',
        'client closes stdin, or on SIGINT/SIGTERM (exit 0).',
        '',
        'Claude Desktop (claude_desktop_config.json):',
        '  {"mcpServers": {"toolshed": {"command": "toolshed",',
        '    "args": ["mcp", "--config", "/path/to/toolshed.yaml", "--agent", "assistant"]}}}',
        'Without toolshed on PATH: "command": "node", "args": ["/path/to/toolshed/bin/toolshed.js", "mcp", ...]',
        '',
        'Examples:',
        '  toolshed mcp --config examples/toolshed.yaml',
        '  toolshed mcp --tools ./tools',
      ].join('\n'),
    )
    .action(async (options: McpCommandOptions) => {
      context.setExitCode(await runMcp(options, context));
    });
}

/** The `mcp` action: serves until stdin closes or a signal arrives; returns the exit code. */
export async function runMcp(options: McpCommandOptions, { io }: CliContext): Promise<0> {
  if (options.sandboxAllowNetwork === true) io.stderr.write(`${sandboxNetworkWarning('mcp')}\n`);
  // No reload can try an MCP server again here: one that does not come up is retried until it does.
  const tools = await loadTools(await resolveToolSetup(options, io.cwd), io, 'all', { retryMcpStart: true });
  let serving: StdioServing | undefined;
  const stop = () => {
    serving?.close().catch(() => {});
  };
  try {
    const { serveStdio } = await import('../../mcp/serve-stdio.js');
    const { contentCatalogOf } = await import('../../config/config-catalog.js');
    serving = await serveStdio(tools.registry, {
      ...(tools.agent === undefined ? {} : { context: { agentId: tools.agent.id } }),
      ...(tools.config === undefined ? {} : { catalog: contentCatalogOf(tools.config.config.catalog, tools.agent) }),
      onError: (error) => {
        io.stderr.write(`toolshed mcp: ${visible(error instanceof Error ? error.message : String(error))}\n`);
      },
    });
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    await serving.closed;
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    await tools.close();
  }
  return 0;
}
