import type { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { visible } from '../output.js';
import { openServiceStore } from '../serve/open-service-store.js';

/**
 * Add `toolshed db migrate`: bring the database of `TOOLSHED_DATABASE_URL` (default `./toolshed.db`)
 * up to date and upsert the built-in tools. Prints the migrations applied (`--json`: `{applied}`).
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
    .action(async (options: { json?: boolean }) => {
      const { io } = context;
      const store = await openServiceStore(io);
      try {
        // openServiceStore migrated already; a second run reports nothing left to apply.
        const report = await store.migrate();
        if (options.json === true) io.stdout.write(`${JSON.stringify(report)}\n`);
        else
          io.stdout.write(
            `database is up to date${report.applied.length > 0 ? ` (${visible(report.applied.join(', '))})` : ''}\n`,
          );
      } finally {
        await store.close();
      }
      context.setExitCode(0);
    });
  return db;
}
