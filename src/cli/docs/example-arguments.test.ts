import { describe, expect, it } from 'vitest';
import { exampleArguments } from './example-arguments.js';

describe('exampleArguments', () => {
  it('fills the required properties with a placeholder of the right type', () => {
    expect(
      exampleArguments({
        type: 'object',
        properties: {
          query: { type: 'string' },
          limit: { type: 'integer', minimum: 3 },
          ratio: { type: 'number' },
          exact: { type: 'boolean' },
          tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
          skipped: { type: 'string' },
        },
        required: ['query', 'limit', 'ratio', 'exact', 'tags'],
      }),
    ).toEqual({ query: '<query>', limit: 3, ratio: 1, exact: true, tags: ['<tags>', '<tags>'] });
  });

  it("prefers the schema's examples, default, const and enum", () => {
    expect(
      exampleArguments({
        type: 'object',
        properties: {
          a: { type: 'string', examples: ['from examples'], default: 'from default' },
          b: { type: 'integer', default: 7 },
          c: { const: 'fixed' },
          d: { enum: ['asc', 'desc'] },
        },
        required: ['a', 'b', 'c', 'd'],
      }),
    ).toEqual({ a: 'from examples', b: 7, c: 'fixed', d: 'asc' });
  });

  it('shows the first property when none is required, and nothing for an empty schema', () => {
    expect(
      exampleArguments({ type: 'object', properties: { path: { type: 'string' }, deep: { type: 'boolean' } } }),
    ).toEqual({
      path: '<path>',
    });
    expect(exampleArguments({ type: 'object', properties: {} })).toEqual({});
  });

  it('uses formats, nullable types, nested objects and local $refs', () => {
    expect(
      exampleArguments({
        type: 'object',
        $defs: { Address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
        properties: {
          url: { type: 'string', format: 'uri' },
          when: { type: ['string', 'null'], format: 'date' },
          home: { $ref: '#/$defs/Address' },
          either: { anyOf: [{ type: 'null' }, { type: 'integer', maximum: 0 }] },
        },
        required: ['url', 'when', 'home', 'either'],
      }),
    ).toEqual({ url: 'https://example.com', when: '2025-01-31', home: { city: '<city>' }, either: 0 });
  });

  it('stops recursive schemas with null', () => {
    const args = exampleArguments({
      type: 'object',
      $defs: { Node: { type: 'object', properties: { child: { $ref: '#/$defs/Node' } }, required: ['child'] } },
      properties: { root: { $ref: '#/$defs/Node' } },
      required: ['root'],
    });
    expect(JSON.stringify(args)).toMatch(/null/);
  });

  it('keeps a property called __proto__ as data', () => {
    const args = exampleArguments({
      type: 'object',
      properties: { ['__proto__']: { type: 'string' } },
      required: ['__proto__'],
    });
    expect(Object.hasOwn(args, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
  });
});
