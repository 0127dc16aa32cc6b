import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  createToolSpec,
  defineTool,
  describeValue,
  isToolSpec,
  TASK_SUPPORT,
  TOOL_NAME_PATTERN,
} from './define-tool.js';
import { ToolRegistrationError } from './errors/tool-registration-error.js';
import type { ToolContext, ToolSpec } from './tool-spec.js';

const noop = () => null;

function definitionError(options: Record<string, unknown>): ToolRegistrationError {
  try {
    createToolSpec({ description: 'A tool.', handler: noop, ...options });
  } catch (error) {
    if (ToolRegistrationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the definition to be refused');
}

describe('defineTool', () => {
  it('returns a frozen spec with defaults for the optional fields', () => {
    const spec = defineTool({ name: 'ping', description: 'Answer pong.', handler: () => 'pong' });
    expect(Object.isFrozen(spec)).toBe(true);
    expect(Object.isFrozen(spec.inputSchema)).toBe(true);
    expect(isToolSpec(spec)).toBe(true);
    expect(spec).toMatchObject({
      name: 'ping',
      description: 'Answer pong.',
      category: 'general',
      tags: [],
      inputSchema: { type: 'object', properties: {} },
      annotations: {},
      requires: {},
      metadata: {},
    });
  });

  it('copies the input schema so later edits to the caller object do not reach the spec', () => {
    const inputSchema = { type: 'object' as const, properties: { a: { type: 'number' as const } } };
    const spec = defineTool({ name: 'copy', description: 'Copy.', inputSchema, handler: noop });
    inputSchema.properties.a.type = 'string' as never;
    expect(spec.inputSchema.properties.a).toEqual({ type: 'number' });
  });

  it('derives the JSON Schema from a zod input and keeps the zod schema for call-time validation', () => {
    const input = z.object({
      city: z.string().describe('City name'),
      days: z.number().int().min(1).default(3),
    });
    const spec = defineTool({ name: 'forecast', description: 'Weather forecast.', input, handler: noop });
    expect(spec.input).toBe(input);
    expect(spec.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name' },
        days: { type: 'integer', minimum: 1, default: 3 },
      },
      required: ['city'],
    });
    expect(spec.inputSchema).not.toHaveProperty('$schema');
  });

  it('infers the handler arguments from a zod input, transforms included', () => {
    const spec = defineTool({
      name: 'typed',
      description: 'Typed arguments.',
      input: z.object({
        a: z.number(),
        tags: z.array(z.string()).optional(),
        size: z.string().transform((text) => text.length),
      }),
      handler: (args, context) => {
        expectTypeOf(args.a).toEqualTypeOf<number>();
        expectTypeOf(args.tags).toEqualTypeOf<string[] | undefined>();
        expectTypeOf(args.size).toEqualTypeOf<number>();
        expectTypeOf(context).toEqualTypeOf<ToolContext>();
        return args.a + args.size;
      },
    });
    expectTypeOf(spec).toEqualTypeOf<ToolSpec<{ a: number; tags?: string[] | undefined; size: number }>>();
    expectTypeOf(spec.handler).parameter(0).toEqualTypeOf<{ a: number; tags?: string[] | undefined; size: number }>();
  });

  it('types the arguments of a JSON Schema tool from its type parameter', () => {
    const spec = defineTool<{ q: string }>({
      name: 'search',
      description: 'Search.',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      handler: ({ q }) => q.length,
    });
    expectTypeOf(spec.handler).parameter(0).toEqualTypeOf<{ q: string }>();
    // A typed spec still fits where any spec is expected.
    expectTypeOf(spec).toExtend<ToolSpec<{ q: string }>>();
  });

  it('derives outputSchema from a zod output', () => {
    const spec = defineTool({
      name: 'count',
      description: 'Count.',
      output: z.object({ n: z.number() }),
      handler: () => ({ n: 1 }),
    });
    expect(spec.outputSchema).toMatchObject({
      type: 'object',
      properties: { n: { type: 'number' } },
      required: ['n'],
    });
  });
});

describe('defineTool validation', () => {
  it('refuses an uppercase name, quoting it and the rule', () => {
    const error = definitionError({ name: 'ReadFile' });
    expect(error.code).toBe('INVALID_DEFINITION');
    expect(error.field).toBe('name');
    expect(error.message).toBe(
      'Tool name "ReadFile" is invalid: use 1-64 characters of lowercase letters, digits and underscores, starting with a letter (^[a-z][a-z0-9_]{0,63}$).',
    );
  });

  it('refuses a name of 65 characters and accepts one of 64', () => {
    const long = `a${'b'.repeat(64)}`;
    expect(long).toHaveLength(65);
    expect(definitionError({ name: long }).message).toBe(
      `Tool name "${long.slice(0, 57)}..." is invalid: use 1-64 characters of lowercase letters, digits and underscores, starting with a letter (^[a-z][a-z0-9_]{0,63}$).`,
    );
    expect(createToolSpec({ name: long.slice(0, 64), description: 'Long.', handler: noop }).name).toHaveLength(64);
  });

  it.each([
    ['', '""'],
    ['1tool', '"1tool"'],
    ['_private', '"_private"'],
    ['read-file', '"read-file"'],
    ['read file', '"read file"'],
    ['ünïcode', '"ünïcode"'],
  ])('refuses the name %j', (name, shown) => {
    expect(definitionError({ name }).message).toMatch(
      new RegExp(`^Tool name ${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is invalid`),
    );
  });

  it('refuses a missing name', () => {
    expect(definitionError({}).message).toBe(
      'Tool name nothing is invalid: use 1-64 characters of lowercase letters, digits and underscores, starting with a letter (^[a-z][a-z0-9_]{0,63}$).',
    );
  });

  it('refuses an empty or blank description', () => {
    expect(definitionError({ name: 'x', description: '' }).message).toBe(
      `Tool 'x' needs a non-empty description, got "".`,
    );
    expect(definitionError({ name: 'x', description: '   ' }).message).toBe(
      `Tool 'x' needs a non-empty description, got "   ".`,
    );
    expect(definitionError({ name: 'x', description: undefined }).message).toBe(
      `Tool 'x' needs a non-empty description, got nothing.`,
    );
  });

  it('refuses a handler that is not a function', () => {
    expect(definitionError({ name: 'x', handler: 'module#export' }).message).toBe(
      `Tool 'x' needs a handler function, got "module#export".`,
    );
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses timeoutMs %s', (timeoutMs) => {
    const error = definitionError({ name: 'x', timeoutMs });
    expect(error.field).toBe('timeoutMs');
    expect(error.message).toBe(`Tool 'x': timeoutMs must be a number greater than 0, got ${timeoutMs}.`);
  });

  it('refuses a maxTotalMs that is not positive', () => {
    expect(definitionError({ name: 'x', maxTotalMs: 0 }).message).toBe(
      `Tool 'x': maxTotalMs must be a number greater than 0, got 0.`,
    );
  });

  it('refuses a non-integer maxOutputChars or maxConcurrency', () => {
    expect(definitionError({ name: 'x', maxOutputChars: 1.5 }).message).toBe(
      `Tool 'x': maxOutputChars must be a positive integer, got 1.5.`,
    );
    expect(definitionError({ name: 'x', maxConcurrency: 0 }).message).toBe(
      `Tool 'x': maxConcurrency must be a positive integer, got 0.`,
    );
  });

  it('refuses an input schema that is not an object', () => {
    expect(definitionError({ name: 'x', inputSchema: 'string' }).message).toBe(
      `Tool 'x': inputSchema must be a JSON Schema object, got "string".`,
    );
    expect(definitionError({ name: 'x', inputSchema: [] }).message).toBe(
      `Tool 'x': inputSchema must be a JSON Schema object, got an array.`,
    );
  });

  it('refuses an input schema whose type is not object', () => {
    const error = definitionError({ name: 'x', inputSchema: { type: 'array', items: {} } });
    expect(error.field).toBe('inputSchema.type');
    expect(error.message).toBe(`Tool 'x': inputSchema must have type "object", got "array".`);
  });

  it('refuses properties that are not an object and required that is not a list of names', () => {
    expect(definitionError({ name: 'x', inputSchema: { type: 'object', properties: [] } }).message).toBe(
      `Tool 'x': inputSchema.properties must be an object, got an array.`,
    );
    expect(definitionError({ name: 'x', inputSchema: { type: 'object', properties: {}, required: [1] } }).message).toBe(
      `Tool 'x': inputSchema.required must be a list of property names, got an array.`,
    );
  });

  it('refuses a zod input that is not an object schema', () => {
    expect(definitionError({ name: 'x', input: z.string() }).message).toBe(
      `Tool 'x': input must have type "object", got "string".`,
    );
  });

  it('refuses an input that is not a Standard Schema', () => {
    expect(definitionError({ name: 'x', input: { parse: noop } }).message).toBe(
      `Tool 'x': input must be a zod or other Standard Schema, got an object.`,
    );
  });

  it('refuses an extraArgs value other than drop or reject', () => {
    expect(definitionError({ name: 'x', extraArgs: 'ignore' }).message).toBe(
      `Tool 'x': extraArgs must be 'drop' or 'reject', got "ignore".`,
    );
  });

  it('keeps execution.taskSupport, frozen, and refuses any other shape naming the field', () => {
    const spec = defineTool({ name: 'x', description: 'X.', execution: { taskSupport: 'required' }, handler: noop });
    expect(spec.execution).toEqual({ taskSupport: 'required' });
    expect(Object.isFrozen(spec.execution)).toBe(true);
    expect(defineTool({ name: 'y', description: 'Y.', handler: noop }).execution).toBeUndefined();
    expect(TASK_SUPPORT).toEqual(['forbidden', 'optional', 'required']);
    const cases: Array<[unknown, string, string]> = [
      [
        { taskSupport: 'sometimes' },
        'execution.taskSupport',
        `Tool 'x': execution.taskSupport must be 'forbidden', 'optional' or 'required', got "sometimes".`,
      ],
      [
        { taskSupport: true },
        'execution.taskSupport',
        `Tool 'x': execution.taskSupport must be 'forbidden', 'optional' or 'required', got true.`,
      ],
      [
        { task_support: 'optional' },
        'execution.task_support',
        `Tool 'x': execution has no field 'task_support'; the one field is taskSupport.`,
      ],
      [
        'optional',
        'execution',
        `Tool 'x': execution must be an object such as { taskSupport: 'optional' }, got "optional".`,
      ],
    ];
    for (const [execution, field, message] of cases) {
      const error = definitionError({ name: 'x', execution });
      expect([error.field, error.message]).toEqual([field, message]);
    }
  });

  it('refuses a requires.env entry that is not a variable name', () => {
    expect(definitionError({ name: 'x', requires: { env: ['API KEY'] } }).message).toBe(
      `Tool 'x': requires.env[0] must name an environment variable, got "API KEY".`,
    );
  });

  it('accepts requires.env entries written as bare names', () => {
    const spec = createToolSpec({
      name: 'x',
      description: 'X.',
      handler: noop,
      requires: { env: ['API_KEY'] },
    });
    expect(spec.requires).toEqual({ env: [{ name: 'API_KEY' }] });
  });

  it('refuses a blank cli keyword but accepts null', () => {
    expect(definitionError({ name: 'x', cli: ' ' }).message).toBe(
      `Tool 'x': cli must be a command keyword or null, got " ".`,
    );
    expect(createToolSpec({ name: 'x', description: 'X.', handler: noop, cli: null }).cli).toBeNull();
  });

  it('refuses a tool definition that is not an object', () => {
    expect(() => createToolSpec('tool')).toThrow('A tool definition must be an object, got "tool".');
  });

  it('exports the name pattern of SPEC §3.1', () => {
    expect(TOOL_NAME_PATTERN.source).toBe('^[a-z][a-z0-9_]{0,63}$');
  });
});

describe('describeValue', () => {
  it('quotes strings and cuts long ones', () => {
    expect(describeValue('abc')).toBe('"abc"');
    expect(describeValue('x'.repeat(100))).toBe(`"${'x'.repeat(57)}..."`);
  });

  it('names other kinds of values', () => {
    expect(describeValue(undefined)).toBe('nothing');
    expect(describeValue(null)).toBe('null');
    expect(describeValue(3)).toBe('3');
    expect(describeValue(10n)).toBe('10');
    expect(describeValue([1, 2])).toBe('an array');
    expect(describeValue({})).toBe('an object');
    expect(describeValue(noop)).toBe('a function');
  });
});
