import { describe, expect, it } from 'vitest';
import { defineTool } from '../core/define-tool.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { formatSchemaFinding, lintSchema, schemaCompileFinding, withoutHarmfulDefaults } from './schema-lint.js';

describe('lintSchema', () => {
  it('finds defaults that fail their schema or fill a required property', () => {
    expect(
      lintSchema({
        type: 'object',
        properties: {
          unit: { type: 'string', default: null },
          verbose: { type: 'boolean', default: 'false' },
          city: { type: 'string', default: 'Paris' },
          limit: { type: 'integer', minimum: 1, default: 10 },
          nested: { type: 'object', properties: { depth: { type: 'integer', default: 1.5 } } },
        },
        required: ['city'],
      }),
    ).toEqual([
      {
        pointer: '/properties/unit/default',
        message: 'default null fails its own schema (must be a string); it is never applied',
      },
      {
        pointer: '/properties/verbose/default',
        message: 'default "false" fails its own schema (must be a boolean); it is never applied',
      },
      {
        pointer: '/properties/city/default',
        message: 'default "Paris" of required property \'city\' is never applied: a required argument must be sent',
      },
      {
        pointer: '/properties/nested/properties/depth/default',
        message: 'default 1.5 fails its own schema (must be an integer); it is never applied',
      },
    ]);
  });

  it('checks a default against the $defs its property refers to', () => {
    const schema = {
      type: 'object',
      $defs: { Unit: { enum: ['c', 'f'] } },
      properties: { unit: { $ref: '#/$defs/Unit', default: 'k' }, other: { $ref: '#/$defs/Unit', default: 'c' } },
    };
    expect(lintSchema(schema)).toEqual([
      {
        pointer: '/properties/unit/default',
        message: 'default "k" fails its own schema (must be one of "c", "f"); it is never applied',
      },
    ]);
  });

  it('finds enum values and consts of the wrong type, and empty enums', () => {
    expect(
      lintSchema({
        type: 'object',
        properties: {
          flag: { type: 'boolean', enum: [true, 'false'] },
          count: { type: 'integer', enum: [1, 2.5] },
          kind: { type: 'string', const: 3 },
          none: { enum: [] },
        },
      }),
    ).toEqual([
      { pointer: '/properties/flag/enum/1', message: 'enum value "false" is not a boolean; no argument can match it' },
      { pointer: '/properties/count/enum/1', message: 'enum value 2.5 is not an integer; no argument can match it' },
      { pointer: '/properties/kind/const', message: 'const 3 is not a string; no value can match' },
      { pointer: '/properties/none/enum', message: 'enum is empty; no value can match' },
    ]);
  });

  it('finds required names that properties does not declare', () => {
    expect(lintSchema({ type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'b'] })).toEqual([
      { pointer: '/required/1', message: "required property 'b' is not declared in properties" },
    ]);
  });

  it('finds formats the validator does not check', () => {
    expect(
      lintSchema({
        type: 'object',
        properties: { when: { type: 'string', format: 'date-time' }, phone: { type: 'string', format: 'phone' } },
      }),
    ).toEqual([{ pointer: '/properties/phone/format', message: "unknown format 'phone' is never checked" }]);
  });

  it('finds bounds no value can meet and allOf types with nothing in common', () => {
    expect(
      lintSchema({
        type: 'object',
        properties: {
          n: { type: 'integer', minimum: 5, maximum: 1 },
          x: { type: 'number', exclusiveMinimum: 2, maximum: 2 },
          s: { type: 'string', minLength: 3, maxLength: 2 },
          list: { type: 'array', minItems: 4, maxItems: 1 },
          both: { allOf: [{ type: 'string' }, { type: ['integer', 'null'] }] },
          fine: { allOf: [{ type: 'number' }, { type: 'integer' }], minimum: 1, maximum: 1 },
        },
      }),
    ).toEqual([
      { pointer: '/properties/n', message: 'minimum 5 is above maximum 1; no value can match' },
      { pointer: '/properties/x', message: 'exclusiveMinimum 2 is above maximum 2; no value can match' },
      { pointer: '/properties/s', message: 'minLength 3 is above maxLength 2; no value can match' },
      { pointer: '/properties/list', message: 'minItems 4 is above maxItems 1; no value can match' },
      {
        pointer: '/properties/both/allOf',
        message: 'the types of allOf have nothing in common; no value can match',
      },
    ]);
  });

  it('finds nothing in a sound schema, and nothing in what is not a schema', () => {
    expect(
      lintSchema({
        type: 'object',
        properties: {
          q: { type: 'string', enum: ['a', 'b'], default: 'a' },
          n: { type: ['integer', 'null'], default: null },
        },
      }),
    ).toEqual([]);
    expect(lintSchema(null)).toEqual([]);
    expect(lintSchema(true)).toEqual([]);
  });

  it('formats a finding as one line with the tool and the pointer', () => {
    expect(
      formatSchemaFinding('get_weather', {
        pointer: '/properties/unit/enum',
        message: 'enum is empty; no value can match',
      }),
    ).toBe('get_weather: enum is empty; no value can match (at /properties/unit/enum)');
    expect(formatSchemaFinding('t', { pointer: '', message: 'minimum 2 is above maximum 1; no value can match' })).toBe(
      't: minimum 2 is above maximum 1; no value can match (at /)',
    );
  });
});

describe('withoutHarmfulDefaults', () => {
  it('removes failing defaults and required defaults, keeps the rest, and never mutates', () => {
    const schema = {
      type: 'object' as const,
      properties: {
        unit: { type: 'string' as const, default: null },
        city: { type: 'string' as const, default: 'Paris' },
        limit: { type: 'integer' as const, default: 10 },
        inner: { type: 'object' as const, properties: { on: { type: 'boolean' as const, default: 'yes' } } },
      },
      required: ['city'],
    };
    const before = JSON.stringify(schema);
    expect(withoutHarmfulDefaults(schema)).toEqual({
      type: 'object',
      properties: {
        unit: { type: 'string' },
        city: { type: 'string' },
        limit: { type: 'integer', default: 10 },
        inner: { type: 'object', properties: { on: { type: 'boolean' } } },
      },
      required: ['city'],
    });
    expect(JSON.stringify(schema)).toBe(before);
  });

  it('returns the schema itself when every default is safe', () => {
    const schema = { type: 'object' as const, properties: { limit: { type: 'integer' as const, default: 10 } } };
    expect(withoutHarmfulDefaults(schema)).toBe(schema);
  });
});

describe('schemaCompileFinding', () => {
  it('names a schema no validator can be compiled from, and registry.check() reports it', () => {
    const broken = { type: 'object' as const, properties: { code: { type: 'string' as const, pattern: '(a+)+$[' } } };
    expect(schemaCompileFinding(broken)).toEqual({
      pointer: '',
      message:
        'the input schema cannot be compiled (Invalid regular expression: /(a+)+$[/u: Unterminated character class); every call fails with EXECUTION_FAILED',
    });
    expect(schemaCompileFinding({ type: 'object', properties: { a: { $ref: '#/$defs/a' } } })?.message).toBe(
      "the input schema cannot be compiled (can't resolve reference #/$defs/a from id #); every call fails with EXECUTION_FAILED",
    );
    expect(schemaCompileFinding({ type: 'object', properties: { a: { type: 'string', pattern: '^(?=a)' } } })).toBe(
      undefined,
    );
    const registry = new ToolRegistry();
    registry.register(
      defineTool({ name: 'match_code', description: 'Match a code.', inputSchema: broken, handler: () => 'x' }),
    );
    expect(registry.check().findings).toEqual([
      'match_code: the input schema cannot be compiled (Invalid regular expression: /(a+)+$[/u: Unterminated character class); every call fails with EXECUTION_FAILED (at /)',
    ]);
  });
});
