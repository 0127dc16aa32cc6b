import type { Migration, MigrationProvider } from 'kysely';
import type { StoreDialectName } from '../store-records.js';
import { emailsByInboxSchema } from './emails-by-inbox-schema.js';
import { emailsSchema } from './emails-schema.js';
import { emailsSearchFile } from './emails-search-file.js';
import { initialSchema } from './initial-schema.js';
import { secretsSchema } from './secrets-schema.js';

/** Where Kysely's `Migrator` keeps its bookkeeping, named so it cannot collide with an app's own. */
export const MIGRATION_TABLES = Object.freeze({
  migrationTableName: 'toolshed_migrations',
  migrationLockTableName: 'toolshed_migrations_lock',
});

/**
 * The store's migrations, in code (no files read at run time, so it works bundled). Each migration is
 * a function of the dialect; names sort in the order they run. Add a migration by adding a file to
 * this folder and a line here — never edit one that has shipped.
 *
 * @example
 * ```ts
 * const migrator = new Migrator({ db, provider: new ToolshedMigrationProvider('postgres'), ...MIGRATION_TABLES });
 * const { error, results } = await migrator.migrateToLatest();
 * ```
 */
export class ToolshedMigrationProvider implements MigrationProvider {
  readonly #dialect: StoreDialectName;

  constructor(dialect: StoreDialectName) {
    this.#dialect = dialect;
  }

  async getMigrations(): Promise<Record<string, Migration>> {
    return {
      '0001_initial_schema': initialSchema(this.#dialect),
      '0002_emails': emailsSchema(this.#dialect),
      '0003_emails_by_inbox': emailsByInboxSchema(this.#dialect),
      '0004_emails_search_file': emailsSearchFile(this.#dialect),
      '0005_secrets': secretsSchema(this.#dialect),
    };
  }
}
