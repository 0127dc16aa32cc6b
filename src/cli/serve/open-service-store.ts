import { isAbsolute, resolve } from 'node:path';
import { databaseTarget } from '../../store/database-target.js';
import type { MigrationReport, ToolshedStore } from '../../store/index.js';
import { environmentVariable } from '../environment-variable.js';
import type { CliIo } from '../output.js';

/**
 * The database URL of the service: `TOOLSHED_DATABASE_URL`, default `./toolshed.db` (in the cwd), also
 * when the variable is empty.
 */
export function serviceDatabaseUrl(io: CliIo): string {
  const url = environmentVariable(io.env, 'TOOLSHED_DATABASE_URL') ?? './toolshed.db';
  const target = databaseTarget(url);
  if (target.kind !== 'sqlite' || target.path === ':memory:') return url;
  return isAbsolute(target.path) ? target.path : resolve(io.cwd, target.path);
}

/**
 * Open the service's store, bring its schema up to date and upsert the built-in tools: what
 * `toolshed serve` and the admin verbs do first.
 *
 * @example
 * ```ts
 * const store = await openServiceStore(io);
 * ```
 */
export async function openServiceStore(io: CliIo): Promise<ToolshedStore> {
  // Loaded here, not at the top: every CLI start would otherwise pay for Kysely, the drivers and the
  // built-ins (mathjs), which only the service verbs need.
  const { createStore } = await import('../../store/index.js');
  // The service owns the call journal: calls are acknowledged once journaled (see StoreOptions).
  const store = await createStore(serviceDatabaseUrl(io), { callJournal: true });
  try {
    await prepareServiceStore(store);
    // Calls a killed server journaled reach tool_calls before this one answers anything.
    await store.toolCalls.flush();
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * What every service verb does to its store first: migrate, upsert the built-ins and bring the email
 * index up to date. Returns the migration report.
 *
 * @example
 * ```ts
 * const { applied } = await prepareServiceStore(store);
 * ```
 */
export async function prepareServiceStore(store: ToolshedStore): Promise<MigrationReport> {
  const migrations = await store.migrate();
  await upsertServiceBuiltins(store);
  await prepareEmailIndex(store);
  return migrations;
}

/**
 * Bring the email search index up to date when it is kept apart from the rows and emails are stored
 * (see `EmailStore.prepareForService`), so the service's first `email_search` does not pay for it.
 *
 * @example
 * ```ts
 * await prepareEmailIndex(store);
 * ```
 */
export async function prepareEmailIndex(store: ToolshedStore): Promise<void> {
  const { EmailStore } = await import('../../emails/email-store.js');
  await new EmailStore(store).prepareForService();
}

/**
 * Upsert every built-in the service serves: the per-workspace ones and the shared code and email
 * tools. Every service verb upserts the same list, since a built-in left out of it would be removed
 * from \`tools\` (and detached from every agent).
 *
 * @example
 * ```ts
 * await upsertServiceBuiltins(store);
 * ```
 */
export async function upsertServiceBuiltins(store: ToolshedStore): Promise<void> {
  const [{ createBuiltins }, { createServiceBuiltins }] = await Promise.all([
    import('../../builtins/create-builtins.js'),
    import('../../server/service-builtins.js'),
  ]);
  // The specs only: the sandbox pools of these tools start on a first call, which never comes here.
  const shared = createServiceBuiltins(store);
  try {
    await store.tools.upsertBuiltins([...createBuiltins(), ...shared.tools]);
  } finally {
    await shared.close();
  }
}

/**
 * Whether a database URL names a SQLite file (a path, or `sqlite:` and a path), not a PostgreSQL
 * server, an in-memory database or a URL of another scheme.
 *
 * @example
 * ```ts
 * isSqliteFile('./toolshed.db'); // true
 * isSqliteFile('postgres://db.internal/toolshed'); // false
 * isSqliteFile('mysql://db.internal/toolshed'); // false
 * ```
 */
export function isSqliteFile(url: string): boolean {
  const target = databaseTarget(url);
  return target.kind === 'sqlite' && target.path !== ':memory:';
}
