import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkJsonText,
  checkJsonValue,
  describeJsonLimitBreach,
  INPUT_LIMITS,
  type JsonLimits,
} from './input-limits.js';

const SMALL: JsonLimits = { depth: 3, stringChars: 5, arrayItems: 3, objectKeys: 2 };

describe('checkJsonText', () => {
  it('passes JSON within every limit', () => {
    expect(checkJsonText('{"a": [1, "xy", {"b": null}], "c": true}')).toBeUndefined();
    expect(checkJsonText('"just a string"')).toBeUndefined();
    expect(checkJsonText('[]')).toBeUndefined();
  });

  it('counts the outermost container as the first level', () => {
    expect(checkJsonText('[[[1]]]', SMALL)).toBeUndefined();
    expect(checkJsonText('[[[[1]]]]', SMALL)).toEqual({ limit: 'depth', max: 3, path: '[0][0][0]' });
    expect(checkJsonText('{"a": {"b": {"c": {}}}}', SMALL)).toEqual({ limit: 'depth', max: 3, path: 'a.b.c' });
  });

  it('shortens a path past eight steps', () => {
    const text = `{"arguments": {"expression": ${'['.repeat(6_000)}1${']'.repeat(6_000)}}}`;
    expect(checkJsonText(text)).toEqual({
      limit: 'depth',
      max: 256,
      path: 'arguments.expression[0][0][0][0][0][0]…',
    });
  });

  it('measures strings decoded, keys included', () => {
    expect(checkJsonText('["\\u0041\\u0042\\u0043\\u0044\\u0045"]', SMALL)).toBeUndefined();
    expect(checkJsonText('{"a": ["x", "abcdef"]}', SMALL)).toEqual({ limit: 'stringChars', max: 5, path: 'a[1]' });
    expect(checkJsonText('{"a": "abcdef"}', SMALL)).toEqual({ limit: 'stringChars', max: 5, path: 'a' });
    expect(checkJsonText('{"abcdef": 1}', SMALL)).toEqual({ limit: 'stringChars', max: 5, path: '' });
  });

  it('counts list items of every kind and object properties', () => {
    expect(checkJsonText('[1, "a", [], {}]', SMALL)).toEqual({ limit: 'arrayItems', max: 3, path: '' });
    expect(checkJsonText('{"x": [true, false, null, 1e3]}', SMALL)).toEqual({ limit: 'arrayItems', max: 3, path: 'x' });
    expect(checkJsonText('{"a": 1, "b": 2, "c": 3}', SMALL)).toEqual({ limit: 'objectKeys', max: 2, path: '' });
  });

  it('refuses __proto__ anywhere and prototype inside constructor, but not a plain constructor key', () => {
    expect(checkJsonText('{"a": [{"__proto__": {}}]}')).toEqual({
      limit: 'refusedKey',
      key: '__proto__',
      path: 'a[0]',
    });
    expect(checkJsonText('{"\\u005f_proto__": 1}')).toEqual({ limit: 'refusedKey', key: '__proto__', path: '' });
    expect(checkJsonText('{"constructor": {"prototype": {"x": 1}}}')).toEqual({
      limit: 'refusedKey',
      key: 'constructor.prototype',
      path: 'constructor',
    });
    expect(checkJsonText('{"constructor": "a", "prototype": 1}')).toBeUndefined();
  });

  it('refuses a key an object has twice, also when written with escapes', () => {
    expect(checkJsonText('{"a": {"b": 1, "b": 2}}')).toEqual({ limit: 'duplicateKey', key: 'b', path: 'a' });
    expect(checkJsonText('{"b": 1, "\\u0062": 2}')).toEqual({ limit: 'duplicateKey', key: 'b', path: '' });
    expect(checkJsonText('[{"b": 1}, {"b": 2}]')).toBeUndefined();
  });

  it('is not fooled by brackets, quotes and commas inside strings', () => {
    expect(
      checkJsonText('{"a": "[[[[[[", "b": "\\"{{{{", "c": ",,,"}', { ...SMALL, stringChars: 100, objectKeys: 3 }),
    ).toBeUndefined();
  });

  it('finds where each string ends whatever quotes and backslashes it holds', () => {
    // A string the scan ended too early or too late would hide the key after it, or make one up.
    const awkward = fc.string({
      unit: fc.constantFrom('"', '\\', 'a', '\u00e9', '\n', '{', '}', ',', ':'),
      maxLength: 12,
    });
    fc.assert(
      fc.property(awkward, awkward, (key, value) => {
        const member = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
        if (key === '__proto__') return;
        expect(checkJsonText(`{${member}}`, { ...INPUT_LIMITS, objectKeys: 1 })).toBeUndefined();
        expect(checkJsonText(`{${member},${member}}`)).toEqual({ limit: 'duplicateKey', key, path: '' });
        expect(
          checkJsonText(`[${JSON.stringify(value)},${JSON.stringify(value)}]`, { ...INPUT_LIMITS, arrayItems: 1 }),
        ).toEqual({
          limit: 'arrayItems',
          max: 1,
          path: '',
        });
      }),
      { numRuns: 500 },
    );
    // A string that ends in an escaped backslash, and one holding an escaped quote.
    expect(checkJsonText(String.raw`{"a\\": 1, "a\\": 2}`)).toEqual({ limit: 'duplicateKey', key: 'a\\', path: '' });
    expect(checkJsonText(String.raw`{"a\"": 1}`)).toBeUndefined();
  });

  it('agrees with JSON.parse on every value fast-check makes (no breach within default limits)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value);
        if (text === undefined || text.includes('"__proto__"')) return;
        expect(checkJsonText(text)).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});

describe('checkJsonValue', () => {
  it('applies the same limits to parsed values', () => {
    expect(checkJsonValue({ a: [[[1]]] }, SMALL)).toEqual({ limit: 'depth', max: 3, path: 'a[0][0]' });
    expect(checkJsonValue({ a: 'abcdef' }, SMALL)).toEqual({ limit: 'stringChars', max: 5, path: 'a' });
    expect(checkJsonValue([1, 2, 3, 4], SMALL)).toEqual({ limit: 'arrayItems', max: 3, path: '' });
    expect(checkJsonValue({ a: 1, b: 2, c: 3 }, SMALL)).toEqual({ limit: 'objectKeys', max: 2, path: '' });
    expect(checkJsonValue(JSON.parse('{"x": {"__proto__": 1}}'))).toEqual({
      limit: 'refusedKey',
      key: '__proto__',
      path: 'x',
    });
  });

  it('stops at the depth limit on a cycle instead of walking it forever', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.a = cyclic;
    cyclic.b = cyclic;
    expect(checkJsonValue(cyclic)).toMatchObject({ limit: 'depth', max: INPUT_LIMITS.depth });
  });
});

describe('describeJsonLimitBreach', () => {
  it('names the limit and where it was broken', () => {
    expect(describeJsonLimitBreach('The request body', { limit: 'depth', max: 256, path: 'arguments.a' })).toBe(
      "The request body is nested more than 256 levels deep at 'arguments.a' (limit: depth 256).",
    );
    expect(describeJsonLimitBreach('The request body', { limit: 'duplicateKey', key: 'tool_id', path: '' })).toBe(
      "The request body has the key 'tool_id' twice; send each key once.",
    );
    expect(describeJsonLimitBreach('config', { limit: 'refusedKey', key: '__proto__', path: 'a' })).toBe(
      "config has the key '__proto__' at 'a', which is refused: it could change the prototype of an object it is copied into.",
    );
  });
});
