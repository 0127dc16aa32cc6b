import type { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { openServiceStore } from '../serve/open-service-store.js';

/**
 * Add `toolshed token create --workspace ID [--name NAME]`: create an API token and print it once on
 * stdout (`--json`: `{id, workspaceId, name, token, ...}`). Only its hash is stored.
 *
 * @example
 * ```ts
 * defineTokenCommand(program, context);
 * await program.parseAsync(['token', 'create', '--workspace', 'default'], { from: 'user' });
 * ```
 */
export function defineTokenCommand(program: Command, context: CliContext): Command {
  const token = program.command('token').description('Manage API tokens in the service database.');
  token
    .command('create')
    .description('Create an API token for a workspace; it is shown once.')
    .requiredOption('--workspace <id>', 'the workspace the token speaks for')
    .option('--name <name>', 'a label for the token', 'cli')
    .option('--json', 'print the token record as JSON')
    .action(async (options: { workspace: string; name: string; json?: boolean }) => {
      const { io } = context;
      const store = await openServiceStore(io);
      try {
        if ((await store.workspaces.get(options.workspace)) === undefined) {
          throw new CliError(
            `error: workspace '${options.workspace}' does not exist; create it with 'toolshed workspace create'.`,
            1,
          );
        }
        const created = await store.tokens.create(options.workspace, { name: options.name });
        io.stdout.write(options.json === true ? `${JSON.stringify(created)}\n` : `${created.token}\n`);
      } finally {
        await store.close();
      }
      context.setExitCode(0);
    });
  return token;
}
