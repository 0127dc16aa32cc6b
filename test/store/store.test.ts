import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
import { MIGRATION_NAMES } from '../support/migration-names.js';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../support/postgres-test-database.js';
import { defineStoreCases, type StoreHarness } from './store.cases.js';

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
            applied: MIGRATION_NAMES,
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

describe('the key of workspace secrets on SQLite', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'toolshed-secret-key-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  async function withStore<T>(file: string, work: (store: ToolshedStore) => Promise<T>, secretKey = ''): Promise<T> {
    const store = await createStore(file, { secretKey });
    try {
      await store.migrate();
      return await work(store);
    } finally {
      await store.close();
    }
  }

  it('creates <database>-secret.key with mode 0600 on the first secret, and reads it on reopening', async () => {
    const file = join(folder, 'first.db');
    const keyFile = `${file}-secret.key`;
    await withStore(file, async (store) => {
      await store.workspaces.create({ id: 'acme', name: 'Acme' });
      expect(existsSync(keyFile)).toBe(false);
      await store.secrets.set('acme', 'COMPANY_API_TOKEN', 'tok_live_file');
    });
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    await withStore(file, async (store) => {
      expect(await store.secrets.reveal('acme', 'COMPANY_API_TOKEN')).toBe('tok_live_file');
    });
    // The file's key works as TOOLSHED_SECRET_KEY, for moving the secrets to another server.
    await withStore(
      file,
      async (store) => expect(await store.secrets.reveal('acme', 'COMPANY_API_TOKEN')).toBe('tok_live_file'),
      readFileSync(keyFile, 'utf8'),
    );
  });

  it('uses the key file another process made after this store opened, instead of making its own', async () => {
    const file = join(folder, 'shared.db');
    const theirs = Buffer.alloc(32, 21);
    await withStore(file, async (store) => {
      await store.workspaces.create({ id: 'acme', name: 'Acme' });
      writeFileSync(`${file}-secret.key`, `${theirs.toString('hex')}\n`, { mode: 0o600 });
      await store.secrets.set('acme', 'TOKEN', 'shared');
    });
    expect(readFileSync(`${file}-secret.key`, 'utf8')).toBe(`${theirs.toString('hex')}\n`);
    await withStore(
      file,
      async (store) => expect(await store.secrets.reveal('acme', 'TOKEN')).toBe('shared'),
      theirs.toString('base64'),
    );
  });

  it('refuses a key file that other users may read, naming the fix', async () => {
    const file = join(folder, 'exposed.db');
    await withStore(file, async (store) => {
      await store.workspaces.create({ id: 'acme', name: 'Acme' });
      await store.secrets.set('acme', 'TOKEN', 'x');
    });
    chmodSync(`${file}-secret.key`, 0o644);
    const error = await createStore(file, { secretKey: '' }).catch((failure: unknown) => failure);
    expect(StoreError.isInstance(error) && error.code).toBe('SECRET_KEY');
    expect((error as Error).message).toBe(
      `The secret key file '${file}-secret.key' can be read or written by other users (mode 0644); restrict it with 'chmod 600 ${file}-secret.key' and start again.`,
    );
  });

  it('refuses a malformed key file', async () => {
    const file = join(folder, 'malformed.db');
    writeFileSync(`${file}-secret.key`, 'short\n', { mode: 0o600 });
    const error = await createStore(file, { secretKey: '' }).catch((failure: unknown) => failure);
    expect((error as Error).message).toBe(
      `The secret key file '${file}-secret.key' must be 32 bytes as base64 (44 characters) or hex (64 characters), got 5 characters; make one with 'openssl rand -base64 32'.`,
    );
  });

  it('says the key file is missing when a secret outlived it', async () => {
    const file = join(folder, 'lost.db');
    await withStore(file, async (store) => {
      await store.workspaces.create({ id: 'acme', name: 'Acme' });
      await store.secrets.set('acme', 'TOKEN', 'x');
    });
    rmSync(`${file}-secret.key`);
    await withStore(file, async (store) => {
      const error = await store.secrets.reveal('acme', 'TOKEN').catch((failure: unknown) => failure);
      expect((error as Error).message).toBe(
        "Secret 'TOKEN' cannot be decrypted: the key file 'lost.db-secret.key' beside the database is missing. Restore it (or set TOOLSHED_SECRET_KEY to the key the secret was stored with), or store the secret again.",
      );
    });
  });

  it('uses a key of its own for :memory:, writing no file', async () => {
    await withStore(':memory:', async (store) => {
      await store.workspaces.create({ id: 'acme', name: 'Acme' });
      await store.secrets.set('acme', 'TOKEN', 'in memory');
      expect(await store.secrets.reveal('acme', 'TOKEN')).toBe('in memory');
    });
    expect(existsSync(':memory:-secret.key')).toBe(false);
  });

  it('takes TOOLSHED_SECRET_KEY from the environment, and fails to open on a malformed one', async () => {
    const file = join(folder, 'environment.db');
    vi.stubEnv('TOOLSHED_SECRET_KEY', Buffer.alloc(32, 3).toString('hex'));
    try {
      const store = await createStore(file);
      try {
        await store.migrate();
        await store.workspaces.create({ id: 'acme', name: 'Acme' });
        await store.secrets.set('acme', 'TOKEN', 'from the environment');
      } finally {
        await store.close();
      }
      expect(existsSync(`${file}-secret.key`)).toBe(false);
      await withStore(
        file,
        async (reopened) => expect(await reopened.secrets.reveal('acme', 'TOKEN')).toBe('from the environment'),
        Buffer.alloc(32, 3).toString('base64'),
      );
      vi.stubEnv('TOOLSHED_SECRET_KEY', 'hunter2');
      const error = await createStore(file).catch((failure: unknown) => failure);
      expect((error as Error).message).toBe(
        "TOOLSHED_SECRET_KEY must be 32 bytes as base64 (44 characters) or hex (64 characters), got 7 characters; make one with 'openssl rand -base64 32'.",
      );
    } finally {
      vi.unstubAllEnvs();
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
