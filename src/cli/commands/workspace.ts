import type { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { visible } from '../output.js';
import { parseResourceId, parseResourceName, withServiceStore } from '../with-service-store.js';

/**
 * Add `toolshed workspace create NAME [--id ID]`: create a workspace in the service database and
 * print its id (`--json`: the workspace record). A blank or over-long name and a malformed `--id`
 * are usage errors (exit 2); an id that is taken is exit 1.
 *
 * @example
 * ```ts
 * defineWorkspaceCommand(program, context);
 * await program.parseAsync(['workspace', 'create', 'Acme'], { from: 'user' });
 * ```
 */
export function defineWorkspaceCommand(program: Command, context: CliContext): Command {
  const workspace = program.command('workspace').description('Manage workspaces in the service database.');
  workspace
    .command('create')
    .description('Create a workspace.')
    .argument('<name>', 'a human-readable name', parseResourceName)
    .option('--id <id>', 'the workspace id (default: a random ws_...)', parseResourceId)
    .option('--json', 'print the workspace as JSON')
    .showHelpAfterError("Run 'toolshed workspace create --help' for usage.")
    .action(async (name: string, options: { id?: string; json?: boolean }) => {
      const { io } = context;
      const created = await withServiceStore(io, (store) =>
        store.workspaces.create({ name, ...(options.id === undefined ? {} : { id: options.id }) }),
      );
      io.stdout.write(options.json === true ? `${JSON.stringify(created)}\n` : `${visible(created.id)}\n`);
      context.setExitCode(0);
    });
  return workspace;
}
