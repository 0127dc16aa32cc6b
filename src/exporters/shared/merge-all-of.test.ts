import { describe, expect, it } from 'vitest';
import { mergeAllOf } from './merge-all-of.js';

describe('mergeAllOf', () => {
  it('unites properties and required lists', () => {
    expect(
      mergeAllOf({
        description: 'Both',
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] },
        ],
      }),
    ).toEqual({
      description: 'Both',
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
  });

  it('returns the node itself without allOf', () => {
    const node = { type: 'string' };
    expect(mergeAllOf(node)).toBe(node);
  });

  it('refuses conflicting keywords, $refs and false branches', () => {
    expect(mergeAllOf({ allOf: [{ type: 'string' }, { type: 'number' }] })).toBeUndefined();
    expect(mergeAllOf({ allOf: [{ $ref: '#/$defs/A' }] })).toBeUndefined();
    expect(mergeAllOf({ allOf: [false] })).toBeUndefined();
    expect(
      mergeAllOf({ allOf: [{ properties: { a: { type: 'string' } } }, { properties: { a: { type: 'number' } } }] }),
    ).toBeUndefined();
  });

  it('keeps the first description when branches disagree on it', () => {
    expect(
      mergeAllOf({
        allOf: [
          { description: 'one', minimum: 1 },
          { description: 'two', minimum: 1 },
        ],
      }),
    ).toEqual({
      description: 'one',
      minimum: 1,
    });
  });
});
