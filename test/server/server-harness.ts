import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createStore, type ToolshedStore } from '../../src/store/index.js';

// The PostgreSQL server of the project's machines (trust auth), as in test/store. Override with an
// admin URL; each test file creates a database of its own and drops it at the end.
const POSTGRES_ADMIN_URLS = process.env.TOOLSHED_TEST_POSTGRES_URL
  ? [process.env.TOOLSHED_TEST_POSTGRES_URL]
  : ['postgres://postgres@127.0.0.1:5432/postgres', 'postgres://root@127.0.0.1:5432/postgres'];

/** Opens a fresh store of one dialect for a test file, and removes it afterwards. */
export interface ServerStoreHarness {
  dialect: 'sqlite' | 'postgres';
  open(): Promise<ToolshedStore>;
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
    async teardown() {
      if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** A PostgreSQL store on a fresh `toolshed_test_<random>` database on 127.0.0.1:5432 (required). */
export function postgresHarness(): ServerStoreHarness {
  let admin: pg.Client | undefined;
  let database: string | undefined;
  return {
    dialect: 'postgres',
    async open() {
      const failures: string[] = [];
      for (const adminUrl of POSTGRES_ADMIN_URLS) {
        const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
        try {
          await client.connect();
          admin = client;
          database = `toolshed_test_${randomBytes(6).toString('hex')}`;
          await client.query(`CREATE DATABASE ${database}`);
          const target = new URL(adminUrl);
          target.pathname = `/${database}`;
          return createStore(target.toString());
        } catch (error) {
          await client.end().catch(() => undefined);
          failures.push(`${adminUrl}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      throw new Error(`The server tests need PostgreSQL on 127.0.0.1:5432 (${failures.join('; ')}).`);
    },
    async teardown() {
      if (admin === undefined) return;
      try {
        if (database !== undefined) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}
