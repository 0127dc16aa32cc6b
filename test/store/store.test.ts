import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CHANGE_CHANNEL,
  createStore,
  DEFAULT_STORE_PATH,
  type StoreChange,
  StoreError,
  type ToolshedStore,
} from '../../src/store/index.js';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../support/postgres-test-database.js';
import { defineStoreCases, type StoreHarness } from './store-cases.js';

function sqliteHarness(): StoreHarness {
  let folder: string | undefined;
  return {
    dialect: 'sqlite',
    concurrentInstances: false,
    sharesChangesAcrossInstances: false,
    async setup() {
      folder = mkdtempSync(join(tmpdir(), 'toolshed-store-'));
    },
    open(options) {
      if (folder === undefined) throw new Error('setup() has not run');
      return createStore(join(folder, 'toolshed.db'), options);
    },
    async teardown() {
      if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    },
  };
}

function postgresHarness(): StoreHarness {
  let database: PostgresTestDatabase | undefined;
  return {
    dialect: 'postgres',
    concurrentInstances: true,
    sharesChangesAcrossInstances: true,
    async setup() {
      database = await createPostgresTestDatabase('toolshed_test', 'The store tests');
    },
    open(options) {
      if (database === undefined) throw new Error('setup() has not run');
      return createStore(database.url, options);
    },
    async teardown() {
      await database?.drop();
    },
  };
}

const DIALECTS: StoreHarness[] = [sqliteHarness(), postgresHarness()];

for (const dialect of DIALECTS) {
  describe(`store on ${dialect.dialect}`, () => {
    defineStoreCases(dialect);
  });
}

describe('createStore', () => {
  it('opens SQLite for a path, a sqlite: path and :memory:', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolshed-create-'));
    try {
      for (const url of [join(folder, 'a.db'), `sqlite:${join(folder, 'b.db')}`, ':memory:']) {
        const store = await createStore(url);
        try {
          expect(store.dialect).toBe('sqlite');
          expect(await store.migrate()).toEqual({
            applied: ['0001_initial_schema', '0002_emails', '0003_emails_by_inbox', '0004_emails_search_file'],
          });
        } finally {
          await store.close();
        }
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    expect(DEFAULT_STORE_PATH).toBe('./toolshed.db');
  });

  it('fails with UNAVAILABLE, without the password, when PostgreSQL cannot be reached', async () => {
    const error = await createStore('postgres://app:hunter2@127.0.0.1:1/toolshed').then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(StoreError.isInstance(error) && error.code).toBe('UNAVAILABLE');
    expect((error as Error).message).toContain('postgres://app:***@127.0.0.1:1/toolshed');
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('fails with UNAVAILABLE for a SQLite file in a missing folder or that is not a database', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolshed-create-'));
    try {
      const missing = await createStore(join(folder, 'no', 'such', 'folder', 'x.db')).catch((error: unknown) => error);
      expect(StoreError.isInstance(missing) && missing.code).toBe('UNAVAILABLE');
      const notDatabase = join(folder, 'text.db');
      (await import('node:fs')).writeFileSync(notDatabase, 'this is not a database, just text '.repeat(100));
      const refused = await createStore(notDatabase).catch((error: unknown) => error);
      expect(StoreError.isInstance(refused) && refused.code).toBe('UNAVAILABLE');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('PostgreSQL change listener', () => {
  const harness = postgresHarness();
  const stores: ToolshedStore[] = [];

  // Hooks rather than try/finally: afterAll runs even when the test times out, so no database leaks.
  beforeAll(() => harness.setup());
  afterAll(async () => {
    for (const store of stores) await store.close();
    await harness.teardown();
  });

  it('reconnects after the server drops its connection, announces resync, and hears changes again', async () => {
    const writer = await harness.open({ notifications: false });
    stores.push(writer);
    await writer.migrate();
    const onError = vi.fn();
    const listener = await harness.open({ onError });
    stores.push(listener);
    const workspace = await writer.workspaces.create({ name: 'Listener' });
    const agent = await writer.agents.create(workspace.id, {});

    const resync = firstChange(listener, (change) => change.kind === 'resync', 5000);
    const { rows } = await sql<{ terminated: boolean }>`
      select pg_terminate_backend(pid) as terminated from pg_stat_activity
      where datname = current_database() and query = ${`LISTEN ${CHANGE_CHANNEL}`}`.execute(writer.db);
    expect(rows).toEqual([{ terminated: true }]);
    expect(await resync).toEqual({ workspaceId: null, kind: 'resync' });
    expect(onError).toHaveBeenCalledWith(
      expect.objectContaining({ message: expect.stringContaining('lost its connection') }),
    );

    const heard = firstChange(listener, (change) => change.kind === 'agent', 1000);
    await writer.agents.delete(workspace.id, agent.id);
    expect(await heard).toEqual({ workspaceId: workspace.id, agentId: agent.id, kind: 'agent' });
  });
});

/** The first change `accept` takes, or `undefined` after `ms`. */
function firstChange(
  store: ToolshedStore,
  accept: (change: StoreChange) => boolean,
  ms: number,
): Promise<StoreChange | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      remove();
      resolve(undefined);
    }, ms);
    const remove = store.onChange((change) => {
      if (!accept(change)) return;
      clearTimeout(timer);
      remove();
      resolve(change);
    });
  });
}
