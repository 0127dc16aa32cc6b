import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from '../registry/tool-registry.js';
import { defineTool } from './define-tool.js';
import { ERROR_CODES } from './errors/error-code.js';
import { ToolResult } from './tool-result.js';

const RUNS = Number(process.env.TOOLSHED_FUZZ_RUNS ?? 10_000);
// About half a millisecond per run; `npm run fuzz` runs 100 000.
const TIMEOUT_MS = Math.max(30_000, RUNS * 3);

const STATUSES = new Set(['success', 'error', 'timeout', 'cancelled', 'pending_approval']);
const CODES = new Set<string>(ERROR_CODES);
const PROTOTYPE_KEYS = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  '__defineGetter__',
  'then',
];

/** A registry with one tool of every kind the dispatcher treats differently. */
function createRegistry(withHooks: boolean): ToolRegistry {
  const registry = new ToolRegistry({
    env: {},
    hooks: withHooks
      ? [
          {
            name: 'flaky',
            before: (call) => {
              if (typeof call.args === 'string' && call.args.length % 2 === 0) throw new Error('before failed');
            },
            after: async (_call, result) => {
              if (result.status === 'error') throw new Error('after failed');
            },
          },
        ]
      : [],
  });
  registry.on('hook-error', () => {});
  registry.register(
    defineTool<{ a: number; b: number }>({
      name: 'add',
      description: 'Add two numbers (sync).',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      handler: ({ a, b }) => a + b,
    }),
  );
  registry.register(
    defineTool({
      name: 'echo',
      description: 'Echo the arguments (async, nested defaults).',
      inputSchema: {
        type: 'object',
        properties: {
          text: { type: 'string', default: '' },
          options: { type: 'object', properties: { depth: { type: 'integer', default: 1 } }, default: {} },
          value: {},
        },
      },
      handler: async (args) => args,
    }),
  );
  registry.register(
    defineTool({
      name: 'zod_tool',
      description: 'Zod input with refinement and transform.',
      input: z
        .object({
          n: z.number().int().min(0),
          tags: z.array(z.string()).default([]),
          text: z
            .string()
            .transform((text) => text.length)
            .optional(),
        })
        .refine((value) => value.n < 1_000_000, { message: 'n is too large' }),
      handler: (args) => args,
    }),
  );
  registry.register(
    defineTool({
      name: 'thrower',
      description: 'Throws in many ways.',
      inputSchema: { type: 'object', properties: { kind: {} } },
      handler: async (args) => {
        const kind = args.kind;
        if (typeof kind === 'number') throw kind;
        if (typeof kind === 'string') throw new TypeError(kind);
        if (kind === null) throw null;
        throw Object.create(null);
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'checked_output',
      description: 'Returns whatever it is given, checked against an output schema.',
      inputSchema: { type: 'object', properties: { value: {} } },
      outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      handler: (args) => args.value,
    }),
  );
  registry.register(
    defineTool({
      name: 'big_output',
      description: 'Returns its arguments under a small output budget.',
      maxOutputChars: 40,
      inputSchema: { type: 'object', properties: {}, additionalProperties: true },
      handler: (args) => args,
    }),
  );
  registry.register(
    defineTool({
      name: 'needs_key',
      description: 'Needs a credential.',
      requires: { env: [{ name: 'FUZZ_API_KEY', url: 'https://example.com' }] },
      handler: () => 'never',
    }),
  );
  registry.register(
    defineTool({ name: 'guarded', description: 'Needs approval.', requiresApproval: true, handler: () => 'approved' }),
  );
  registry.register(
    defineTool({
      name: 'envelope',
      description: 'Returns result envelopes.',
      inputSchema: { type: 'object', properties: { pick: { type: 'integer' } } },
      handler: ({ pick }) =>
        pick === 0
          ? ToolResult.error('RATE_LIMITED', 'Slow down.')
          : pick === 1
            ? ToolResult.content([{ type: 'text', text: 'hi' }])
            : ToolResult.success(pick, { extra: true }),
    }),
  );
  registry.register(
    defineTool({ name: 'constructor', description: 'A tool named like a prototype key.', handler: () => 'built' }),
  );
  registry.register({
    name: 'protocol',
    description: 'A structural protocol tool.',
    parameters: { type: 'object', properties: { x: { type: 'string' } } },
    execute: (args: Record<string, unknown>) => args.x,
  });
  registry.registerFactory('lazy', () =>
    defineTool({ name: 'lazy', description: 'Made on first use.', handler: () => 'lazy' }),
  );
  registry.registerFactory('broken_factory', () => {
    throw new Error('factory failed');
  });
  return registry;
}

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? { a: value } : [value];
  return value;
}

const registries = [createRegistry(false), createRegistry(true)];
const registered = registries[0]!.list();

const names = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...registered) },
  fc.constantFrom(...PROTOTYPE_KEYS, ''),
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom(...registered).map((name) => name.toUpperCase()),
  fc.tuple(fc.string({ maxLength: 5 }), fc.constantFrom(...registered)).map(([prefix, name]) => `${prefix}__${name}`),
  fc.integer({ min: 1_000, max: 200_000 }).map((length) => 'n'.repeat(length)),
);

const objectKeys = fc.oneof(
  fc.string(),
  fc.constantFrom(...PROTOTYPE_KEYS, 'a', 'b', 'n', 'text', 'value', 'options', 'kind', 'pick'),
);

const anything = fc.anything({
  key: objectKeys,
  stringUnit: 'binary',
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
});

const plausibleArgs = fc.record(
  {
    a: fc.oneof(fc.double(), fc.integer(), anything),
    b: fc.oneof(fc.double(), fc.integer()),
    n: fc.oneof(fc.integer(), fc.double()),
    tags: fc.oneof(fc.array(fc.string()), anything),
    text: fc.oneof(fc.string(), anything),
    value: anything,
    options: fc.oneof(fc.record({ depth: fc.oneof(fc.integer(), anything) }, { requiredKeys: [] }), anything),
    kind: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.constant(undefined)),
    pick: fc.integer({ min: -1, max: 3 }),
    x: fc.string(),
  },
  { requiredKeys: [] },
);

const args = fc.oneof(
  { weight: 3, arbitrary: plausibleArgs },
  { weight: 2, arbitrary: anything },
  plausibleArgs.map((value) => {
    try {
      return JSON.stringify(value) ?? '';
    } catch {
      return '{';
    }
  }),
  fc.json(),
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', ' ', 'null', 'undefined', '{}', '[]', '{"a":', '{"__proto__": {"x": 1}}', '\u0000', '{"a": 1,}'),
  fc.integer({ min: 1, max: 200_000 }).map((length) => ({ text: 'y'.repeat(length), value: 'z'.repeat(length) })),
  fc.integer({ min: 1, max: 50_000 }).map((length) => ({ value: new Array(length).fill(0) })),
  fc.integer({ min: 1, max: 5_000 }).map((depth) => ({ value: nested(depth, 1) })),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => `{"value": ${'['.repeat(depth)}1${']'.repeat(depth)}}`),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => `{"value": ${'{"a":'.repeat(depth)}`),
);

const options = fc.record(
  {
    toolCallId: fc.string({ maxLength: 20 }),
    signal: fc.boolean().map((aborted) => {
      const controller = new AbortController();
      if (aborted) controller.abort();
      return controller.signal;
    }),
    context: fc.record(
      { config: fc.dictionary(fc.string(), fc.jsonValue()), env: fc.constant({}) },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

function checkWellFormed(result: unknown): void {
  expect(typeof result).toBe('object');
  expect(result).not.toBeNull();
  const envelope = result as Record<string, unknown>;
  expect(STATUSES.has(envelope.status as string)).toBe(true);

  const metadata = envelope.metadata as Record<string, unknown>;
  expect(typeof metadata).toBe('object');
  expect(metadata).not.toBeNull();
  expect(typeof metadata.tool).toBe('string');
  expect(typeof metadata.durationMs).toBe('number');
  expect(Number.isFinite(metadata.durationMs)).toBe(true);
  expect(metadata.durationMs as number).toBeGreaterThanOrEqual(0);

  switch (envelope.status) {
    case 'success':
      expect('data' in envelope).toBe(true);
      break;
    case 'pending_approval': {
      const approval = envelope.approval as Record<string, unknown>;
      expect(typeof approval.id).toBe('string');
      expect('arguments' in approval).toBe(true);
      break;
    }
    default: {
      const error = envelope.error as Record<string, unknown>;
      expect(CODES.has(error.code as string)).toBe(true);
      expect(typeof error.message).toBe('string');
      expect((error.message as string).length).toBeGreaterThan(0);
      expect(typeof error.retryable).toBe('boolean');
      expect(envelope.status === 'timeout').toBe(error.code === 'TIMEOUT');
      expect(envelope.status === 'cancelled').toBe(error.code === 'CANCELLED');
    }
  }
}

describe('registry.call under arbitrary input', () => {
  it(
    'never throws or rejects and always returns a well-formed ToolResult',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.boolean(),
          names,
          args,
          fc.option(options, { nil: undefined }),
          async (withHooks, name, callArgs, callOptions) => {
            const registry = registries[withHooks ? 1 : 0]!;
            let result: unknown;
            try {
              result = await registry.call(name, callArgs, callOptions);
            } catch (error) {
              throw new Error(`registry.call threw for ${JSON.stringify(name.slice(0, 80))}: ${String(error)}`);
            }
            checkWellFormed(result);
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'answers any name that is not registered with TOOL_NOT_FOUND',
    async () => {
      const registry = registries[0]!;
      const known = new Set(registry.list());
      await fc.assert(
        fc.asyncProperty(names, async (name) => {
          fc.pre(!known.has(name));
          const result = await registry.call(name, {});
          expect(result.status === 'error' && result.error.code).toBe('TOOL_NOT_FOUND');
          expect(result.metadata.tool).toBe(name);
        }),
        { numRuns: Math.min(RUNS, 2_000) },
      );
    },
    TIMEOUT_MS,
  );
});

const callEntry = fc.oneof(
  { weight: 3, arbitrary: fc.record({ name: names, args }, { requiredKeys: ['name'] }) },
  fc.record({ id: fc.oneof(fc.string({ maxLength: 10 }), anything), name: names, args }, { requiredKeys: [] }),
  { weight: 2, arbitrary: anything },
  fc.record({ name: anything, args: anything }, { requiredKeys: [] }),
);

const batches = fc.oneof(
  { weight: 4, arbitrary: fc.array(callEntry, { maxLength: 6 }) },
  fc.sparseArray(callEntry, { maxLength: 6, maxNumElements: 3 }),
  anything,
);

describe('registry.callMany under arbitrary input', () => {
  it(
    'never throws or rejects and returns one well-formed result per index, INVALID_ARGUMENTS for what is not a call',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.boolean(), batches, async (withHooks, calls) => {
          const registry = registries[withHooks ? 1 : 0]!;
          let results: unknown;
          try {
            results = await registry.callMany(calls as never);
          } catch (error) {
            throw new Error(`registry.callMany threw: ${String(error)}`);
          }
          expect(Array.isArray(results)).toBe(true);
          const list = results as ToolResult[];
          expect(list).toHaveLength(Array.isArray(calls) ? calls.length : 1);
          for (let index = 0; index < list.length; index++) {
            expect(index in list).toBe(true);
            checkWellFormed(list[index]);
            const entry: unknown = Array.isArray(calls) ? calls[index] : calls;
            const isCall =
              Array.isArray(calls) &&
              typeof entry === 'object' &&
              entry !== null &&
              !Array.isArray(entry) &&
              typeof (entry as { name?: unknown }).name === 'string' &&
              ['string', 'undefined'].includes(typeof (entry as { id?: unknown }).id);
            if (!isCall) {
              const result = list[index]!;
              expect(result.status === 'error' && result.error.code).toBe('INVALID_ARGUMENTS');
            }
          }
        }),
        { numRuns: Math.min(RUNS, 2_000) },
      );
    },
    TIMEOUT_MS,
  );
});
