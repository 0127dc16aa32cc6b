import { describe, expect, it } from 'vitest';
import type { JsonObjectSchema } from '../../core/json-schema.js';
import { SchemaIssues } from '../shared/schema-issues.js';
import { toOpenAISchema } from './openai-schema.js';

function strict(schema: Record<string, unknown>) {
  const issues = new SchemaIssues();
  const result = toOpenAISchema({ type: 'object', ...schema }, { strict: true }, issues);
  return { ...result, messages: issues.toWarnings('t', 'openai').map((warning) => warning.message) };
}

describe('toOpenAISchema in strict mode', () => {
  it('makes optional properties nullable in the form their schema allows', () => {
    const { parameters } = strict({
      properties: {
        name: { type: 'string' },
        kind: { enum: ['a', 'b'] },
        exact: { const: 1 },
        either: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        maybe: { type: ['string', 'null'] },
      },
    });
    expect(parameters.properties).toEqual({
      name: { type: ['string', 'null'] },
      kind: { enum: ['a', 'b', null] },
      exact: { anyOf: [{ const: 1 }, { type: 'null' }] },
      either: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
      maybe: { type: ['string', 'null'] },
    });
    expect(parameters.required).toEqual(['name', 'kind', 'exact', 'either', 'maybe']);
  });

  it('merges allOf, turns oneOf into anyOf and drops composition beside the root', () => {
    const {
      parameters,
      messages,
      strict: isStrict,
    } = strict({
      properties: {
        both: { allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { required: ['a'] }] },
        one: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      },
      required: ['both', 'one'],
      anyOf: [{ required: ['both'] }],
    });
    expect(isStrict).toBe(true);
    expect(parameters.anyOf).toBeUndefined();
    expect(parameters.properties?.both).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    });
    expect(parameters.properties?.one).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }] });
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^'anyOf' beside the root/),
        expect.stringMatching(/^'oneOf' became 'anyOf'/),
      ]),
    );
  });

  it.each([
    [
      'an open map',
      { properties: { headers: { type: 'object', additionalProperties: { type: 'string' } } } },
      /open object/,
    ],
    ['an any-value property', { properties: { value: {} } }, /accepts any value/],
    ['a tuple', { properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }] } } }, /tuple/],
    ['an array without items', { properties: { list: { type: 'array' } } }, /array without items/],
    ['an external $ref', { properties: { a: { $ref: 'https://example.com/a.json' } } }, /unresolvable \$ref/],
  ])('falls back to strict: false for %s, saying why', (_label, schema, reason) => {
    const result = strict(schema);
    expect(result.strict).toBe(false);
    expect(result.parameters).toEqual({ type: 'object', ...schema });
    expect(result.messages).toEqual([expect.stringMatching(reason)]);
    expect(result.messages[0]).toMatch(/exported with strict: false$/);
  });

  it('falls back for objects nested more than 10 levels deep', () => {
    let node: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 11; level++) node = { type: 'object', properties: { next: node }, required: ['next'] };
    expect(strict(node).strict).toBe(false);
    let shallow: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 9; level++)
      shallow = { type: 'object', properties: { next: shallow }, required: ['next'] };
    expect(strict(shallow).strict).toBe(true);
  });

  it('removes keywords and formats strict mode rejects, once per keyword', () => {
    const { parameters, messages } = strict({
      properties: {
        a: { type: 'string', minLength: 1, format: 'uri', 'x-internal': true },
        b: { type: 'string', minLength: 2, format: 'email' },
      },
      required: ['a', 'b'],
    });
    expect(parameters.properties).toEqual({ a: { type: 'string' }, b: { type: 'string', format: 'email' } });
    expect(messages).toEqual([
      "'minLength' is not supported in strict mode; removed (at /properties/a, /properties/b)",
      "'x-internal' is not supported in strict mode; removed (at /properties/a)",
      'Format "uri" is not supported in strict mode; removed (at /properties/a)',
    ]);
  });

  it('passes the schema through untouched without strict mode', () => {
    const issues = new SchemaIssues();
    const schema: JsonObjectSchema = { type: 'object', properties: { a: { type: 'string', minLength: 1 } } };
    expect(toOpenAISchema(schema, { strict: false }, issues)).toEqual({ parameters: schema, strict: false });
    expect(issues.list).toEqual([]);
  });
});

describe('toOpenAISchema with definitions that only point at each other', () => {
  it('falls back to strict: false instead of sending a $ref loop', () => {
    const issues = new SchemaIssues();
    const result = toOpenAISchema(
      {
        type: 'object',
        properties: { a: { $ref: '#/$defs/A' } },
        required: ['a'],
        $defs: { A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' } },
      },
      { strict: true },
      issues,
    );
    expect(result.strict).toBe(false);
    expect(issues.toWarnings('t', 'openai')[0]?.message).toMatch(/only a \$ref to itself/);
  });
});
