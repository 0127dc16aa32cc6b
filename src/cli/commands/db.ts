import type { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { visible } from '../output.js';
import { withServiceStore } from '../with-service-store.js';

/**
 * Add `toolshed db migrate`: bring the database of `TOOLSHED_DATABASE_URL` (default `./toolshed.db`)
 * up to date and upsert the built-in tools. Prints `database is up to date`, followed by the
 * migrations this run applied in parentheses when there were any (`--json`: `{"applied": [...]}`), so
 * a second run is a no-op that says so. A database that cannot be opened or reached is one line on
 * stderr and exit 1.
 *
 * @example
 * ```ts
 * defineDbCommand(program, context);
 * await program.parseAsync(['db', 'migrate'], { from: 'user' });
 * ```
 */
export function defineDbCommand(program: Command, context: CliContext): Command {
  const db = program.command('db').description('Manage the service database (TOOLSHED_DATABASE_URL).');
  db.command('migrate')
    .description('Apply pending migrations and upsert the built-in tools.')
    .option('--json', 'print {"applied": [...]} on stdout')
    .showHelpAfterError("Run 'toolshed db migrate --help' for usage.")
    .action(async (options: { json?: boolean }) => {
      const { io } = context;
      const report = await withServiceStore(io, async (_store, migrations) => migrations);
      if (options.json === true) io.stdout.write(`${JSON.stringify(report)}\n`);
      else {
        const applied = report.applied.length > 0 ? ` (applied ${visible(report.applied.join(', '))})` : '';
        io.stdout.write(`database is up to date${applied}\n`);
      }
      context.setExitCode(0);
    });
  return db;
}
