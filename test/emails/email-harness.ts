import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { EmailStore } from '../../src/emails/email-store.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';

const POSTGRES_ADMIN_URLS = process.env.TOOLSHED_TEST_POSTGRES_URL
  ? [process.env.TOOLSHED_TEST_POSTGRES_URL]
  : ['postgres://postgres@127.0.0.1:5432/postgres', 'postgres://root@127.0.0.1:5432/postgres'];

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
      return { store, emails: new EmailStore(store.db, store.dialect) };
    },
    async teardown() {
      await store?.close();
      if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    },
  };
}

function postgresHarness(): EmailHarness {
  let admin: pg.Client | undefined;
  let database: string | undefined;
  let url: string | undefined;
  let store: ToolshedStore | undefined;
  return {
    dialect: 'postgres',
    url: () => url ?? '',
    async setup() {
      const failures: string[] = [];
      for (const adminUrl of POSTGRES_ADMIN_URLS) {
        const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
        try {
          await client.connect();
          admin = client;
          database = `toolshed_emails_${randomBytes(6).toString('hex')}`;
          await client.query(`CREATE DATABASE ${database}`);
          const target = new URL(adminUrl);
          target.pathname = `/${database}`;
          url = target.toString();
          break;
        } catch (error) {
          await client.end().catch(() => undefined);
          failures.push(`${adminUrl}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      if (url === undefined) {
        throw new Error(`The email tests need PostgreSQL on 127.0.0.1:5432 (${failures.join('; ')}).`);
      }
      store = await createStore(url, { notifications: false });
      await store.migrate();
      return { store, emails: new EmailStore(store.db, store.dialect) };
    },
    async teardown() {
      await store?.close();
      if (admin === undefined) return;
      try {
        if (database !== undefined) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** One harness per dialect; every email test file runs its cases on both. */
export function emailHarnesses(): EmailHarness[] {
  return [sqliteHarness(), postgresHarness()];
}
