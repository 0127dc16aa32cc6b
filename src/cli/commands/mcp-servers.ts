import { type Command, InvalidArgumentError } from 'commander';
import type { UpstreamPinRecord } from '../../store/index.js';
// The constants' own module, not the store's entry: that would load Kysely on every CLI start.
import { MCP_SERVER_NAME_PATTERN } from '../../store/store-validation.js';
import type { CliContext } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { visible } from '../output.js';
import { parseResourceId, withServiceStore } from '../with-service-store.js';
import { DEFAULT_WORKSPACE } from './serve.js';

/** Options of `toolshed mcp-servers changes` and `approve`. */
interface PinOptions {
  workspace: string;
  json?: boolean;
}

/**
 * Add `toolshed mcp-servers changes|approve`: the tools of `mcp_servers:` whose definition changed
 * since it was pinned (quarantined by `toolshed serve`, or by `list`, `call` and `mcp` when
 * `TOOLSHED_DATABASE_URL` is set), in the service database
 * (`TOOLSHED_DATABASE_URL`), the same as `GET /api/mcp-servers` and `POST /api/mcp-servers/:name/approve`.
 *
 * - `mcp-servers changes [SERVER] --workspace ID` prints each change waiting for approval: the tool,
 *   since when, and the diff (`-` as approved, `+` as the server lists it now); none is exit 0 with a
 *   note on stderr.
 * - `mcp-servers approve SERVER [TOOL] --workspace ID` prints the same diff for each change of SERVER
 *   (TOOL's only) and approves it: the tool is served again (by a running `toolshed serve` at its
 *   next call, list change or SIGHUP). Nothing to approve is exit 1.
 *
 * `--workspace` defaults to `default`, the workspace `toolshed serve` serves; one the database does not
 * have is exit 1, naming the closest ids. `--json` prints records.
 * A malformed server name or `--workspace` is a usage error (exit 2) before the database is opened.
 *
 * @example
 * ```ts
 * defineMcpServersCommand(program, context);
 * await program.parseAsync(['mcp-servers', 'approve', 'memory', 'read_graph'], { from: 'user' });
 * ```
 */
export function defineMcpServersCommand(program: Command, context: CliContext): Command {
  const servers = program
    .command('mcp-servers')
    .description(
      'Review and approve the changed tools of mcp_servers quarantined by toolshed serve (or by list, call and mcp with TOOLSHED_DATABASE_URL set), in the service database.',
    );

  servers
    .command('changes')
    .description('Show the tool definitions that changed since they were approved, as diffs.')
    .argument('[server]', 'only this MCP server (its name in mcp_servers:)', parseServerName)
    .option(
      '--workspace <id>',
      'the workspace toolshed serve serves the configuration to',
      parseResourceId,
      DEFAULT_WORKSPACE,
    )
    .option('--json', 'print the changes as a JSON array')
    .showHelpAfterError("Run 'toolshed mcp-servers changes --help' for usage.")
    .action(async (server: string | undefined, options: PinOptions) => {
      const { io } = context;
      const pending = await withServiceStore(
        io,
        async (store) =>
          (await store.upstreamPins.list(options.workspace, server)).filter((pin) => pin.pending !== undefined),
        { workspace: options.workspace },
      );
      if (options.json === true) io.stdout.write(`${JSON.stringify(pending.map(changeRecord))}\n`);
      else if (pending.length === 0) {
        io.stderr.write(
          `no changed tools waiting for approval${server === undefined ? '' : ` from MCP server ${server}`} in workspace ${visible(options.workspace)}\n`,
        );
      } else io.stdout.write(await describeChanges(pending));
      context.setExitCode(0);
    });

  servers
    .command('approve')
    .description('Approve the changed tools of an MCP server (or one of them): they are served again.')
    .argument('<server>', 'the MCP server (its name in mcp_servers:)', parseServerName)
    .argument('[tool]', "only this tool, by the server's name for it (read_graph, not memory__read_graph)")
    .option(
      '--workspace <id>',
      'the workspace toolshed serve serves the configuration to',
      parseResourceId,
      DEFAULT_WORKSPACE,
    )
    .option('--json', 'print the approved changes as a JSON array')
    .showHelpAfterError("Run 'toolshed mcp-servers approve --help' for usage.")
    .action(async (server: string, tool: string | undefined, options: PinOptions) => {
      const { io } = context;
      const approved = await withServiceStore(
        io,
        async (store) => {
          const pending = (await store.upstreamPins.list(options.workspace, server)).filter(
            (pin) => pin.pending !== undefined && (tool === undefined || pin.tool === tool),
          );
          const names = await store.upstreamPins.approve(options.workspace, server, tool);
          return pending.filter((pin) => names.includes(pin.tool));
        },
        { workspace: options.workspace },
      );
      if (approved.length === 0) {
        throw new CliError(
          `error: MCP server '${server}' has no ${tool === undefined ? 'changed tool' : `change of tool '${visible(tool)}'`} waiting for approval in workspace '${visible(options.workspace)}'; list them with 'toolshed mcp-servers changes --workspace ${visible(options.workspace)}'.`,
          1,
        );
      }
      if (options.json === true) io.stdout.write(`${JSON.stringify(approved.map(changeRecord))}\n`);
      else {
        io.stdout.write(await describeChanges(approved));
        io.stdout.write(
          `approved ${approved.length} change${approved.length === 1 ? '' : 's'} of MCP server ${server}: ${approved.map((pin) => visible(pin.tool)).join(', ')}\n`,
        );
      }
      context.setExitCode(0);
    });
  return servers;
}

/** A pending change as `--json` prints it: the definitions parsed, and the fields that changed. */
function changeRecord(pin: UpstreamPinRecord) {
  return {
    server: pin.server,
    tool: pin.tool,
    approvedAt: pin.approvedAt,
    pendingSince: pin.pending?.since,
    approved: JSON.parse(pin.definition) as unknown,
    current: JSON.parse(pin.pending?.definition ?? 'null') as unknown,
  };
}

async function describeChanges(pins: readonly UpstreamPinRecord[]): Promise<string> {
  const { describeDefinitionChange } = await import('../../mcp/upstream-pins.js');
  return pins
    .map((pin) => {
      const diff = describeDefinitionChange(pin.definition, pin.pending?.definition ?? pin.definition);
      return `${pin.server} ${visible(pin.tool)} (changed since ${pin.pending?.since}; approved ${pin.approvedAt})\n${visible(diff)}\n`;
    })
    .join('\n');
}

function parseServerName(value: string): string {
  if (!MCP_SERVER_NAME_PATTERN.test(value)) {
    throw new InvalidArgumentError("Use an MCP server name: a letter, then up to 31 letters, digits, '_' or '-'.");
  }
  return value;
}
