import { describe, expect, it } from 'vitest';
import { OutputStore } from './output-store.js';

describe('OutputStore', () => {
  it('pages through a stored output', () => {
    const store = new OutputStore();
    const handle = store.put('big', 'abcdefghij');
    expect(store.read(handle, 0, 4)).toEqual({
      handle,
      text: 'abcd',
      offset: 0,
      nextOffset: 4,
      totalChars: 10,
    });
    expect(store.read(handle, 8, 4)).toEqual({ handle, text: 'ij', offset: 8, totalChars: 10 });
  });

  it('clamps offsets outside the text', () => {
    const store = new OutputStore();
    const handle = store.put('big', 'abc');
    expect(store.read(handle, -5, 2)).toMatchObject({ text: 'ab', offset: 0 });
    expect(store.read(handle, 99, 2)).toEqual({ handle, text: '', offset: 3, totalChars: 3 });
  });

  it('returns undefined for an unknown handle', () => {
    expect(new OutputStore().read('out_nope', 0, 10)).toBeUndefined();
  });

  it('gives each output its own handle', () => {
    const store = new OutputStore();
    expect(store.put('a', 'x')).not.toBe(store.put('a', 'x'));
  });

  it('evicts the oldest outputs once the capacity is exceeded', () => {
    const store = new OutputStore(10);
    const first = store.put('a', '123456');
    const second = store.put('a', '7890');
    const third = store.put('a', 'abcde');
    expect(store.read(first, 0, 10)).toBeUndefined();
    expect(store.read(second, 0, 10)?.text).toBe('7890');
    expect(store.read(third, 0, 10)?.text).toBe('abcde');
    expect(store.capacityChars).toBe(10);
  });
});
