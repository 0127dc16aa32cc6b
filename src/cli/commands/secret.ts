import { type Command, InvalidArgumentError } from 'commander';
// The constants' own module, not the store's entry: that would load Kysely on every CLI start.
import { SECRET_NAME_PATTERN, STORE_LIMITS } from '../../store/store-validation.js';
import type { CliContext } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { visible } from '../output.js';
import { readLimitedStdin } from '../read-limited-stdin.js';
import { parseResourceId, withServiceStore } from '../with-service-store.js';

/** Options of `toolshed secret set`. */
interface SetOptions {
  workspace: string;
  valueStdin?: boolean;
  value?: string;
  json?: boolean;
}

/**
 * Add `toolshed secret set|list|delete`: a workspace's secrets in the service database, which its REST
 * tools reference as `auth: {type: bearer, secret: NAME}` (the same as `PUT/GET/DELETE /api/secrets`).
 *
 * - `secret set NAME --workspace ID --value-stdin` stores the value read from stdin (one trailing
 *   newline dropped); `--value VALUE` takes it from the command line, where shell history keeps it.
 *   Prints `created secret NAME in workspace ID` (or `replaced ...`); `--json` the record.
 * - `secret list --workspace ID` prints one `NAME  updated TIMESTAMP` line per secret, never a value.
 * - `secret delete NAME --workspace ID` deletes it; a secret the workspace does not have is exit 1.
 *
 * A malformed name or `--workspace`, and no value source or both, are usage errors (exit 2) checked
 * before the database is opened; a workspace that does not exist, and a server without a usable key,
 * exit 1.
 *
 * @example
 * ```ts
 * defineSecretCommand(program, context);
 * await program.parseAsync(['secret', 'list', '--workspace', 'default'], { from: 'user' });
 * ```
 */
export function defineSecretCommand(program: Command, context: CliContext): Command {
  const secret = program
    .command('secret')
    .description("Manage a workspace's secrets (what its REST tools authenticate with) in the service database.");

  secret
    .command('set')
    .description('Store a secret in a workspace, replacing its value if it exists.')
    .argument('<name>', 'the secret name, like an environment variable name (COMPANY_API_TOKEN)', parseSecretName)
    .requiredOption('--workspace <id>', 'the workspace the secret belongs to', parseResourceId)
    .option('--value-stdin', 'read the value from stdin (recommended; one trailing newline is dropped)')
    .option('--value <value>', 'the value itself; it lands in your shell history, so prefer --value-stdin')
    .option('--json', 'print the secret record (never the value) as JSON')
    .addHelpText(
      'after',
      [
        '',
        'A value given with --value is kept in your shell history and is visible to other users in the',
        'process list while the command runs; read it from stdin instead:',
        '  printf %s "$COMPANY_API_TOKEN" | toolshed secret set COMPANY_API_TOKEN --workspace default --value-stdin',
        'A REST tool of the workspace uses it with auth: {type: bearer, secret: COMPANY_API_TOKEN}.',
      ].join('\n'),
    )
    .showHelpAfterError("Run 'toolshed secret set --help' for usage.")
    .action(async (name: string, options: SetOptions) => {
      const { io } = context;
      if ((options.valueStdin === true) === (options.value !== undefined)) {
        throw new CliError(
          options.valueStdin === true
            ? 'error: give the value one way: --value-stdin or --value, not both.'
            : 'error: give the value with --value-stdin (read from stdin, recommended) or --value VALUE.',
          2,
        );
      }
      const value = options.value ?? (await readValue(io.stdin));
      const stored = await withServiceStore(io, (store) => store.secrets.set(options.workspace, name, value), {
        workspace: options.workspace,
      });
      io.stdout.write(
        options.json === true
          ? `${JSON.stringify(stored)}\n`
          : `${stored.created ? 'created' : 'replaced'} secret ${name} in workspace ${visible(options.workspace)}\n`,
      );
      context.setExitCode(0);
    });

  secret
    .command('list')
    .description("List a workspace's secrets: names and dates, never values.")
    .requiredOption('--workspace <id>', 'the workspace whose secrets to list', parseResourceId)
    .option('--json', 'print the secrets as a JSON array')
    .showHelpAfterError("Run 'toolshed secret list --help' for usage.")
    .action(async (options: { workspace: string; json?: boolean }) => {
      const { io } = context;
      const secrets = await withServiceStore(io, (store) => store.secrets.list(options.workspace), {
        workspace: options.workspace,
      });
      if (options.json === true) io.stdout.write(`${JSON.stringify(secrets)}\n`);
      else if (secrets.length === 0) io.stderr.write(`workspace ${visible(options.workspace)} has no secrets\n`);
      else for (const each of secrets) io.stdout.write(`${each.name}  updated ${each.updatedAt}\n`);
      context.setExitCode(0);
    });

  secret
    .command('delete')
    .description('Delete a secret of a workspace.')
    .argument('<name>', 'the secret name', parseSecretName)
    .requiredOption('--workspace <id>', 'the workspace the secret belongs to', parseResourceId)
    .showHelpAfterError("Run 'toolshed secret delete --help' for usage.")
    .action(async (name: string, options: { workspace: string }) => {
      const { io } = context;
      await withServiceStore(
        io,
        async (store) => {
          if (!(await store.secrets.delete(options.workspace, name))) {
            throw new CliError(
              `error: workspace '${options.workspace}' has no secret '${name}'; list them with 'toolshed secret list --workspace ${options.workspace}'.`,
              1,
            );
          }
        },
        { workspace: options.workspace },
      );
      io.stdout.write(`deleted secret ${name} from workspace ${visible(options.workspace)}\n`);
      context.setExitCode(0);
    });
  return secret;
}

/**
 * Commander parser of a secret name: like an environment variable name, 1-128 letters, digits and
 * underscores, not starting with a digit. Anything else is a usage error (exit 2).
 *
 * @example
 * ```ts
 * command.argument('<name>', 'the secret name', parseSecretName);
 * ```
 */
export function parseSecretName(value: string): string {
  if (!SECRET_NAME_PATTERN.test(value)) {
    throw new InvalidArgumentError(
      'Use 1-128 letters, digits and underscores, not starting with a digit (like an environment variable name).',
    );
  }
  return value;
}

/** Read the value from stdin, stopping past the limit, without one trailing line ending (what `echo` adds). */
async function readValue(stdin: AsyncIterable<Uint8Array | string>): Promise<string> {
  // The limit plus room for a line ending; the store words the refusal of a value just over it.
  const text = await readLimitedStdin(stdin, STORE_LIMITS.secretValueBytes + 2);
  if (text === undefined) {
    throw new CliError(
      `error: the value on stdin is more than ${STORE_LIMITS.secretValueBytes} bytes, the limit of a secret.`,
      2,
    );
  }
  return text.replace(/\r?\n$/, '');
}
