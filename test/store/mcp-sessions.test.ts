import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore, type McpSessionSignal, StoreValidationError, type ToolshedStore } from '../../src/store/index.js';
import { createPostgresTestDatabase, type PostgresTestDatabase } from '../support/postgres-test-database.js';

const base = {
  scope: '/mcp\nws\ntok',
  protocolVersion: '2025-11-25',
  clientInfo: { name: 'client', version: '1.0.0' },
  clientCapabilities: { elicitation: {} },
};

function defineCases(open: () => Promise<ToolshedStore>, close: () => Promise<void>): void {
  let store: ToolshedStore;
  beforeAll(async () => {
    store = await open();
    await store.migrate();
    await store.workspaces.create({ id: 'ws', name: 'Sessions' });
  });
  afterAll(async () => {
    await store.close();
    await close();
  });

  it('keeps a session until it expires, pushes its expiry on touch, and forgets it on delete', async () => {
    const now = Date.now();
    const created = await store.mcpSessions.create({
      ...base,
      id: 'sess-1',
      workspaceId: 'ws',
      agentId: 'a1',
      expiresAt: now + 60_000,
    });
    expect(created).toMatchObject({ id: 'sess-1', workspaceId: 'ws', agentId: 'a1', tokenId: null, ...base });
    expect(await store.mcpSessions.get('sess-1')).toMatchObject({ id: 'sess-1', expiresAt: now + 60_000 });
    expect(await store.mcpSessions.get('sess-1', now + 60_001)).toBeUndefined();
    expect(await store.mcpSessions.touch('sess-1', now + 120_000)).toBe(true);
    expect(await store.mcpSessions.get('sess-1', now + 60_001)).toMatchObject({ expiresAt: now + 120_000 });
    expect(await store.mcpSessions.pruneExpired(now + 200_000)).toBe(1);
    expect(await store.mcpSessions.get('sess-1')).toBeUndefined();
    await store.mcpSessions.create({ ...base, id: 'sess-2', workspaceId: 'ws', expiresAt: now + 60_000 });
    expect(await store.mcpSessions.delete('sess-2')).toBe(true);
    expect(await store.mcpSessions.delete('sess-2')).toBe(false);
  });

  it('refuses malformed sessions and writes nothing', async () => {
    const now = Date.now();
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ id: 'has space' }, 'id'],
      [{ id: 'x'.repeat(129) }, 'id'],
      [{ workspaceId: '../etc' }, 'workspaceId'],
      [{ expiresAt: 'tomorrow' }, 'expiresAt'],
      [{ expiresAt: 1.5 }, 'expiresAt'],
      [{ clientCapabilities: [1, 2] }, 'clientCapabilities'],
      [{ clientInfo: { blob: 'x'.repeat(20_000) } }, 'clientInfo'],
      [{ protocolVersion: '' }, 'protocolVersion'],
    ];
    for (const [patch, field] of bad) {
      const input = { ...base, id: 'sess-bad', workspaceId: 'ws', expiresAt: now + 60_000, ...patch };
      const error = await store.mcpSessions.create(input as never).catch((caught: unknown) => caught);
      expect(StoreValidationError.isInstance(error) && error.field).toBe(field);
    }
    await expect(
      store.mcpSessions.create({ ...base, id: 'sess-x', workspaceId: 'nope', expiresAt: now + 60_000 }),
    ).rejects.toThrow("Workspace 'nope' does not exist.");
    expect(await store.db.selectFrom('mcp_sessions').select('id').execute()).toEqual([]);
    // Hostile ids are unknown sessions, not errors.
    for (const id of ["' or 1=1 --", 'x'.repeat(500), '']) expect(await store.mcpSessions.get(id)).toBeUndefined();
  });

  it("keeps a stream's events in order from a sequence number on, until they expire, are dropped or the session ends", async () => {
    const now = Date.now();
    await store.mcpSessions.create({ ...base, id: 'sess-ev', workspaceId: 'ws', expiresAt: now + 60_000 });
    const key = '1b4e28ba-2fa1-4d2b-883f-0016d3cca427';
    const event = (seq: number, expiresAt = now + 60_000) => ({
      streamKey: key,
      seq,
      message: seq === 0 ? null : JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { seq } }),
      expiresAt,
    });
    expect(await store.mcpStreamEvents.append('sess-ev', [event(2), event(0), event(1)])).toBe(3);
    // Kept once: appending an event again adds nothing.
    expect(await store.mcpStreamEvents.append('sess-ev', [event(1), event(3, now + 1000)])).toBe(1);
    expect((await store.mcpStreamEvents.from('sess-ev', key, 1, 10)).map((kept) => kept.seq)).toEqual([1, 2, 3]);
    expect(await store.mcpStreamEvents.from('sess-ev', key, 0, 2)).toEqual([event(0), event(1)]);
    expect((await store.mcpStreamEvents.from('sess-ev', key, 0, 10, now + 2000)).map((kept) => kept.seq)).toEqual([
      0, 1, 2,
    ]);
    // Another session, or another stream, reads nothing.
    expect(await store.mcpStreamEvents.from('sess-other', key, 0, 10)).toEqual([]);
    expect(await store.mcpStreamEvents.from('sess-ev', `g${key}`, 0, 10)).toEqual([]);
    expect(await store.mcpStreamEvents.drop('sess-ev', key, 0)).toBe(1);
    expect(await store.mcpStreamEvents.pruneExpired(now + 2000)).toBe(1);
    expect((await store.mcpStreamEvents.from('sess-ev', key, 0, 10)).map((kept) => kept.seq)).toEqual([1, 2]);
    await store.mcpSessions.delete('sess-ev');
    expect(await store.db.selectFrom('mcp_stream_events').select('seq').execute()).toEqual([]);
    // A session that is gone keeps nothing, without an error.
    expect(await store.mcpStreamEvents.append('sess-ev', [event(4)])).toBe(0);
  });

  it('refuses malformed events and writes nothing; hostile keys read nothing', async () => {
    const now = Date.now();
    await store.mcpSessions.create({ ...base, id: 'sess-evbad', workspaceId: 'ws', expiresAt: now + 60_000 });
    const good = { streamKey: 'k1', seq: 0, message: null, expiresAt: now + 60_000 };
    const bad: Array<[Record<string, unknown>, string, string]> = [
      [{ streamKey: "'; drop table x --" }, 'streamKey', "use 1-64 letters, digits or '-'"],
      [{ streamKey: 'k'.repeat(65) }, 'streamKey', "use 1-64 letters, digits or '-'"],
      [{ seq: -1 }, 'seq', 'events[1].seq must be a whole number of at least 0, got -1.'],
      [{ seq: 1.5 }, 'seq', 'got 1.5'],
      [{ seq: '3' }, 'seq', 'events[1].seq must be a whole number'],
      [{ message: { jsonrpc: '2.0' } }, 'message', 'must be null or JSON text'],
      [{ message: 'x'.repeat(4 * 1024 * 1024 + 1) }, 'message', 'got 4194305 bytes'],
      [{ expiresAt: 'later' }, 'expiresAt', 'events[1].expiresAt must be a time'],
    ];
    for (const [patch, field, message] of bad) {
      const error = await store.mcpStreamEvents
        .append('sess-evbad', [good, { ...good, seq: 1, ...patch } as never])
        .catch((caught: unknown) => caught);
      expect(StoreValidationError.isInstance(error) && error.field).toBe(field);
      expect((error as Error).message).toContain(message);
    }
    await expect(store.mcpStreamEvents.append('has space', [good])).rejects.toThrow('sessionId');
    await expect(store.mcpStreamEvents.append('sess-evbad', 'events' as never)).rejects.toThrow(
      'events must be an array',
    );
    expect(await store.db.selectFrom('mcp_stream_events').select('seq').execute()).toEqual([]);
    for (const [sessionId, streamKey, seq] of [
      ["' or 1=1 --", 'k1', 0],
      ['sess-evbad', "' or 1=1 --", 0],
      ['sess-evbad', 'k1', -1],
      ['sess-evbad', 'k1', Number.NaN],
    ] as const) {
      expect(await store.mcpStreamEvents.from(sessionId, streamKey, seq, 10)).toEqual([]);
      expect(await store.mcpStreamEvents.drop(sessionId, streamKey, seq)).toBe(0);
    }
    expect(await store.mcpStreamEvents.from('sess-evbad', 'k1', 0, 0)).toEqual([]);
    await store.mcpSessions.delete('sess-evbad');
  });

  it('delivers signals to listeners, refusing malformed and oversized ones', async () => {
    const heard: McpSessionSignal[] = [];
    const stop = store.mcpSessions.onSignal((signal) => heard.push(signal));
    const signal: McpSessionSignal = {
      sessionId: 'sess-3',
      origin: 'srv',
      kind: 'messages',
      messages: [{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }],
    };
    const keep: McpSessionSignal = { sessionId: 'sess-3', origin: 'srv', kind: 'events', messages: ['1b4e-stream'] };
    await store.mcpSessions.signal(signal);
    await store.mcpSessions.signal(keep);
    const deadline = Date.now() + 5000;
    while (heard.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    stop();
    expect(heard).toEqual([signal, keep]);
    await expect(store.mcpSessions.signal({ ...keep, messages: undefined })).rejects.toThrow(StoreValidationError);
    await expect(store.mcpSessions.signal({ ...signal, kind: 'other' } as never)).rejects.toThrow(StoreValidationError);
    await expect(store.mcpSessions.signal({ ...signal, messages: ['x'.repeat(8000)] })).rejects.toThrow(
      'the limit is 7900 bytes',
    );
  });
}

describe('MCP sessions on SQLite', () => {
  const folder = mkdtempSync(join(tmpdir(), 'toolshed-sessions-'));
  defineCases(
    () => createStore(join(folder, 'toolshed.db')),
    async () => rmSync(folder, { recursive: true, force: true }),
  );
});

describe('MCP sessions on PostgreSQL', () => {
  let database: PostgresTestDatabase;
  defineCases(
    async () => {
      database = await createPostgresTestDatabase('toolshed_test', 'The MCP session store tests');
      return createStore(database.url);
    },
    () => database.drop(),
  );

  it('refuses store options a pool cannot use', async () => {
    await expect(createStore(database.url, { statementTimeoutMs: 0 })).rejects.toThrow(
      'Store option statementTimeoutMs must be a whole number greater than 0, got 0.',
    );
    await expect(createStore(database.url, { applicationName: 'bad\nname' })).rejects.toThrow(
      'Store option applicationName must be 1-63 printable ASCII characters',
    );
  });

  it('cuts off a statement that runs past statementTimeoutMs, and names its connections', async () => {
    const store = await createStore(database.url, {
      statementTimeoutMs: 200,
      applicationName: 'toolshed_timeout_test',
    });
    try {
      await expect(sql`select pg_sleep(5)`.execute(store.db)).rejects.toThrow('statement timeout');
      const named = await sql<{ name: string }>`select current_setting('application_name') as name`.execute(store.db);
      expect(named.rows[0]?.name).toBe('toolshed_timeout_test');
    } finally {
      await store.close();
    }
  });
});
