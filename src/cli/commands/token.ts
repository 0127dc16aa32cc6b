import type { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { parseResourceId, parseResourceName, withServiceStore } from '../with-service-store.js';

/**
 * Add `toolshed token create --workspace ID [--name NAME]`: create an API token and print it once on
 * stdout (`--json`: `{id, workspaceId, name, createdAt, revokedAt, token}`). Only its hash is stored.
 * A malformed `--workspace` or a blank `--name` is a usage error (exit 2); a workspace that does not
 * exist is exit 1.
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
    .requiredOption('--workspace <id>', 'the workspace the token speaks for', parseResourceId)
    .option('--name <name>', 'a label for the token', parseResourceName, 'cli')
    .option('--json', 'print the token record as JSON')
    .showHelpAfterError("Run 'toolshed token create --help' for usage.")
    .action(async (options: { workspace: string; name: string; json?: boolean }) => {
      const { io } = context;
      const created = await withServiceStore(
        io,
        (store) => store.tokens.create(options.workspace, { name: options.name }),
        { workspace: options.workspace },
      );
      io.stdout.write(options.json === true ? `${JSON.stringify(created)}\n` : `${created.token}\n`);
      context.setExitCode(0);
    });
  return token;
}
