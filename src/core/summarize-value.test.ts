import { describe, expect, it } from 'vitest';
import { summarizeValue } from './summarize-value.js';

describe('summarizeValue', () => {
  it('keeps small JSON data as it is', () => {
    const value = { city: 'Oslo', days: [1, 2, 3], metric: true, note: null };
    expect(summarizeValue(value)).toEqual(value);
  });

  it('describes what lies deeper than three levels', () => {
    expect(summarizeValue([[[[1]]]])).toEqual([[['[a list of 1 item]']]]);
    expect(summarizeValue({ a: { b: { c: { d: 1, e: 2 } } } })).toEqual({ a: { b: { c: '[an object with 2 keys]' } } });
  });

  it('keeps the first ten entries of a list or an object and counts the rest', () => {
    expect(summarizeValue(Array.from({ length: 12 }, (_, index) => index))).toEqual([
      0,
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      9,
      '[and 2 more items]',
    ]);
    const wide = Object.fromEntries(Array.from({ length: 11 }, (_, index) => [`k${index}`, index]));
    expect(summarizeValue(wide)).toEqual({
      ...Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`k${index}`, index])),
      '...': '[and 1 more key]',
    });
  });

  it('cuts strings at 200 characters and says how long they were', () => {
    expect(summarizeValue('x'.repeat(500))).toBe(`${'x'.repeat(200)}... [500 characters]`);
    expect(summarizeValue('y'.repeat(200))).toBe('y'.repeat(200));
  });

  it('describes what is not JSON data', () => {
    expect(summarizeValue([undefined, Number.NaN, 10n, () => 1, new Date(0), Symbol('s')])).toEqual([
      '[nothing]',
      '[NaN]',
      '[a bigint]',
      '[a function]',
      '[an object that is not plain data]',
      '[a symbol]',
    ]);
  });

  it('keeps __proto__ as an ordinary key and survives a getter that throws', () => {
    const value = JSON.parse('{"__proto__": {"polluted": 1}}') as Record<string, unknown>;
    Object.defineProperty(value, 'broken', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    const summary = summarizeValue(value) as Record<string, unknown>;
    expect(Object.hasOwn(summary, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(summary)).toBe(Object.prototype);
    expect(summary.broken).toBe('[a value that cannot be read]');
  });

  it('stays small for a value nested 100 000 levels deep', () => {
    let value: unknown = 1;
    for (let level = 0; level < 100_000; level++) value = [value];
    expect(JSON.stringify(summarizeValue(value))).toBe('[[["[a list of 1 item]"]]]');
  });
});
