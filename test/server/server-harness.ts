import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoadedTools, loadTools, resolveToolSetup } from '../../src/cli/load-registry.js';
import type { CliIo } from '../../src/cli/output.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../support/postgres-test-database.js';

/** Opens a fresh store of one dialect for a test file, and removes it afterwards. */
export interface ServerStoreHarness {
  dialect: 'sqlite' | 'postgres';
  open(): Promise<ToolshedStore>;
  /** Another store instance on the database the last `open` created (as a second server process would open it). */
  reopen(): Promise<ToolshedStore>;
  teardown(): Promise<void>;
}

/** A SQLite store on a temp file. */
export function sqliteHarness(): ServerStoreHarness {
  let folder: string | undefined;
  return {
    dialect: 'sqlite',
    async open() {
      folder = mkdtempSync(join(tmpdir(), 'toolshed-server-'));
      return createStore(join(folder, 'toolshed.db'));
    },
    async reopen() {
      if (folder === undefined) throw new Error('open() first');
      return createStore(join(folder, 'toolshed.db'));
    },
    async teardown() {
      if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** A PostgreSQL store on a fresh `toolshed_test_<random>` database on 127.0.0.1:5432 (required). */
export function postgresHarness(): ServerStoreHarness {
  let database: PostgresTestDatabase | undefined;
  return {
    dialect: 'postgres',
    async open() {
      database = await createPostgresTestDatabase('toolshed_test', 'The server tests');
      return createStore(database.url);
    },
    async reopen() {
      if (database === undefined) throw new Error('open() first');
      return createStore(database.url);
    },
    async teardown() {
      await database?.drop();
    },
  };
}

/**
 * The tools of a configuration file as `toolshed serve` loads them (no CLI built-ins: the service's
 * own are rows), its warnings dropped. Close the result when done (MCP servers).
 */
export async function loadServeTools(file: string, folder: string): Promise<LoadedTools> {
  const sink = { write: () => true, flush: async () => {} };
  const io = { stdout: sink, stderr: sink, stdin: (async function* () {})(), env: {}, cwd: folder } as unknown as CliIo;
  return loadTools(await resolveToolSetup({ config: file }, folder), io, 'all', { builtins: false });
}
