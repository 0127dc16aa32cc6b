import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmailStore } from '../../src/emails/email-store.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../support/postgres-test-database.js';

/** A migrated store of one dialect in a fresh database (a temp folder or a new PostgreSQL database). */
export interface EmailHarness {
  dialect: 'sqlite' | 'postgres';
  /** The database URL, valid after `setup()`. */
  url(): string;
  setup(): Promise<{ store: ToolshedStore; emails: EmailStore }>;
  teardown(): Promise<void>;
}

function sqliteHarness(): EmailHarness {
  let folder: string | undefined;
  let store: ToolshedStore | undefined;
  return {
    dialect: 'sqlite',
    url: () => join(folder ?? '', 'toolshed.db'),
    async setup() {
      folder = mkdtempSync(join(tmpdir(), 'toolshed-emails-'));
      store = await createStore(join(folder, 'toolshed.db'));
      await store.migrate();
      return { store, emails: new EmailStore(store) };
    },
    async teardown() {
      await store?.close();
      if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    },
  };
}

function postgresHarness(): EmailHarness {
  let database: PostgresTestDatabase | undefined;
  let store: ToolshedStore | undefined;
  return {
    dialect: 'postgres',
    url: () => database?.url ?? '',
    async setup() {
      database = await createPostgresTestDatabase('toolshed_emails', 'The email tests');
      store = await createStore(database.url, { notifications: false });
      await store.migrate();
      return { store, emails: new EmailStore(store) };
    },
    async teardown() {
      await store?.close();
      await database?.drop();
    },
  };
}

/** One harness per dialect; every email test file runs its cases on both. */
export function emailHarnesses(): EmailHarness[] {
  return [sqliteHarness(), postgresHarness()];
}
