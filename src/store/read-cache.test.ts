import { describe, expect, it } from 'vitest';
import { ReadCache } from './read-cache.js';

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
const settle = () => new Promise((resolve) => setImmediate(resolve));

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
});
