import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../../test/support/postgres-test-database.js';
import { createStore, type ToolshedStore } from './index.js';

// The PostgreSQL call log of `toolshed serve` (`callJournal: true`): a call is acknowledged once it is
// queued with its id, and is in `tool_calls` within a window, before any read of the log, and at close.

let database: PostgresTestDatabase;
const opened: ToolshedStore[] = [];

beforeAll(async () => {
  database = await createPostgresTestDatabase('toolshed_windowed_calls', 'the windowed call log');
  const store = await createStore(database.url, { notifications: false });
  await store.migrate();
  await store.workspaces.create({ id: 'acme', name: 'Acme' });
  await store.workspaces.create({ id: 'doomed', name: 'Doomed' });
  await store.close();
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close().catch(() => undefined);
});

afterAll(async () => {
  await database.drop();
});

async function open(callJournal: boolean, onError?: (error: unknown) => void): Promise<ToolshedStore> {
  const store = await createStore(database.url, { notifications: false, callJournal, ...(onError ? { onError } : {}) });
  opened.push(store);
  return store;
}

/** `[id, workspace, tool]` of every logged call, read by a connection of its own. */
async function loggedRows(): Promise<Array<[number, string, string]>> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const result = await client.query<{ id: string; workspace_id: string; tool_id: string }>(
      'select id, workspace_id, tool_id from tool_calls order by id',
    );
    return result.rows.map((row) => [Number(row.id), row.workspace_id, row.tool_id]);
  } finally {
    await client.end();
  }
}

async function run(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const clear = () => run('delete from tool_calls');

/** The last value the `tool_calls` id sequence handed out. */
async function sequenceValue(): Promise<number> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const result = await client.query<{ last_value: string | null }>(
      "select last_value from pg_sequences where sequencename = 'tool_calls_id_seq'",
    );
    return Number(result.rows[0]?.last_value ?? 0);
  } finally {
    await client.end();
  }
}

describe('the windowed PostgreSQL call log', () => {
  it('logs every call of a burst once, under the id it acknowledged', async () => {
    await clear();
    const store = await open(true);
    const records = await Promise.all(
      Array.from({ length: 1500 }, (_, index) =>
        store.toolCalls.record('acme', { toolId: `tool_${index}`, status: 'success', durationMs: index % 7 }),
      ),
    );
    expect(new Set(records.map((record) => record.id)).size).toBe(1500);
    // Read through the store: every acknowledged call is in the table first.
    const recent = await store.toolCalls.listRecent('acme', { limit: 500 });
    expect(recent).toHaveLength(500);
    const rows = await loggedRows();
    expect(rows).toHaveLength(1500);
    const byTool = new Map(rows.map(([id, , tool]) => [tool, id]));
    for (const record of records) expect(byTool.get(record.toolId)).toBe(record.id);
    expect(recent[0]).toEqual(records.reduce((newest, record) => (record.id > newest.id ? record : newest)));
  });

  it('writes the queued calls within the window, unread, and the rest at close', async () => {
    await clear();
    const store = await open(true);
    await store.toolCalls.record('acme', { toolId: 'first', status: 'success', durationMs: 1 });
    await expect.poll(async () => (await loggedRows()).map(([, , tool]) => tool), { timeout: 5000 }).toEqual(['first']);
    await store.toolCalls.record('acme', { toolId: 'second', status: 'error', errorCode: 'X', durationMs: 2 });
    await store.close();
    expect((await loggedRows()).map(([, , tool]) => tool)).toEqual(['first', 'second']);
  });

  it('writes a steady stream of calls one window at a time, not one INSERT per round trip', async () => {
    await clear();
    const store = await open(true);
    const started = performance.now();
    const recorded: Array<Promise<unknown>> = [];
    for (let index = 0; index < 150; index++) {
      recorded.push(store.toolCalls.record('acme', { toolId: `steady_${index}`, status: 'success', durationMs: 1 }));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(recorded);
    const elapsed = performance.now() - started;
    await store.toolCalls.flush();
    // Each INSERT is one transaction: its rows share an xmin. A window lasts at least 10 ms, so a
    // stream over `elapsed` ms makes at most one INSERT per 10 ms, and the flush one more.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const result = await client.query<{ rows: string; inserts: string }>(
        'select count(*) as rows, count(distinct xmin::text) as inserts from tool_calls',
      );
      expect(Number(result.rows[0]?.rows)).toBe(150);
      expect(Number(result.rows[0]?.inserts)).toBeLessThanOrEqual(Math.floor(elapsed / 10) + 2);
    } finally {
      await client.end();
    }
  });

  it('drops only the calls of a workspace deleted before they were written', async () => {
    await clear();
    const store = await open(true);
    const direct = await open(false);
    await store.toolCalls.record('acme', { toolId: 'kept_before', status: 'success', durationMs: 1 });
    await store.toolCalls.record('doomed', { toolId: 'dropped', status: 'success', durationMs: 1 });
    await direct.workspaces.delete('doomed');
    await store.toolCalls.record('acme', { toolId: 'kept_after', status: 'success', durationMs: 1 });
    await store.toolCalls.flush();
    expect((await loggedRows()).map(([, workspace, tool]) => [workspace, tool])).toEqual([
      ['acme', 'kept_before'],
      ['acme', 'kept_after'],
    ]);
  });

  it('keeps the calls of a failed write and writes them once the database takes them again', async () => {
    await clear();
    const errors: unknown[] = [];
    const store = await open(true, (error) => errors.push(error));
    await store.toolCalls.record('acme', { toolId: 'warm', status: 'success', durationMs: 1 });
    await store.toolCalls.flush();
    await run('alter table tool_calls rename to tool_calls_away');
    try {
      await store.toolCalls.record('acme', { toolId: 'while_away', status: 'success', durationMs: 1 });
      await expect.poll(() => errors.length, { timeout: 5000 }).toBeGreaterThan(0);
    } finally {
      await run('alter table tool_calls_away rename to tool_calls');
    }
    await expect
      .poll(async () => (await loggedRows()).map(([, , tool]) => tool), { timeout: 5000 })
      .toEqual(['warm', 'while_away']);
  });

  it('reserves the next block of ids before the current one runs out', async () => {
    await clear();
    const store = await open(true);
    // Three quarters of a block (1 000 ids) taken: the next block is reserved while calls go on.
    const first = [];
    for (let index = 0; index < 760; index += 1) {
      first.push(await store.toolCalls.record('acme', { toolId: `before_${index}`, status: 'success', durationMs: 1 }));
    }
    const reservedTo = Math.max(...first.map((record) => record.id)) + 240 + 1000;
    await expect.poll(() => sequenceValue(), { timeout: 5000 }).toBeGreaterThanOrEqual(reservedTo);
    // The sequence gives nothing more: calls past the first block are still acknowledged, with the
    // ids reserved ahead, in order.
    await run(`alter table tool_calls alter column id set maxvalue ${await sequenceValue()}`);
    try {
      const later = [];
      for (let index = 0; index < 400; index += 1) {
        later.push(
          await store.toolCalls.record('acme', { toolId: `after_${index}`, status: 'success', durationMs: 1 }),
        );
      }
      const ids = [...first, ...later].map((record) => record.id);
      expect(ids).toEqual([...ids].sort((left, right) => left - right));
      await store.toolCalls.flush();
      expect(await loggedRows()).toHaveLength(1160);
    } finally {
      await run('alter table tool_calls alter column id set no maxvalue');
    }
  });

  it('without the option, a call is in the table when it is acknowledged', async () => {
    await clear();
    const store = await open(false);
    const record = await store.toolCalls.record('acme', { toolId: 'direct', status: 'success', durationMs: 1 });
    expect(await loggedRows()).toEqual([[record.id, 'acme', 'direct']]);
  });
});
