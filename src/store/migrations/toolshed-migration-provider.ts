import type { Migration, MigrationProvider } from 'kysely';
import { callAuditSchema } from './call-audit-schema.js';
import { emailsByInboxSchema } from './emails-by-inbox-schema.js';
import { emailsSchema } from './emails-schema.js';
import { emailsSearchByInboxSchema } from './emails-search-by-inbox-schema.js';
import { emailsSearchFile } from './emails-search-file.js';
import { emailsSearchInlineSchema } from './emails-search-inline-schema.js';
import { initialSchema } from './initial-schema.js';
import { mcpCatalogSchema } from './mcp-catalog-schema.js';
import { mcpSessionsSchema } from './mcp-sessions-schema.js';
import { mcpStreamEventsSchema } from './mcp-stream-events-schema.js';
import { mcpTasksSchema } from './mcp-tasks-schema.js';
import type { SchemaDialect } from './schema-dialect.js';
import { secretsSchema } from './secrets-schema.js';
import { toolInputExamplesSchema } from './tool-input-examples-schema.js';
import { toolSourcesSchema } from './tool-sources-schema.js';
import { toolTagsSchema } from './tool-tags-schema.js';
import { upstreamPinsSchema } from './upstream-pins-schema.js';

/** Where Kysely's `Migrator` keeps its bookkeeping, named so it cannot collide with an app's own. */
export const MIGRATION_TABLES = Object.freeze({
  migrationTableName: 'toolshed_migrations',
  migrationLockTableName: 'toolshed_migrations_lock',
});

/**
 * The store's migrations, in code (no files read at run time, so it works bundled). Each migration is
 * a function of the dialect's {@link SchemaDialect}; names sort in the order they run. Add a migration by adding a file to
 * this folder and a line here — never edit one that has shipped.
 *
 * @example
 * ```ts
 * const migrator = new Migrator({ db, provider: new ToolshedMigrationProvider(postgresSchemaDialect), ...MIGRATION_TABLES });
 * const { error, results } = await migrator.migrateToLatest();
 * ```
 */
export class ToolshedMigrationProvider implements MigrationProvider {
  readonly #schema: SchemaDialect;

  constructor(schema: SchemaDialect) {
    this.#schema = schema;
  }

  async getMigrations(): Promise<Record<string, Migration>> {
    return {
      '0001_initial_schema': initialSchema(this.#schema),
      '0002_emails': emailsSchema(this.#schema),
      '0003_emails_by_inbox': emailsByInboxSchema(this.#schema),
      '0004_emails_search_file': emailsSearchFile(this.#schema),
      '0005_secrets': secretsSchema(this.#schema),
      '0006_tool_sources': toolSourcesSchema(this.#schema),
      '0007_tool_tags': toolTagsSchema(this.#schema),
      '0008_call_audit': callAuditSchema(this.#schema),
      '0009_upstream_pins': upstreamPinsSchema(this.#schema),
      '0010_prompts_resources': mcpCatalogSchema(this.#schema),
      '0011_tool_input_examples': toolInputExamplesSchema(this.#schema),
      '0012_mcp_sessions': mcpSessionsSchema(this.#schema),
      '0013_mcp_stream_events': mcpStreamEventsSchema(this.#schema),
      '0014_mcp_tasks': mcpTasksSchema(this.#schema),
      '0015_emails_search_by_inbox': emailsSearchByInboxSchema(this.#schema),
      '0016_emails_search_inline': emailsSearchInlineSchema(this.#schema),
    };
  }
}
