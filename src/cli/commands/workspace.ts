import type { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { visible } from '../output.js';
import { openServiceStore } from '../serve/open-service-store.js';

/**
 * Add `toolshed workspace create NAME [--id ID]`: create a workspace in the service database and
 * print its id (`--json`: the workspace record).
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
    .argument('<name>', 'a human-readable name')
    .option('--id <id>', 'the workspace id (default: a random ws_...)')
    .option('--json', 'print the workspace as JSON')
    .action(async (name: string, options: { id?: string; json?: boolean }) => {
      const { io } = context;
      const store = await openServiceStore(io);
      try {
        const created = await store.workspaces.create({
          name,
          ...(options.id === undefined ? {} : { id: options.id }),
        });
        io.stdout.write(options.json === true ? `${JSON.stringify(created)}\n` : `${visible(created.id)}\n`);
      } finally {
        await store.close();
      }
      context.setExitCode(0);
    });
  return workspace;
}
