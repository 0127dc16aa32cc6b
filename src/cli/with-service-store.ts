import { existsSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import type { MigrationReport, ToolshedStore } from '../store/index.js';
// The constants' own module, not the store's entry: that would load Kysely on every CLI start.
import { RESOURCE_ID_PATTERN, STORE_LIMITS } from '../store/store-validation.js';
import { CliError } from './cli-error.js';
import { type CliIo, visible } from './output.js';
import { isSqliteFile, prepareServiceStore, serviceDatabaseUrl } from './serve/open-service-store.js';

/**
 * Open the service database (`TOOLSHED_DATABASE_URL`, default `./toolshed.db`), bring its schema up to
 * date, upsert the built-in tools, run `work` and close the store, whatever happens.
 *
 * The store's own errors become one-line {@link CliError}s instead of "unexpected failure": a
 * database that cannot be opened or reached (exit 1, naming `TOOLSHED_DATABASE_URL` as the way out),
 * a failed migration and a taken id (exit 1), a value the store refuses (exit 2, a usage error).
 * `work` receives the migrations this run applied.
 *
 * With `options.workspace`, a verb that reads or changes that workspace's rows (its secrets, tokens,
 * pins): a database that is not there is an error that leaves no new file behind, and so is a
 * workspace the database does not have (exit 1, naming the closest ids), checked before `work` runs.
 *
 * @example
 * ```ts
 * const id = await withServiceStore(io, async (store) => (await store.workspaces.create({ name: 'Acme' })).id);
 * await withServiceStore(io, (store) => store.secrets.list('acme'), { workspace: 'acme' });
 * ```
 */
export async function withServiceStore<T>(
  io: CliIo,
  work: (store: ToolshedStore, migrations: MigrationReport) => Promise<T>,
  options: { workspace?: string } = {},
): Promise<T> {
  const url = serviceDatabaseUrl(io);
  const { workspace } = options;
  if (workspace !== undefined && isSqliteFile(url) && !existsSync(url)) {
    throw new CliError(
      `error: there is no database at ${visible(url)} (TOOLSHED_DATABASE_URL, default ./toolshed.db); create one with 'toolshed workspace create NAME' or 'toolshed db migrate', or point TOOLSHED_DATABASE_URL at yours.`,
      1,
    );
  }
  // Loaded here, not at the top: every CLI start would otherwise pay for Kysely, the drivers and the
  // built-ins (mathjs), which only the service verbs need.
  const { createStore } = await import('../store/index.js');
  try {
    const store = await createStore(url);
    try {
      const migrations = await prepareServiceStore(store);
      if (workspace !== undefined) await requireWorkspace(store, workspace);
      return await work(store, migrations);
    } finally {
      await store.close();
    }
  } catch (error) {
    throw await storeCliError(error);
  }
}

/** What a message about a database that cannot be opened tells the user to do, by default. */
const SET_DATABASE_URL =
  'Set TOOLSHED_DATABASE_URL to a SQLite file path or a postgres:// URL of a server that is running.';

/**
 * The {@link CliError} for a store error (see {@link withServiceStore}); any other error as it is.
 * `unavailableHint` is what a database that cannot be opened asks the user to do (default: set
 * `TOOLSHED_DATABASE_URL`; a verb whose `--db` named the database says to pass another).
 *
 * @example
 * ```ts
 * const store = await openServiceStore(io).catch(async (error) => { throw await storeCliError(error); });
 * ```
 */
export async function storeCliError(error: unknown, unavailableHint = SET_DATABASE_URL): Promise<unknown> {
  const { StoreError } = await import('../store/store-error.js');
  if (!StoreError.isInstance(error)) return error;
  const message = error.message.replace(/\.$/, '');
  switch (error.code) {
    case 'UNAVAILABLE':
      return new CliError(`error: ${message}. ${unavailableHint}`, 1);
    case 'MIGRATION_FAILED':
      return new CliError(
        `error: ${message}. No migration of this run was applied; fix the cause and run 'toolshed db migrate' again.`,
        1,
      );
    case 'CONFLICT':
    case 'NOT_FOUND':
    case 'READ_ONLY':
    case 'SECRET_KEY':
      return new CliError(`error: ${error.message}`, 1);
    case 'VALIDATION':
      return new CliError(`error: ${error.message}`, 2);
    default: {
      const unreachable: never = error.code;
      return new CliError(`error: ${String(unreachable)}: ${error.message}`, 1);
    }
  }
}

/** Refuse a `--workspace` the database does not have, naming the closest workspace ids and how to create it. */
async function requireWorkspace(store: ToolshedStore, workspace: string): Promise<void> {
  if ((await store.workspaces.get(workspace)) !== undefined) return;
  const { closestNames } = await import('../core/did-you-mean.js');
  const ids = (await store.workspaces.list()).map((each) => each.id);
  const closest = closestNames(workspace, ids, 3);
  const didYouMean =
    closest.length === 0 ? '' : ` (did you mean ${closest.map((id) => `'${visible(id)}'`).join(' or ')}?)`;
  throw new CliError(
    `error: workspace '${visible(workspace)}' does not exist${didYouMean}; create it with 'toolshed workspace create NAME --id ${visible(workspace)}'.`,
    1,
  );
}

/**
 * Commander parser of a workspace id flag: 1-64 letters, digits, `_`, `.` and `-`, starting with a
 * letter or digit. Anything else is a usage error (exit 2) before the database is opened.
 *
 * @example
 * ```ts
 * command.option('--id <id>', 'the workspace id', parseResourceId);
 * ```
 */
export function parseResourceId(value: string): string {
  if (!RESOURCE_ID_PATTERN.test(value)) {
    throw new InvalidArgumentError(
      'Use 1-64 letters, digits, underscores, dots and dashes, starting with a letter or digit.',
    );
  }
  return value;
}

/**
 * Commander parser of a name: not blank, at most 200 characters. Anything else is a usage error
 * (exit 2) before the database is opened.
 *
 * @example
 * ```ts
 * command.argument('<name>', 'a human-readable name', parseResourceName);
 * ```
 */
export function parseResourceName(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('Give a name that is not blank.');
  if (value.length > STORE_LIMITS.nameChars) {
    throw new InvalidArgumentError(
      `Give a name of at most ${STORE_LIMITS.nameChars} characters (this one has ${value.length}).`,
    );
  }
  return value;
}
