import { describe, expect, it, vi } from 'vitest';
import { DeadlineQueue } from './deadline-queue.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DeadlineQueue', () => {
  it('fires deadlines of the same duration in the order they were added', async () => {
    const queue = new DeadlineQueue();
    const fired: string[] = [];
    queue.add(20, performance.now(), () => fired.push('first'));
    queue.add(20, performance.now(), () => fired.push('second'));
    await sleep(60);
    expect(fired).toEqual(['first', 'second']);
  });

  it('does not fire a cancelled deadline', async () => {
    const queue = new DeadlineQueue();
    const fired: string[] = [];
    const first = queue.add(10, performance.now(), () => fired.push('first'));
    queue.add(10, performance.now(), () => fired.push('second'));
    first.cancel();
    first.cancel();
    await sleep(50);
    expect(fired).toEqual(['second']);
  });

  it('fires deadlines of different durations independently', async () => {
    const queue = new DeadlineQueue();
    const fired: string[] = [];
    queue.add(60, performance.now(), () => fired.push('long'));
    queue.add(5, performance.now(), () => fired.push('short'));
    await sleep(30);
    expect(fired).toEqual(['short']);
    await sleep(60);
    expect(fired).toEqual(['short', 'long']);
  });

  it('counts a deadline from the start time it was given', async () => {
    const queue = new DeadlineQueue();
    let firedAt = 0;
    const started = performance.now() - 30;
    queue.add(40, started, () => {
      firedAt = performance.now();
    });
    await sleep(80);
    expect(firedAt - started).toBeGreaterThanOrEqual(39);
  });
});

describe('DeadlineQueue within one turn of the event loop', () => {
  it('arms no timer for deadlines cancelled in the turn they were added', async () => {
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    try {
      const queue = new DeadlineQueue();
      const fire = vi.fn();
      for (let index = 0; index < 3; index++) queue.add(10, performance.now(), fire).cancel();
      await new Promise((resolve) => setImmediate(resolve));
      expect(setTimeoutSpy).not.toHaveBeenCalled();
      await sleep(30);
      expect(fire).not.toHaveBeenCalled();
    } finally {
      setTimeoutSpy.mockRestore();
    }
  });

  it('moves only the pending deadlines to their timers when the event loop turns, and a later cancel still holds', async () => {
    const queue = new DeadlineQueue();
    const fired: string[] = [];
    const kept = queue.add(20, performance.now(), () => fired.push('kept'));
    queue.add(20, performance.now(), () => fired.push('dropped in its turn')).cancel();
    const late = queue.add(20, performance.now(), () => fired.push('dropped after the turn'));
    await new Promise((resolve) => setImmediate(resolve));
    late.cancel();
    queue.add(5, performance.now(), () => fired.push('added in the next turn'));
    await sleep(60);
    expect(fired).toEqual(['added in the next turn', 'kept']);
    kept.cancel();
  });

  it('keeps the pending deadlines, in order, among thousands cancelled in one turn', async () => {
    const queue = new DeadlineQueue();
    const fired: number[] = [];
    for (let index = 0; index < 5000; index++) {
      const deadline = queue.add(15, performance.now(), () => fired.push(index));
      if (index % 1000 !== 0) deadline.cancel();
    }
    await sleep(60);
    expect(fired).toEqual([0, 1000, 2000, 3000, 4000]);
  });
});

describe('DeadlineQueue with long durations', () => {
  it('waits for a deadline beyond the 32-bit timer limit without re-arming a timer every millisecond', async () => {
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    try {
      const queue = new DeadlineQueue();
      const fire = vi.fn();
      // 35 days: a valid timeoutMs, but more than setTimeout's 2^31 - 1 ms.
      const deadline = queue.add(3_000_000_000, performance.now(), fire);
      const armedBefore = setTimeoutSpy.mock.calls.length;
      await sleep(40);
      const armedDuring = setTimeoutSpy.mock.calls.length - armedBefore;
      deadline.cancel();
      expect(fire).not.toHaveBeenCalled();
      // The sleep itself arms one timer.
      expect(armedDuring).toBeLessThanOrEqual(2);
    } finally {
      setTimeoutSpy.mockRestore();
    }
  });
});
