import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The admin URLs tried for creating throwaway databases (`TOOLSHED_TEST_POSTGRES_URL` overrides). */
export const POSTGRES_ADMIN_URLS = process.env.TOOLSHED_TEST_POSTGRES_URL
  ? [process.env.TOOLSHED_TEST_POSTGRES_URL]
  : ['postgres://postgres@127.0.0.1:5432/postgres', 'postgres://root@127.0.0.1:5432/postgres'];

/** A fresh PostgreSQL database for one test file; `drop()` removes it, even with connections open. */
export interface PostgresTestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * Create `<prefix>_<random>` on the server at 127.0.0.1:5432. The tests that call this need
 * PostgreSQL: when no admin URL works, it throws naming each attempt, so the tests fail rather than
 * skip.
 */
export async function createPostgresTestDatabase(prefix: string, purpose: string): Promise<PostgresTestDatabase> {
  const failures: string[] = [];
  for (const adminUrl of POSTGRES_ADMIN_URLS) {
    const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
    try {
      await admin.connect();
      const database = `${prefix}_${randomBytes(6).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${database}`);
      const target = new URL(adminUrl);
      target.pathname = `/${database}`;
      return {
        url: target.toString(),
        async drop() {
          try {
            await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
          } finally {
            await admin.end();
          }
        },
      };
    } catch (error) {
      await admin.end().catch(() => undefined);
      failures.push(`${adminUrl}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(
    `${purpose} need PostgreSQL and could not create a database (${failures.join('; ')}). ` +
      'Start the server on 127.0.0.1:5432 or set TOOLSHED_TEST_POSTGRES_URL to an admin URL.',
  );
}
