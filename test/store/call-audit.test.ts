import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callLimitKey, type ToolshedStore } from '../../src/store/index.js';
import { postgresHarness, type ServerStoreHarness, sqliteHarness } from '../server/server-harness.js';

const DIGEST = 'a'.repeat(64);

for (const harness of [sqliteHarness(), postgresHarness()] as ServerStoreHarness[]) {
  describe(`the call log's audit columns, filters and retention on ${harness.dialect}`, () => {
    let store: ToolshedStore;

    beforeAll(async () => {
      store = await harness.open();
      await store.migrate();
      await store.workspaces.create({ id: 'acme', name: 'Acme' });
      await store.workspaces.create({ id: 'other', name: 'Other' });
    });
    afterAll(async () => {
      await store.close();
      await harness.teardown();
    });

    it('keeps the token, approval, arguments digest and result size of a call', async () => {
      const record = await store.toolCalls.record('acme', {
        toolId: 'calculator',
        status: 'success',
        durationMs: 3,
        tokenId: 'tok_1',
        approvalId: 'apr_1',
        argumentsDigest: DIGEST,
        resultBytes: 42,
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      expect(record).toMatchObject({ tokenId: 'tok_1', approvalId: 'apr_1', argumentsDigest: DIGEST, resultBytes: 42 });
      const [listed] = await store.toolCalls.listRecent('acme', { limit: 1 });
      expect(listed).toEqual(record);
    });

    it.each([
      [{ argumentsDigest: 'ABC' }, 'argumentsDigest must be 64 lowercase hex digits (a SHA-256), got "ABC".'],
      [{ resultBytes: -1 }, 'resultBytes must be a whole number of at least 0, got -1.'],
      [{ resultBytes: 1.5 }, 'resultBytes must be a whole number of at least 0, got 1.5.'],
    ])('refuses %j and writes nothing', async (extra, message) => {
      const before = await store.toolCalls.listRecent('other');
      await expect(
        store.toolCalls.record('other', { toolId: 'x', status: 'success', durationMs: 1, ...extra }),
      ).rejects.toThrow(message);
      expect(await store.toolCalls.listRecent('other')).toEqual(before);
    });

    it('filters by status, tool, token and time, and pages below an id', async () => {
      const times = ['2026-02-01T00:00:00.000Z', '2026-02-02T00:00:00.000Z', '2026-02-03T00:00:00.000Z'];
      for (const [index, createdAt] of times.entries()) {
        await store.toolCalls.record('acme', {
          toolId: index === 2 ? 'fetch_url' : 'search',
          status: index === 1 ? 'error' : 'success',
          errorCode: index === 1 ? 'EXECUTION_FAILED' : null,
          durationMs: 1,
          tokenId: index === 0 ? 'tok_2' : 'tok_1',
          createdAt,
        });
      }
      const ids = async (options: Parameters<ToolshedStore['toolCalls']['listRecent']>[1]) =>
        (await store.toolCalls.listRecent('acme', options)).map((call) => call.createdAt);
      expect(await ids({ status: 'error' })).toEqual([times[1]]);
      expect(await ids({ toolId: 'fetch_url' })).toEqual([times[2]]);
      expect(await ids({ tokenId: 'tok_2' })).toEqual([times[0]]);
      expect(await ids({ since: times[1], until: times[2] })).toEqual([times[1]]);
      const [newest] = await store.toolCalls.listRecent('acme', { limit: 1 });
      expect(await ids({ beforeId: newest?.id, since: '2026-02-01T00:00:00Z' })).toEqual([times[1], times[0]]);
    });

    it('prunes calls logged before a time, in every workspace', async () => {
      await store.toolCalls.record('other', {
        toolId: 'old',
        status: 'success',
        durationMs: 1,
        createdAt: '2025-06-01T00:00:00.000Z',
      });
      expect(await store.toolCalls.pruneBefore('2026-01-15T00:00:00Z')).toBe(2);
      expect((await store.toolCalls.listRecent('acme')).map((call) => call.createdAt)).not.toContain(
        '2026-01-01T00:00:00.000Z',
      );
      expect(await store.toolCalls.listRecent('other')).toEqual([]);
      await expect(store.toolCalls.pruneBefore('yesterday')).rejects.toThrow(
        'before must be an ISO-8601 timestamp, got "yesterday".',
      );
    });
  });

  describe(`call limits and their shared counters on ${harness.dialect}`, () => {
    let store: ToolshedStore;
    let second: ToolshedStore;

    beforeAll(async () => {
      store = await harness.open();
      await store.migrate();
      second = await harness.reopen();
      await store.workspaces.create({ id: 'acme', name: 'Acme' });
    });
    afterAll(async () => {
      await second.close();
      await store.close();
      await harness.teardown();
    });

    it('sets, replaces, lists and deletes limits by scope and target', async () => {
      await store.callLimits.set('acme', { scope: 'tool', target: 'fetch_url', callsPerMinute: 60, burst: 5 });
      await store.callLimits.set('acme', { scope: 'workspace', maxConcurrent: 8 });
      const replaced = await store.callLimits.set('acme', { scope: 'tool', target: 'fetch_url', maxConcurrent: 2 });
      expect(replaced).toMatchObject({ scope: 'tool', target: 'fetch_url', callsPerMinute: null, maxConcurrent: 2 });
      expect((await store.callLimits.list('acme')).map(({ scope, target }) => [scope, target])).toEqual([
        ['tool', 'fetch_url'],
        ['workspace', null],
      ]);
      expect(await store.callLimits.delete('acme', 'workspace')).toBe(true);
      expect(await store.callLimits.delete('acme', 'workspace')).toBe(false);
      expect(await store.callLimits.list('nope')).toEqual([]);
    });

    it.each([
      [
        { scope: 'planet', target: 'x', maxConcurrent: 1 },
        'scope must be one of workspace, token, agent, tool, got "planet".',
      ],
      [{ scope: 'tool', maxConcurrent: 1 }, 'target must be a non-empty string, got null.'],
      [{ scope: 'workspace', target: 'x', maxConcurrent: 1 }, 'A workspace limit has no target, got "x".'],
      [{ scope: 'tool', target: 'x' }, 'A call limit needs callsPerMinute, maxConcurrent or both.'],
      [
        { scope: 'tool', target: 'x', maxConcurrent: 0 },
        'maxConcurrent must be a whole number from 1 to 1000000, got 0.',
      ],
      [
        { scope: 'tool', target: 'x', maxConcurrent: 1e9 },
        'maxConcurrent must be a whole number from 1 to 1000000, got 1000000000.',
      ],
      [
        { scope: 'tool', target: 'x', callsPerMinute: -5 },
        'callsPerMinute must be a number from 0.001 to 1000000, got -5.',
      ],
      [
        { scope: 'tool', target: 'x', maxConcurrent: 1, burst: 3 },
        'burst is the size of a rate limit: give callsPerMinute with it.',
      ],
    ])('refuses %j and writes nothing', async (limit, message) => {
      const before = await store.callLimits.list('acme');
      await expect(store.callLimits.set('acme', limit as never)).rejects.toThrow(message);
      expect(await store.callLimits.list('acme')).toEqual(before);
    });

    it('takes tokens from one bucket through two stores, and says when the next one comes', async () => {
      const key = callLimitKey('acme', 'agent', 'research');
      const bucket = { capacity: 2, refillPerMs: 0.01, now: 1_000_000 };
      expect(await store.callLimits.takeToken(key, bucket)).toEqual({ taken: true });
      expect(await second.callLimits.takeToken(key, bucket)).toEqual({ taken: true });
      expect(await store.callLimits.takeToken(key, bucket)).toEqual({ taken: false, retryAfterMs: 100 });
      expect(await second.callLimits.takeToken(key, { ...bucket, now: 1_000_040 })).toEqual({
        taken: false,
        retryAfterMs: 60,
      });
      expect(await second.callLimits.takeToken(key, { ...bucket, now: 1_000_100 })).toEqual({ taken: true });
      expect(await store.callLimits.takeToken(key, { ...bucket, now: 1_000_100 })).toMatchObject({ taken: false });
    });

    it('holds a cap across two stores, frees expired slots and released ones', async () => {
      const key = callLimitKey('acme', 'tool', 'slow');
      const now = 5_000;
      expect(await store.callLimits.acquireSlot(key, 2, { id: 'l1', holder: 'a', expiresAt: now + 100 }, now)).toBe(
        true,
      );
      expect(await second.callLimits.acquireSlot(key, 2, { id: 'l2', holder: 'b', expiresAt: now + 50 }, now)).toBe(
        true,
      );
      expect(await store.callLimits.acquireSlot(key, 2, { id: 'l3', holder: 'a', expiresAt: now + 100 }, now)).toBe(
        false,
      );
      // b stopped renewing: its slot is free once expired.
      expect(
        await store.callLimits.acquireSlot(key, 2, { id: 'l3', holder: 'a', expiresAt: now + 200 }, now + 60),
      ).toBe(true);
      expect(await store.callLimits.renewSlots('a', now + 1_000)).toBe(2);
      expect(
        await second.callLimits.acquireSlot(key, 2, { id: 'l4', holder: 'b', expiresAt: now + 500 }, now + 300),
      ).toBe(false);
      await store.callLimits.releaseSlot('l1');
      expect(
        await second.callLimits.acquireSlot(key, 2, { id: 'l4', holder: 'b', expiresAt: now + 500 }, now + 300),
      ).toBe(true);
    });

    it('lets exactly the cap in of 200 simultaneous takes, each cap on its own (through two stores on PostgreSQL)', async () => {
      const now = 9_000;
      // Two SQLite stores of one file in one process wait on each other's write lock synchronously
      // (not supported); two servers on SQLite are two processes. PostgreSQL takes both at once.
      const stores = harness.dialect === 'postgres' ? [store, second] : [store];
      const keys = [callLimitKey('acme', 'tool', 'burst_a'), callLimitKey('acme', 'agent', 'burst_b')];
      const takes = await Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          (stores[index % stores.length] as ToolshedStore).callLimits.acquireSlot(
            keys[index % 4 < 2 ? 0 : 1] as string,
            7,
            { id: `lb_${index}`, holder: index % 2 === 0 ? 'a' : 'b', expiresAt: now + 10_000 },
            now,
          ),
        ),
      );
      const admitted = (key: number) => takes.filter((taken, index) => taken && (index % 4 < 2 ? 0 : 1) === key);
      expect([admitted(0).length, admitted(1).length]).toEqual([7, 7]);
      // A slot given back is free for the next take, and only one.
      const first = takes.findIndex((taken, index) => taken && index % 4 < 2);
      await store.callLimits.releaseSlot(`lb_${first}`);
      const again = await Promise.all(
        [store, ...stores, store].map((on, index) =>
          on.callLimits.acquireSlot(
            keys[0] as string,
            7,
            { id: `lb_again_${index}`, holder: 'a', expiresAt: now + 10_000 },
            now,
          ),
        ),
      );
      expect(again.filter(Boolean)).toHaveLength(1);
    });
  });
}
