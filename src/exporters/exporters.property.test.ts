import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainObject } from '../core/json-schema.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { checkExports } from './check-exports.js';
import { EXPORTER_TARGETS } from './exporters.cases.js';
import { decodeStrictArguments } from './openai/decode-strict-arguments.js';
import { cliDecisionGaps } from './prompt-docs/cli-decision-gaps.js';
import { renderPromptDocs } from './prompt-docs/render-prompt-docs.js';
import { isExclusion } from './shared/export-result.js';

const RUNS = Number(process.env.TOOLSHED_FUZZ_RUNS ?? 300);

const key = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 'query', '__proto__', 'constructor', 'toString', 'file-path', '$ref', 'with space'),
  fc.string({ maxLength: 6 }),
);
const ref = fc.constantFrom(
  '#/$defs/a',
  '#/$defs/b',
  '#',
  '#/definitions/a',
  '#/properties/a',
  '#/properties/a/items',
  '#/$defs/missing',
  '#anchor',
  'https://example.com/schema.json',
);
const data = fc.jsonValue({ maxDepth: 1 });
const annotations = {
  description: fc.string({ maxLength: 12 }),
  default: data,
  examples: fc.array(data, { maxLength: 2 }),
  'x-extra': data,
};

/**
 * Schema-shaped values, weighted toward plausible schemas of every kind (scalars with constraints,
 * closed objects, arrays, compositions, references, type lists) with a share of what targets cannot
 * express (open objects, tuples, booleans) and of malformed junk.
 */
const { schema } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
    {
      weight: 15,
      arbitrary: fc.record(
        {
          type: fc.constantFrom('string', 'number', 'integer', 'boolean', 'null'),
          enum: fc.array(data, { minLength: 1, maxLength: 3 }),
          const: data,
          format: fc.constantFrom('email', 'uri', 'date', 'date-time', 'int32', 'float', 'enum', 'made-up'),
          minLength: fc.integer({ min: 0, max: 5 }),
          pattern: fc.constantFrom('^a', '[0-9]+'),
          minimum: fc.double({ noNaN: true, noDefaultInfinity: true }),
          exclusiveMaximum: fc.integer(),
          nullable: fc.boolean(),
          ...annotations,
        },
        { requiredKeys: ['type'] },
      ),
    },
    {
      weight: 8,
      arbitrary: fc.record(
        {
          type: fc.constantFrom<unknown>('object', ['object', 'null']),
          properties: fc.dictionary(key, tie('schema'), { maxKeys: 3 }),
          required: fc.uniqueArray(key, { maxLength: 3 }),
          additionalProperties: fc.constant(false),
          minProperties: fc.integer({ min: 0, max: 2 }),
          ...annotations,
        },
        { requiredKeys: ['properties'] },
      ),
    },
    {
      weight: 6,
      arbitrary: fc.record(
        {
          type: fc.constantFrom<unknown>('array', ['array', 'null']),
          items: tie('schema'),
          minItems: fc.integer({ min: 0, max: 3 }),
          uniqueItems: fc.boolean(),
          ...annotations,
        },
        { requiredKeys: ['type', 'items'] },
      ),
    },
    {
      weight: 4,
      arbitrary: fc.record(
        {
          anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }),
          oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }),
          allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }),
          not: tie('schema'),
          ...annotations,
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 5, arbitrary: fc.record({ $ref: ref, ...annotations }, { requiredKeys: ['$ref'] }) },
    {
      weight: 3,
      arbitrary: fc.record(
        {
          type: fc.constantFrom<unknown>(['string', 'null'], ['integer', 'string'], ['array', 'null', 'number']),
          items: tie('schema'),
          enum: fc.array(data, { minLength: 1, maxLength: 3 }),
        },
        { requiredKeys: ['type'] },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          type: fc.constant('object'),
          properties: fc.dictionary(key, tie('schema'), { maxKeys: 2 }),
          additionalProperties: fc.oneof(fc.boolean(), tie('schema')),
          patternProperties: fc.dictionary(fc.constantFrom('^x', '^y'), tie('schema'), { maxKeys: 1 }),
        },
        { requiredKeys: ['type'] },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          type: fc.constant('array'),
          items: tie('schema'),
          prefixItems: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }),
        },
        { requiredKeys: ['type'] },
      ),
    },
    { weight: 2, arbitrary: fc.boolean() },
    {
      weight: 1,
      arbitrary: fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.record({ type: fc.constantFrom<unknown>('bogus', []) })),
    },
  ),
}));

const inputSchema = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.record(
      {
        type: fc.constant('object'),
        properties: fc.dictionary(key, schema, { maxKeys: 5 }),
        required: fc.uniqueArray(key, { maxLength: 3 }),
        $defs: fc.dictionary(fc.constantFrom('a', 'b'), schema, { maxKeys: 2 }),
        anyOf: fc.array(schema, { minLength: 1, maxLength: 2 }),
        allOf: fc.array(schema, { minLength: 1, maxLength: 2 }),
        additionalProperties: fc.oneof(fc.boolean(), schema),
      },
      { requiredKeys: ['type', 'properties'] },
    ),
  },
  { weight: 1, arbitrary: schema },
);

const spec = fc.record(
  {
    name: fc.oneof(
      fc.constantFrom('search', 'get_time', 'web.search', 'web search', 'web_search'),
      fc.stringMatching(/^[a-z][a-z0-9_]{0,70}$/),
      fc.string({ maxLength: 80 }),
    ),
    description: fc.oneof(fc.string({ maxLength: 30 }), fc.constant(undefined)),
    whenToUse: fc.string({ maxLength: 30 }),
    category: fc.string({ maxLength: 10 }),
    cli: fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null)),
    inputSchema,
    outputSchema: schema,
    annotations: fc.record(
      { readOnly: fc.boolean(), destructive: fc.boolean(), idempotent: fc.boolean(), openWorld: fc.boolean() },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['name', 'inputSchema'] },
);

const specs = fc.array(
  fc.oneof({ weight: 9, arbitrary: spec }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
  {
    maxLength: 5,
  },
) as fc.Arbitrary<unknown[]> as fc.Arbitrary<ToolSpec[]>;

/** Schemas inside the subset both OpenAI strict mode and Gemini can express: closed objects, typed scalars, arrays with items. */
const { expressible } = fc.letrec<{ expressible: unknown }>((tie) => ({
  expressible: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    {
      weight: 4,
      arbitrary: fc.record(
        {
          type: fc.constantFrom('string', 'number', 'integer', 'boolean'),
          description: fc.string({ maxLength: 12 }),
          minimum: fc.integer(),
          maxLength: fc.integer({ min: 1, max: 9 }),
        },
        { requiredKeys: ['type'] },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constant('string'),
        enum: fc.uniqueArray(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 3 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .dictionary(fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/), tie('expressible'), { minKeys: 1, maxKeys: 3 })
        .chain((properties) =>
          fc.record({
            type: fc.constant('object'),
            properties: fc.constant(properties),
            required: fc.subarray(Object.keys(properties)),
          }),
        ),
    },
    { weight: 1, arbitrary: fc.record({ type: fc.constant('array'), items: tie('expressible') }) },
    { weight: 1, arbitrary: fc.record({ anyOf: fc.array(tie('expressible'), { minLength: 2, maxLength: 3 }) }) },
  ),
}));

const expressibleTool = fc
  .dictionary(fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/), expressible, { minKeys: 1, maxKeys: 4 })
  .chain((properties) =>
    fc.record({ properties: fc.constant(properties), required: fc.subarray(Object.keys(properties)) }),
  )
  .map(
    ({ properties, required }) =>
      ({
        name: 'expressible',
        description: 'A tool whose schema every target can express.',
        inputSchema: { type: 'object', properties, required },
      }) as unknown as ToolSpec,
  );

describe('exporters on arbitrary schemas', () => {
  it(
    'never throw, and every tool is exported (valid for the provider) or left out with one warning',
    () => {
      const exported = new Map(EXPORTER_TARGETS.map((target) => [target.id, 0]));
      let total = 0;
      fc.assert(
        fc.property(specs, (list) => {
          total += list.length;
          for (const target of EXPORTER_TARGETS) {
            const result = target.exportTools(list);
            const entries = target.entries(result);
            exported.set(target.id, (exported.get(target.id) ?? 0) + entries.length);
            expect(entries.length + result.warnings.filter(isExclusion).length).toBe(list.length);
            const names = entries.map((entry) => target.nameOf(entry));
            expect(new Set(names).size).toBe(names.length);
            for (const entry of entries)
              expect(target.problems(entry), `${target.id} ${target.nameOf(entry)}`).toEqual([]);
          }
          const report = checkExports(list);
          expect(report.tools.length).toBeLessThanOrEqual(list.length);
          expect(typeof renderPromptDocs(list, { cliBlock: true })).toBe('string');
          expect(Array.isArray(cliDecisionGaps(list))).toBe(true);
        }),
        { numRuns: RUNS },
      );
      // The generator must reach the converters, not only their rejections.
      for (const [target, count] of exported) expect(count / total, target).toBeGreaterThan(0.1);
    },
    // Every run also lints each schema, compiling a validator per default it checks, for 11 targets:
    // about 35 s on a quiet machine, so the bound leaves room for a loaded one.
    Math.max(150_000, RUNS * 500),
  );

  it(
    'decodeStrictArguments never throws and never adds keys',
    () => {
      fc.assert(
        fc.property(inputSchema, fc.jsonValue({ maxDepth: 3 }), (schemaValue, args) => {
          if (!isPlainObject(schemaValue)) return;
          const decoded = decodeStrictArguments({ inputSchema: schemaValue as ToolSpec['inputSchema'] }, args);
          if (isPlainObject(args) && isPlainObject(decoded)) {
            for (const name of Object.keys(decoded)) expect(Object.hasOwn(args, name)).toBe(true);
          }
        }),
        { numRuns: RUNS },
      );
    },
    Math.max(30_000, RUNS * 10),
  );

  it(
    'export a schema of closed objects, typed scalars and arrays strictly for OpenAI and fully for Gemini',
    () => {
      const strictTarget = EXPORTER_TARGETS.find((target) => target.id === 'openai-chat-strict')!;
      const geminiTarget = EXPORTER_TARGETS.find((target) => target.id === 'gemini')!;
      fc.assert(
        fc.property(expressibleTool, (tool) => {
          const [strictEntry] = strictTarget.entries(strictTarget.exportTools([tool]));
          expect((strictEntry as { function: { strict: boolean } }).function.strict).toBe(true);
          expect(strictTarget.problems(strictEntry)).toEqual([]);
          const [declaration] = geminiTarget.entries(geminiTarget.exportTools([tool]));
          expect(declaration).toBeDefined();
          expect(geminiTarget.problems(declaration)).toEqual([]);
        }),
        { numRuns: RUNS },
      );
    },
    Math.max(30_000, RUNS * 20),
  );
});
