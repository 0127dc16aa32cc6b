import { describe, expect, it } from 'vitest';
import type { ValidationIssue } from '../core/validation-issue.js';
import { cachedValidatorCount, compileValidator, describeSchema, schemaProblems } from './compile-validator.js';
import { fieldMessage } from './validation-errors.js';

describe('compileValidator', () => {
  it('returns undefined for a valid value and applies defaults in place', () => {
    const validate = compileValidator({ type: 'object', properties: { limit: { type: 'integer', default: 10 } } });
    const value: Record<string, unknown> = {};
    expect(validate(value)).toBeUndefined();
    expect(value).toEqual({ limit: 10 });
  });

  it('returns one issue per problem with path, pointer, keyword, expectation and value', () => {
    const validate = compileValidator({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'array', items: { type: 'string' } } },
      required: ['a'],
    });
    expect(validate({ b: ['x', 2] })).toEqual([
      {
        path: 'a',
        pointer: '/a',
        keyword: 'required',
        expected: 'a number',
        message: "missing required argument 'a' (a number)",
      },
      {
        path: 'b[1]',
        pointer: '/b/1',
        keyword: 'type',
        expected: 'a string',
        received: 2,
        message: "'b[1]' must be a string, got number 2",
      },
    ]);
  });

  it('describes the whole value as the arguments', () => {
    expect(compileValidator({ type: 'object', properties: {} })(5)?.[0]?.message).toBe(
      'the arguments must be an object, got number 5',
    );
  });

  it('shortens long strings it quotes', () => {
    const issues = compileValidator({ type: 'object', properties: { n: { type: 'number' } } })({ n: 'x'.repeat(100) });
    expect(issues?.[0]?.message).toBe(`'n' must be a number, got string "${'x'.repeat(37)}..."`);
  });

  it('describes const, multipleOf, uniqueItems and anyOf', () => {
    const validate = compileValidator({
      type: 'object',
      properties: {
        kind: { const: 'file' },
        step: { type: 'number', multipleOf: 5 },
        ids: { type: 'array', uniqueItems: true },
        id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      },
    });
    expect(validate({ kind: 'dir', step: 3, ids: [1, 1], id: true })?.map((issue) => issue.message)).toEqual([
      `'kind' must be exactly "file", got string "dir"`,
      "'step' must be a multiple of 5, got number 3",
      "'ids' must be a list without duplicates (items 0 and 1 are equal), got a list of 2 items",
      "'id' must be a string, got boolean true",
      "'id' must be an integer, got boolean true",
      "'id' must be one of: a string; an integer, got boolean true",
    ]);
  });

  it('escapes property names with / and ~ in pointers', () => {
    const issues = compileValidator({ type: 'object', properties: { 'a/b': { type: 'string' } }, required: ['a/b'] })(
      {},
    );
    expect(issues?.[0]).toMatchObject({ path: 'a/b', pointer: '/a~1b' });
  });

  it('compiles a schema once and reuses the validator for an equal schema', () => {
    const first = compileValidator({ type: 'object', properties: { q: { type: 'string' } } });
    const second = compileValidator({ type: 'object', properties: { q: { type: 'string' } } });
    expect(second).toBe(first);
  });

  it('throws for a schema that cannot compile', () => {
    expect(() => compileValidator({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } })).toThrow();
  });
});

describe('schemaProblems', () => {
  it('finds nothing wrong with a valid schema', () => {
    expect(schemaProblems({ type: 'object', properties: { a: { type: 'string' } } })).toEqual([]);
  });

  it('names the place of a misspelt type', () => {
    const problems = schemaProblems({ type: 'object', properties: { a: { type: 'strnig' } } });
    expect(problems).toEqual([
      '\'properties.a.type\' must be one of "array", "boolean", "integer", "null", "number", "object", "string", got string "strnig"; did you mean "string"?',
    ]);
  });
});

describe('describeSchema', () => {
  it.each([
    [{ type: 'string' }, 'a string'],
    [{ type: 'integer' }, 'an integer'],
    [{ type: ['string', 'null'] }, 'a string or null'],
    [{ type: 'array', items: { type: 'string' } }, 'a list of strings'],
    [{ type: 'array', items: { type: 'number' } }, 'a list of numbers'],
    [{ type: 'array' }, 'a list'],
    [{ enum: ['c', 'f'] }, 'one of "c", "f"'],
    [{ const: 3 }, 'exactly 3'],
    [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, 'a string or a number'],
    [{ $ref: '#/$defs/Address' }, 'a Address'],
    [{}, 'any value'],
    [{ required: ['secret'] }, "an object with 'secret'"],
    [
      { oneOf: [{ required: ['token_env'] }, { required: ['name', 'secret'] }] },
      "an object with 'token_env' or an object with 'name' and 'secret'",
    ],
  ] as const)('describes %j as %s', (schema, words) => {
    expect(describeSchema(schema as never)).toBe(words);
  });

  it('describes the boolean schemas', () => {
    expect(describeSchema(true)).toBe('any value');
    expect(describeSchema(false)).toBe('nothing');
    expect(describeSchema(undefined)).toBe('any value');
  });
});

describe('numbers that are not finite', () => {
  it('refuses NaN and ±Infinity (what 1e309 in JSON becomes) where a number or an integer is expected', () => {
    const validate = compileValidator({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'integer' }, c: { type: ['number', 'null'] } },
    });
    expect(validate(JSON.parse('{"a":1e309}'))?.map((issue) => issue.message)).toEqual([
      "'a' must be a number (a finite one), got number Infinity",
    ]);
    expect(validate({ b: -Infinity, c: Number.NaN })?.map((issue) => issue.message)).toEqual([
      "'b' must be an integer (a finite one), got number -Infinity",
      "'c' must be a number or null (a finite one), got number NaN",
    ]);
    expect(validate({ a: 1.5, b: 2, c: null })).toBeUndefined();
  });
});

describe('the validator cache', () => {
  it('keeps at most 10 000 validators, and one handed out before it starts over keeps working', () => {
    const first = compileValidator({ type: 'object', properties: { kept: { type: 'integer' } } });
    for (let index = 0; index < 10_050; index++) {
      compileValidator({
        type: 'object',
        properties: { [`field_${index}`]: { type: 'string', maxLength: index + 1 } },
      });
      expect(cachedValidatorCount()).toBeLessThanOrEqual(10_000);
    }
    expect(first({ kept: 1 })).toBeUndefined();
    expect(first({ kept: 'x' })?.[0]?.keyword).toBe('type');
    const again = compileValidator({ type: 'object', properties: { kept: { type: 'integer' } } });
    expect(again({ kept: 'x' })?.[0]?.keyword).toBe('type');
  });
});

describe('fieldMessage', () => {
  const validate = compileValidator({
    type: 'object',
    properties: {
      name: { type: 'string' },
      size: { type: 'integer' },
      auth: { type: 'object', properties: { secret: { type: 'string' } }, additionalProperties: false },
      empty: { type: 'object', properties: {}, additionalProperties: false },
    },
    required: ['name'],
    additionalProperties: false,
  });
  const messageOf = (value: unknown) => fieldMessage(validate(value)?.[0] as ValidationIssue);

  it('speaks of fields where a tool call speaks of arguments, with the closest allowed name', () => {
    expect(messageOf({})).toBe("missing required field 'name' (a string)");
    expect(messageOf({ name: 'x', szie: 1 })).toBe(
      "unknown field 'szie' (did you mean 'size'?); allowed fields: name, size, auth, empty",
    );
    expect(messageOf({ name: 'x', colour: 1 })).toBe("unknown field 'colour'; allowed fields: name, size, auth, empty");
    expect(messageOf({ name: 'x', auth: { secrte: 'S' } })).toBe(
      "unknown field 'auth.secrte' (did you mean 'auth.secret'?); allowed fields of 'auth': secret",
    );
    expect(messageOf({ name: 'x', empty: { a: 1 } })).toBe("unknown field 'empty.a'; allowed fields of 'empty': none");
  });

  it('names a field sent beside a missing one that is close to its name', () => {
    const issueOf = (value: unknown) => validate(value)?.[0] as ValidationIssue;
    const misspelt = { nmae: 'x' };
    expect(fieldMessage(issueOf(misspelt), misspelt)).toBe(
      "missing required field 'name' (a string); 'nmae' was sent: did you mean 'name'?",
    );
    const unrelated = { colour: 'red' };
    expect(fieldMessage(issueOf(unrelated), unrelated)).toBe("missing required field 'name' (a string)");
    const nested = compileValidator({
      type: 'object',
      properties: { auth: { type: 'object', properties: { secret: { type: 'string' } }, required: ['secret'] } },
    });
    const body = { auth: { secert: 'S' } };
    expect(fieldMessage(nested(body)?.[0] as ValidationIssue, body)).toBe(
      "missing required field 'auth.secret' (a string); 'secert' was sent: did you mean 'secret'?",
    );
  });

  it('names the closest allowed value of an enum, for strings of three characters or more', () => {
    const validate = compileValidator({
      type: 'object',
      properties: {
        unit: { enum: ['celsius', 'fahrenheit', 'kelvin'] },
        size: { enum: ['s', 'm', 'l'] },
        mixed: { enum: [1, 'kelvin'] },
      },
    });
    expect(validate({ unit: 'Celsius' })?.[0]?.message).toBe(
      '\'unit\' must be one of "celsius", "fahrenheit", "kelvin", got string "Celsius"; did you mean "celsius"?',
    );
    expect(validate({ unit: 'rankine' })?.[0]?.message).toBe(
      '\'unit\' must be one of "celsius", "fahrenheit", "kelvin", got string "rankine"',
    );
    expect(validate({ size: 'x' })?.[0]?.message).toBe('\'size\' must be one of "s", "m", "l", got string "x"');
    expect(validate({ unit: 7 })?.[0]?.message).toBe(
      '\'unit\' must be one of "celsius", "fahrenheit", "kelvin", got number 7',
    );
    expect(validate({ mixed: 'kelvn' })?.[0]?.message).toBe(
      '\'mixed\' must be one of 1, "kelvin", got string "kelvn"; did you mean "kelvin"?',
    );
  });

  it('keeps every other message as the validator words it', () => {
    expect(messageOf({ name: 'x', size: 1.5 })).toBe("'size' must be an integer, got number 1.5");
  });
});
