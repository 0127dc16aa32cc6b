import { afterEach, describe, expect, it, vi } from 'vitest';
import { READ_CACHE_MS, READ_CACHE_REFRESH_MS, ReadCache } from './read-cache.js';

// The read cache behind token checks, tool lists and agents' tool lists: requests that miss one key
// at once share one load, and nothing loaded before an invalidation is handed to a later caller.

/** A load whose answer the test gives, counting how often it ran. */
function controlledLoad<V>() {
  const pending: Array<{ resolve(value: V): void; reject(error: unknown): void }> = [];
  const load = () =>
    new Promise<V>((resolve, reject) => {
      pending.push({ resolve, reject });
    });
  return { load, pending };
}

/** Let queued promise callbacks run. */
const settle = async () => {
  for (let turn = 0; turn < 10; turn += 1) await Promise.resolve();
};

afterEach(() => {
  vi.useRealTimers();
});

describe('ReadCache', () => {
  it('answers callers that miss one key at once with one load', async () => {
    const cache = new ReadCache<string>();
    const { load, pending } = controlledLoad<string>();
    const answers = Promise.all(Array.from({ length: 10 }, () => cache.get('acme\u0000tok', load)));
    await settle();
    expect(pending).toHaveLength(1);
    pending[0]?.resolve('identity');
    expect(await answers).toEqual(Array.from({ length: 10 }, () => 'identity'));
    // Kept: the next caller does not load.
    expect(await cache.get('acme\u0000tok', load)).toBe('identity');
    expect(pending).toHaveLength(1);
  });

  it('loads other keys separately', async () => {
    const cache = new ReadCache<string>();
    const { load, pending } = controlledLoad<string>();
    const first = cache.get('acme\u0000a', load);
    const second = cache.get('acme\u0000b', load);
    await settle();
    expect(pending).toHaveLength(2);
    pending[0]?.resolve('a');
    pending[1]?.resolve('b');
    expect([await first, await second]).toEqual(['a', 'b']);
  });

  it('gives a caller after an invalidation a load of its own, and keeps only that one', async () => {
    const cache = new ReadCache<string>();
    const { load, pending } = controlledLoad<string>();
    const before = cache.get('acme\u0000tok', load);
    await settle();
    // A write (a revocation) lands while the first load runs.
    cache.invalidate((key) => key.startsWith('acme\u0000'));
    const after = cache.get('acme\u0000tok', load);
    await settle();
    expect(pending).toHaveLength(2);
    pending[0]?.resolve('stale');
    pending[1]?.resolve('fresh');
    expect(await before).toBe('stale');
    expect(await after).toBe('fresh');
    expect(await cache.get('acme\u0000tok', load)).toBe('fresh');
    expect(pending).toHaveLength(2);
  });

  it('keeps nothing that was loading when the cache was invalidated', async () => {
    const cache = new ReadCache<string>();
    const { load, pending } = controlledLoad<string>();
    const raced = cache.get('acme\u0000tok', load);
    await settle();
    cache.invalidate();
    pending[0]?.resolve('stale');
    expect(await raced).toBe('stale');
    const next = cache.get('acme\u0000tok', load);
    await settle();
    expect(pending).toHaveLength(2);
    pending[1]?.resolve('fresh');
    expect(await next).toBe('fresh');
  });

  it('hands a failed load to every caller that shared it, and keeps nothing of it', async () => {
    const cache = new ReadCache<string>();
    const { load, pending } = controlledLoad<string>();
    const answers = Array.from({ length: 3 }, () => cache.get('acme\u0000tok', load));
    await settle();
    expect(pending).toHaveLength(1);
    pending[0]?.reject(new Error('connection lost'));
    for (const answer of answers) await expect(answer).rejects.toThrow('connection lost');
    const retried = cache.get('acme\u0000tok', load);
    await settle();
    expect(pending).toHaveLength(2);
    pending[1]?.resolve('identity');
    expect(await retried).toBe('identity');
  });

  it('shares a load that finds nothing, and keeps nothing, so the next caller asks again', async () => {
    const cache = new ReadCache<string | undefined>();
    const { load, pending } = controlledLoad<string | undefined>();
    const answers = Promise.all([cache.get('acme\u0000guess', load), cache.get('acme\u0000guess', load)]);
    await settle();
    expect(pending).toHaveLength(1);
    pending[0]?.resolve(undefined);
    expect(await answers).toEqual([undefined, undefined]);
    const again = cache.get('acme\u0000guess', load);
    await settle();
    expect(pending).toHaveLength(2);
    pending[1]?.resolve(undefined);
    expect(await again).toBeUndefined();
  });

  it('loads for every caller when disabled', async () => {
    const cache = new ReadCache<string>(false);
    const { load, pending } = controlledLoad<string>();
    const answers = Promise.all([cache.get('k', load), cache.get('k', load)]);
    await settle();
    expect(pending).toHaveLength(2);
    pending[0]?.resolve('one');
    pending[1]?.resolve('two');
    expect(await answers).toEqual(['one', 'two']);
  });

  describe('near the end of an entry', () => {
    it('serves the entry and loads it again in the background, so no caller waits', async () => {
      vi.useFakeTimers({ toFake: ['performance'] });
      const cache = new ReadCache<string>();
      const { load, pending } = controlledLoad<string>();
      const first = cache.get('acme\u0000tok', load);
      await settle();
      pending[0]?.resolve('v1');
      expect(await first).toBe('v1');
      // Well within the entry's life: served, nothing loaded.
      vi.advanceTimersByTime(READ_CACHE_MS - READ_CACHE_REFRESH_MS - 10);
      expect(await cache.get('acme\u0000tok', load)).toBe('v1');
      await settle();
      expect(pending).toHaveLength(1);
      // In its last stretch: still served at once, and loaded again once, however many callers.
      vi.advanceTimersByTime(20);
      expect(await cache.get('acme\u0000tok', load)).toBe('v1');
      expect(await cache.get('acme\u0000tok', load)).toBe('v1');
      await settle();
      expect(pending).toHaveLength(2);
      pending[1]?.resolve('v2');
      await settle();
      // Past the first entry's end: the reloaded one is served without a load.
      vi.advanceTimersByTime(READ_CACHE_REFRESH_MS);
      expect(await cache.get('acme\u0000tok', load)).toBe('v2');
      await settle();
      expect(pending).toHaveLength(2);
    });

    it('drops the entry at once when the background load finds nothing (a revoked token)', async () => {
      vi.useFakeTimers({ toFake: ['performance'] });
      const cache = new ReadCache<string | undefined>();
      const { load, pending } = controlledLoad<string | undefined>();
      const first = cache.get('acme\u0000tok', load);
      await settle();
      pending[0]?.resolve('identity');
      await first;
      vi.advanceTimersByTime(READ_CACHE_MS - READ_CACHE_REFRESH_MS / 2);
      expect(await cache.get('acme\u0000tok', load)).toBe('identity');
      await settle();
      pending[1]?.resolve(undefined);
      await settle();
      // Still inside the old entry's life, but the fresher read said no.
      const next = cache.get('acme\u0000tok', load);
      await settle();
      expect(pending).toHaveLength(3);
      pending[2]?.resolve(undefined);
      expect(await next).toBeUndefined();
    });

    it('keeps nothing of a background load the cache was invalidated during', async () => {
      vi.useFakeTimers({ toFake: ['performance'] });
      const cache = new ReadCache<string>();
      const { load, pending } = controlledLoad<string>();
      const first = cache.get('acme\u0000tok', load);
      await settle();
      pending[0]?.resolve('v1');
      await first;
      vi.advanceTimersByTime(READ_CACHE_MS - READ_CACHE_REFRESH_MS / 2);
      expect(await cache.get('acme\u0000tok', load)).toBe('v1');
      await settle();
      cache.invalidate();
      pending[1]?.resolve('stale');
      await settle();
      const next = cache.get('acme\u0000tok', load);
      await settle();
      expect(pending).toHaveLength(3);
      pending[2]?.resolve('fresh');
      expect(await next).toBe('fresh');
    });
  });
});
