import { describe, expect, it } from 'vitest';
import type { JsonObjectSchema } from '../../core/json-schema.js';
import { compileValidator } from '../../schema/compile-validator.js';
import { EXPORTER_CASES, strictParametersOf } from '../exporters.cases.js';
import { decodeStrictArguments } from './decode-strict-arguments.js';

const spec = (inputSchema: JsonObjectSchema) => ({ inputSchema });

describe('decodeStrictArguments round trip', () => {
  for (const testCase of EXPORTER_CASES) {
    const roundTrip = testCase.strictRoundTrip;
    if (roundTrip === undefined) continue;
    it(`turns strict-mode arguments for ${testCase.spec.name} back into arguments its real schema accepts`, () => {
      const strict = strictParametersOf(testCase.spec);
      expect(strict, 'the case exports as a strict tool').toBeDefined();
      expect(
        compileValidator(strict!)(structuredClone(roundTrip.sent)),
        'the strict schema accepts what was sent',
      ).toBeUndefined();
      const decoded = decodeStrictArguments(testCase.spec, roundTrip.sent);
      expect(decoded).toEqual(roundTrip.decoded);
      expect(compileValidator(testCase.spec.inputSchema)(structuredClone(decoded))).toBeUndefined();
      if (JSON.stringify(roundTrip.sent) !== JSON.stringify(roundTrip.decoded)) {
        expect(
          compileValidator(testCase.spec.inputSchema)(structuredClone(roundTrip.sent)),
          'the real schema rejects the nulls',
        ).toBeDefined();
      }
    });
  }
});

describe('decodeStrictArguments', () => {
  const schema: JsonObjectSchema = {
    type: 'object',
    properties: {
      query: { type: 'string' },
      limit: { type: 'integer' },
      note: { type: ['string', 'null'] },
      filter: {
        type: 'object',
        properties: { from: { type: 'string' }, tags: { type: 'array', items: { $ref: '#/$defs/Tag' } } },
      },
    },
    required: ['query'],
    $defs: {
      Tag: { type: 'object', properties: { name: { type: 'string' }, color: { type: 'string' } }, required: ['name'] },
    },
  };

  it('drops nulls sent for optional properties, at every depth and through $refs', () => {
    const sent = {
      query: 'x',
      limit: null,
      note: null,
      filter: {
        from: null,
        tags: [
          { name: 'a', color: null },
          { name: 'b', color: 'red' },
        ],
      },
    };
    expect(decodeStrictArguments(spec(schema), sent)).toEqual({
      query: 'x',
      note: null,
      filter: { tags: [{ name: 'a' }, { name: 'b', color: 'red' }] },
    });
  });

  it('keeps null for a required property, so validation reports it', () => {
    expect(decodeStrictArguments(spec(schema), { query: null })).toEqual({ query: null });
  });

  it('keeps null for an optional property whose schema accepts null', () => {
    expect(decodeStrictArguments(spec(schema), { query: 'x', note: null })).toEqual({ query: 'x', note: null });
  });

  it('parses arguments sent as JSON text', () => {
    expect(decodeStrictArguments(spec(schema), '{"query":"x","limit":null}')).toEqual({ query: 'x' });
  });

  it('returns text that is not JSON, and values that are not objects, unchanged', () => {
    expect(decodeStrictArguments(spec(schema), '{"query":')).toBe('{"query":');
    expect(decodeStrictArguments(spec(schema), 42)).toBe(42);
    expect(decodeStrictArguments(spec(schema), null)).toBeNull();
  });

  it('does not change the arguments it is given', () => {
    const sent = { query: 'x', limit: null, filter: { from: null } };
    const copy = structuredClone(sent);
    decodeStrictArguments(spec(schema), sent);
    expect(sent).toEqual(copy);
  });

  it('keeps keys the schema does not declare, even __proto__, as plain data', () => {
    const sent = JSON.parse('{"query":"x","__proto__":{"polluted":true},"extra":null}') as Record<string, unknown>;
    const decoded = decodeStrictArguments(spec(schema), sent) as Record<string, unknown>;
    expect(Object.keys(decoded)).toEqual(['query', '__proto__', 'extra']);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('decodes an object against the anyOf branch whose properties match its keys', () => {
    const union: JsonObjectSchema = {
      type: 'object',
      properties: {
        target: {
          anyOf: [
            {
              type: 'object',
              properties: { email: { type: 'string' }, name: { type: 'string' } },
              required: ['email'],
            },
            { type: 'object', properties: { phone: { type: 'string' }, ext: { type: 'string' } }, required: ['phone'] },
          ],
        },
      },
      required: ['target'],
    };
    expect(decodeStrictArguments(spec(union), { target: { phone: '1', ext: null } })).toEqual({
      target: { phone: '1' },
    });
    expect(decodeStrictArguments(spec(union), { target: { email: 'a@b', name: null } })).toEqual({
      target: { email: 'a@b' },
    });
  });

  it('follows allOf and recursive $refs', () => {
    const tree: JsonObjectSchema = {
      type: 'object',
      properties: { root: { allOf: [{ $ref: '#' }] }, label: { type: 'string' } },
    };
    expect(
      decodeStrictArguments(spec(tree), { label: null, root: { label: 'a', root: { label: null, root: null } } }),
    ).toEqual({
      root: { label: 'a', root: {} },
    });
  });

  it('decodes tuple items by position', () => {
    const tuple: JsonObjectSchema = {
      type: 'object',
      properties: {
        pair: {
          type: 'array',
          prefixItems: [{ type: 'object', properties: { a: { type: 'string' } } }],
          items: { type: 'object', properties: { b: { type: 'string' } } },
        },
      },
    };
    expect(
      decodeStrictArguments(spec(tuple), {
        pair: [
          { a: null, b: null },
          { a: null, b: null },
        ],
      }),
    ).toEqual({
      pair: [{ b: null }, { a: null }],
    });
  });
});
