import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStore, type ToolshedStore } from './index.js';
import { MAX_UNCOPIED_CALLS } from './journaled-call-log.js';

// The SQLite call journal (`callJournal: true`, what `toolshed serve` uses): a call is acknowledged
// once its line is in `<database>-calls`, and reaches `tool_calls` shortly after, before any read of
// the log, at close, or, after a crash, when the next owner opens the journal.

let folder: string;
let databaseFile: string;
const opened: ToolshedStore[] = [];

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'toolshed-journal-'));
  databaseFile = join(folder, 'toolshed.db');
  const store = await createStore(databaseFile);
  await store.migrate();
  await store.workspaces.create({ id: 'acme', name: 'Acme' });
  await store.workspaces.create({ id: 'globex', name: 'Globex' });
  await store.close();
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close().catch(() => undefined);
  rmSync(folder, { recursive: true, force: true });
});

async function open(options: Parameters<typeof createStore>[1] = { callJournal: true }): Promise<ToolshedStore> {
  const store = await createStore(databaseFile, options);
  opened.push(store);
  return store;
}

/** The rows of `tool_calls` as another connection sees them: `[id, workspace, tool]`. */
function loggedRows(): Array<[number, string, string]> {
  const db = new Database(databaseFile, { readonly: true });
  try {
    return (
      db.prepare('select id, workspace_id, tool_id from tool_calls order by id').all() as Array<{
        id: number;
        workspace_id: string;
        tool_id: string;
      }>
    ).map((row) => [row.id, row.workspace_id, row.tool_id]);
  } finally {
    db.close();
  }
}

function journalLines(): string[] {
  const path = `${databaseFile}-calls`;
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
    : [];
}

const call = (toolId: string) => ({ toolId, status: 'success' as const, durationMs: 2 });

describe('the call journal', () => {
  it('acknowledges a call once journaled, and logs it before the log is read', async () => {
    const store = await open();
    const first = await store.toolCalls.record('acme', { ...call('calculator'), agentId: 'agt_1' });
    expect(first).toEqual({
      id: expect.any(Number),
      workspaceId: 'acme',
      agentId: 'agt_1',
      toolId: 'calculator',
      status: 'success',
      errorCode: null,
      durationMs: 2,
      createdAt: expect.any(String),
      tokenId: null,
      approvalId: null,
      argumentsDigest: null,
      resultBytes: null,
    });
    expect(journalLines()).toEqual([
      JSON.stringify([
        first.id,
        'acme',
        'agt_1',
        'calculator',
        'success',
        null,
        2,
        first.createdAt,
        null,
        null,
        null,
        null,
      ]),
    ]);
    const recent = await store.toolCalls.listRecent('acme');
    expect(recent).toEqual([first]);
    expect(loggedRows()).toEqual([[first.id, 'acme', 'calculator']]);
  });

  it('copies calls into tool_calls on its own within moments, in order', async () => {
    const store = await open();
    const records = await Promise.all(
      ['a_tool', 'b_tool', 'c_tool'].map((tool) => store.toolCalls.record('acme', call(tool))),
    );
    expect(records.map((record) => record.id)).toEqual([
      records[0]?.id,
      (records[0]?.id ?? 0) + 1,
      (records[0]?.id ?? 0) + 2,
    ]);
    await vi.waitFor(() => expect(loggedRows().map(([, , tool]) => tool)).toEqual(['a_tool', 'b_tool', 'c_tool']), {
      timeout: 2000,
    });
  });

  it('logs what a killed owner journaled, once, with the ids it answered', async () => {
    // A process that journals five calls, says which ids it got, and then never runs its event loop
    // again (so nothing is copied into tool_calls) until it is killed.
    const script = join(folder, 'owner.mjs');
    const storeModule = new URL('../../dist/store/index.js', import.meta.url).href;
    writeFileSync(
      script,
      [
        `import { createStore } from ${JSON.stringify(storeModule)};`,
        `const store = await createStore(${JSON.stringify(databaseFile)}, { callJournal: true });`,
        "const records = await Promise.all([1, 2, 3, 4, 5].map((n) => store.toolCalls.record('acme', { toolId: 'tool_' + n, status: 'success', durationMs: n })));",
        'process.stdout.write(JSON.stringify(records.map((record) => record.id)) + "\\n");',
        'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);',
      ].join('\n'),
    );
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const ids = await new Promise<number[]>((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.endsWith('\n')) resolve(JSON.parse(text) as number[]);
      });
      child.on('exit', (code) => reject(new Error(`the owner exited (${code}) before journaling`)));
    });
    // While it lives it owns the journal: another store writes its calls directly.
    const bystander = await open();
    const direct = await bystander.toolCalls.record('acme', call('direct_tool'));
    expect(direct.id).toBeGreaterThan(Math.max(...ids));
    await bystander.close();

    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(loggedRows()).toEqual([[direct.id, 'acme', 'direct_tool']]);
    expect(journalLines()).toHaveLength(5);

    const next = await open();
    await next.toolCalls.flush();
    expect(loggedRows()).toEqual([
      ...ids.map((id, index): [number, string, string] => [id, 'acme', `tool_${index + 1}`]),
      [direct.id, 'acme', 'direct_tool'],
    ]);
    expect(journalLines()).toEqual([]);
    // Its own calls get ids above everything used or reserved before.
    const after = await next.toolCalls.record('acme', call('after_tool'));
    expect(after.id).toBeGreaterThan(direct.id);
  }, 30_000);

  it('logs a journal line once even when it was copied before the journal was emptied', async () => {
    const store = await open();
    const record = await store.toolCalls.record('acme', call('calculator'));
    await store.toolCalls.flush();
    const line = JSON.stringify([record.id, 'acme', null, 'calculator', 'success', null, 2, record.createdAt]);
    await store.close();
    // The crash this stands for: after the commit, before the journal was emptied.
    writeFileSync(`${databaseFile}-calls`, `${line}\n`);
    const next = await open();
    await next.toolCalls.flush();
    expect(loggedRows()).toEqual([[record.id, 'acme', 'calculator']]);
  });

  it('skips unreadable and torn lines, logs the rest, and says how many it skipped', async () => {
    const at = '2026-01-02T03:04:05.000Z';
    writeFileSync(
      `${databaseFile}-calls`,
      [
        JSON.stringify([7, 'acme', null, 'good_one', 'success', null, 1, at]),
        'not json at all',
        JSON.stringify([8, 'acme', null, 'bad_status', 'fine', null, 1, at]),
        JSON.stringify(['9', 'acme', null, 'string_id', 'success', null, 1, at]),
        JSON.stringify([10, 'acme', null, 'bad_time', 'success', null, 1, 'yesterday']),
        JSON.stringify([11, 'acme', null, 'negative', 'success', null, -5, at]),
        JSON.stringify([12, 'acme', 'agt_x', 'good_two', 'error', 'TIMEOUT', 30000, at]),
        '[13,"acme",null,"torn_at_the_en',
      ].join('\n'),
    );
    const errors: unknown[] = [];
    const store = await open({ callJournal: true, onError: (error) => errors.push(error) });
    await store.toolCalls.flush();
    expect(loggedRows()).toEqual([
      [7, 'acme', 'good_one'],
      [12, 'acme', 'good_two'],
    ]);
    expect(errors.map(String)).toEqual([
      `Error: The call log journal ${databaseFile}-calls had 6 unreadable lines; 2 calls were logged from it and the rest skipped.`,
    ]);
    expect(journalLines()).toEqual([]);
  });

  it('keeps the audit columns through the journal, reads lines written before them, and skips malformed ones', async () => {
    const at = '2026-01-02T03:04:05.000Z';
    const digest = 'b'.repeat(64);
    writeFileSync(
      `${databaseFile}-calls`,
      [
        JSON.stringify([21, 'acme', null, 'old_line', 'success', null, 1, at]),
        JSON.stringify([22, 'acme', null, 'audited', 'success', null, 1, at, 'tok_1', 'apr_1', digest, 99]),
        JSON.stringify([23, 'acme', null, 'bad_bytes', 'success', null, 1, at, 'tok_1', null, null, -1]),
        JSON.stringify([24, 'acme', null, 'bad_token', 'success', null, 1, at, 7, null, null, null]),
        JSON.stringify([25, 'acme', null, 'nine_items', 'success', null, 1, at, 'tok_1']),
      ].join('\n'),
    );
    const errors: unknown[] = [];
    const store = await open({ callJournal: true, onError: (error) => errors.push(error) });
    const listed = await store.toolCalls.listRecent('acme');
    expect(
      listed.map(({ toolId, tokenId, approvalId, argumentsDigest, resultBytes }) => ({
        toolId,
        tokenId,
        approvalId,
        argumentsDigest,
        resultBytes,
      })),
    ).toEqual([
      { toolId: 'audited', tokenId: 'tok_1', approvalId: 'apr_1', argumentsDigest: digest, resultBytes: 99 },
      { toolId: 'old_line', tokenId: null, approvalId: null, argumentsDigest: null, resultBytes: null },
    ]);
    expect(errors).toHaveLength(1);
    const recorded = await store.toolCalls.record('acme', { ...call('fresh'), tokenId: 'tok_2', resultBytes: 5 });
    const [newest] = await store.toolCalls.listRecent('acme', { limit: 1 });
    expect(newest).toEqual(recorded);
    expect(newest).toMatchObject({ tokenId: 'tok_2', resultBytes: 5 });
  });

  it('drops the calls of a workspace deleted before they were copied, and keeps the others', async () => {
    const store = await open();
    const [kept] = await Promise.all([
      store.toolCalls.record('acme', call('kept_tool')),
      store.toolCalls.record('globex', call('dropped_tool')),
    ]);
    // Deleted by another process before the journal is copied.
    const db = new Database(databaseFile);
    db.pragma('foreign_keys = ON');
    db.prepare("delete from workspaces where id = 'globex'").run();
    db.close();
    await store.toolCalls.flush();
    expect(loggedRows()).toEqual([[kept?.id, 'acme', 'kept_tool']]);
  });

  it('keeps journaled calls while copies fail, says why, and copies them once it can', async () => {
    // Every insert into tool_calls fails, as on a full disk.
    const blocker = new Database(databaseFile);
    blocker.exec(
      "create trigger refuse_calls before insert on tool_calls begin select raise(abort, 'disk is full'); end",
    );
    const errors: unknown[] = [];
    const store = await open({ callJournal: true, onError: (error) => errors.push(error) });
    const record = await store.toolCalls.record('acme', call('calculator'));
    expect(journalLines()).toHaveLength(1);
    await expect(store.toolCalls.listRecent('acme')).rejects.toThrow('disk is full');
    await vi.waitFor(() => expect(errors.map(String)).toContain('SqliteError: disk is full'), { timeout: 2000 });

    // Past the limit, new calls are refused with the reason instead of piling up in memory.
    const waiting = await Promise.allSettled(
      Array.from({ length: MAX_UNCOPIED_CALLS }, () => store.toolCalls.record('acme', call('calculator'))),
    );
    expect(waiting.every((outcome) => outcome.status === 'fulfilled')).toBe(true);
    await expect(store.toolCalls.listRecent('acme')).rejects.toThrow('disk is full');
    await expect(store.toolCalls.record('acme', call('refused_tool'))).rejects.toThrow('disk is full');

    blocker.exec('drop trigger refuse_calls');
    blocker.close();
    const recent = await store.toolCalls.listRecent('acme', { limit: 1 });
    expect(recent[0]?.id).toBe(record.id + MAX_UNCOPIED_CALLS);
    expect(loggedRows()).toHaveLength(MAX_UNCOPIED_CALLS + 1);
    expect(loggedRows().some(([, , tool]) => tool === 'refused_tool')).toBe(false);
    await store.toolCalls.record('acme', call('after_tool'));
  }, 30_000);

  it('copies everything and lets the journal go at close, for the next store to take', async () => {
    const first = await open();
    const records = await Promise.all([1, 2, 3].map((n) => first.toolCalls.record('acme', call(`tool_${n}`))));
    await first.close();
    expect(loggedRows().map(([id]) => id)).toEqual(records.map((record) => record.id));
    expect(journalLines()).toEqual([]);
    await expect(first.toolCalls.record('acme', call('late_tool'))).rejects.toThrow();

    const second = await open();
    await second.toolCalls.record('acme', call('second_tool'));
    // The second store owns the journal now: its call is journaled, not written directly.
    expect(journalLines()).toHaveLength(1);
  });

  it('reserves a new block of ids when one runs out', async () => {
    const store = await open();
    const ids: number[] = [];
    for (let batch = 0; batch < 21; batch += 1) {
      const records = await Promise.all(
        Array.from({ length: 500 }, () => store.toolCalls.record('acme', call('many_tool'))),
      );
      ids.push(...records.map((record) => record.id));
    }
    expect(new Set(ids).size).toBe(10_500);
    expect(ids).toEqual([...ids].sort((left, right) => left - right));
    expect(await store.toolCalls.listRecent('acme', { limit: 1 })).toEqual([
      expect.objectContaining({ id: ids.at(-1) }),
    ]);
    expect(loggedRows()).toHaveLength(10_500);
  });

  it('is not used for :memory: databases or without the option', async () => {
    for (const store of [await createStore(':memory:', { callJournal: true }), await open({})]) {
      opened.push(store);
      await store.migrate();
      await store.workspaces.create({ id: 'solo', name: 'Solo' }).catch(() => undefined);
      await store.toolCalls.record('solo', call('direct_tool'));
    }
    expect(existsSync(`${databaseFile}-calls`)).toBe(false);
    expect(loggedRows()).toEqual([[expect.any(Number), 'solo', 'direct_tool']]);
  });
});
