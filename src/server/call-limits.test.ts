import { describe, expect, it } from 'vitest';
import type { CallLimitRecord, ToolshedStore } from '../store/index.js';
import { CallLimits, LIMITS_CACHE_MS, LIMITS_REFRESH_MS } from './call-limits.js';

// How a server reads a workspace's stored limits: calls that find no fresh copy at once share one
// read, and a read that raced a change of the limits is neither shared after it nor kept.

/** A store whose `callLimits.list` answers when the test says, counting its reads. */
function storeWithControlledLimits() {
  const reads: Array<(rows: CallLimitRecord[]) => void> = [];
  const store = {
    callLimits: {
      takeToken: async () => ({ taken: false, retryAfterMs: 500 }),
      list: () =>
        new Promise<CallLimitRecord[]>((resolve) => {
          reads.push(resolve);
        }),
    },
  } as unknown as ToolshedStore;
  return { store, reads };
}

function row(callsPerMinute: number): CallLimitRecord {
  return {
    workspaceId: 'acme',
    scope: 'tool',
    target: 'search',
    callsPerMinute,
    burst: null,
    maxConcurrent: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('CallLimits.list', () => {
  it('reads the store once for calls that ask at the same time, then serves its copy', async () => {
    const { store, reads } = storeWithControlledLimits();
    const limits = new CallLimits(store);
    const answers = Promise.all(Array.from({ length: 10 }, () => limits.list('acme')));
    await settle();
    expect(reads).toHaveLength(1);
    reads[0]?.([row(60)]);
    for (const answer of await answers) expect(answer.map((limit) => limit.callsPerMinute)).toEqual([60]);
    expect((await limits.list('acme')).map((limit) => limit.callsPerMinute)).toEqual([60]);
    expect(reads).toHaveLength(1);
  });

  it('gives a call after a change its own read, and keeps only that one', async () => {
    const { store, reads } = storeWithControlledLimits();
    const limits = new CallLimits(store);
    const before = limits.list('acme');
    await settle();
    // This server changed the limit while the first read ran.
    limits.invalidate('acme');
    const after = limits.list('acme');
    await settle();
    expect(reads).toHaveLength(2);
    reads[0]?.([row(60)]);
    reads[1]?.([row(5)]);
    expect((await before).map((limit) => limit.callsPerMinute)).toEqual([60]);
    expect((await after).map((limit) => limit.callsPerMinute)).toEqual([5]);
    expect((await limits.list('acme')).map((limit) => limit.callsPerMinute)).toEqual([5]);
    expect(reads).toHaveLength(2);
  });

  it('keeps nothing read while the configured limits were replaced', async () => {
    const { store, reads } = storeWithControlledLimits();
    const limits = new CallLimits(store);
    const raced = limits.list('acme');
    await settle();
    limits.setConfigured('acme', [{ scope: 'workspace', maxConcurrent: 2 }]);
    reads[0]?.([]);
    await raced;
    const next = limits.list('acme');
    await settle();
    expect(reads).toHaveLength(2);
    reads[1]?.([]);
    expect((await next).map((limit) => [limit.scope, limit.maxConcurrent, limit.source])).toEqual([
      ['workspace', 2, 'config'],
    ]);
  });

  it('reads the limits again in the background near the end of the copy, and serves the new ones after', async () => {
    const { store, reads } = storeWithControlledLimits();
    let clock = 1_000_000;
    const limits = new CallLimits(store, { now: () => clock });
    const first = limits.list('acme');
    await settle();
    reads[0]?.([row(60)]);
    await first;
    clock += LIMITS_CACHE_MS - LIMITS_REFRESH_MS - 1;
    await limits.list('acme');
    await settle();
    expect(reads).toHaveLength(1);
    clock += 2;
    expect((await limits.list('acme')).map((limit) => limit.callsPerMinute)).toEqual([60]);
    expect((await limits.list('acme')).map((limit) => limit.callsPerMinute)).toEqual([60]);
    await settle();
    expect(reads).toHaveLength(2);
    reads[1]?.([row(5)]);
    await settle();
    clock += LIMITS_REFRESH_MS;
    expect((await limits.list('acme')).map((limit) => limit.callsPerMinute)).toEqual([5]);
    await settle();
    expect(reads).toHaveLength(2);
  });

  describe('admitNow', () => {
    it('lets a call no limit names in at once, without a promise, once the limits are known', async () => {
      const { store, reads } = storeWithControlledLimits();
      const limits = new CallLimits(store);
      const call = { workspaceId: 'acme', tokenId: 'tok_1', tool: 'fetch_url' };
      // Nothing known yet: the answer waits for the read.
      const first = limits.admitNow(call);
      expect(first).toBeInstanceOf(Promise);
      await settle();
      reads[0]?.([row(60)]);
      expect(await first).toMatchObject({ admitted: true });
      // Known, and the only limit names another tool.
      const second = limits.admitNow(call);
      expect(second).not.toBeInstanceOf(Promise);
      expect(second).toMatchObject({ admitted: true });
    });

    it('judges a call a limit names as admit does: here refused with the bucket empty', async () => {
      const { store, reads } = storeWithControlledLimits();
      const limits = new CallLimits(store);
      const warm = limits.list('acme');
      await settle();
      reads[0]?.([row(60)]);
      await warm;
      const verdict = limits.admitNow({ workspaceId: 'acme', tokenId: 'tok_1', tool: 'search' });
      expect(verdict).toBeInstanceOf(Promise);
      expect(await verdict).toMatchObject({
        admitted: false,
        retryAfterMs: 500,
        result: { status: 'error', error: { code: 'RATE_LIMITED' } },
      });
    });

    it('waits for the read again once the limits changed', async () => {
      const { store, reads } = storeWithControlledLimits();
      const limits = new CallLimits(store);
      const warm = limits.list('acme');
      await settle();
      reads[0]?.([]);
      await warm;
      expect(limits.admitNow({ workspaceId: 'acme', tokenId: 'tok_1', tool: 'search' })).not.toBeInstanceOf(Promise);
      limits.invalidate('acme');
      const verdict = limits.admitNow({ workspaceId: 'acme', tokenId: 'tok_1', tool: 'search' });
      expect(verdict).toBeInstanceOf(Promise);
      await settle();
      reads[1]?.([row(60)]);
      expect(await verdict).toMatchObject({ admitted: false });
    });
  });
});
