/**
 * The shared exporter suite's data: the tool cases every target runs (`exporters.test.ts` loops over
 * {@link EXPORTER_TARGETS}), each target's expected outcome per case, and each provider's rules,
 * encoded as small offline validators. Test support only; not part of the public surface.
 */
import { z } from 'zod';
import { defineTool } from '../core/define-tool.js';
import { isPlainObject, type JsonSchema } from '../core/json-schema.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { schemaProblems } from '../schema/compile-validator.js';
import { ANTHROPIC_STRICT_FORMATS } from './anthropic/anthropic-strict-schema.js';
import { toAnthropicTools } from './anthropic/to-anthropic-tools.js';
import { toBedrockTools } from './bedrock/to-bedrock-tools.js';
import { GEMINI_SCHEMA_KEYS } from './gemini/gemini-schema.js';
import { toGeminiTools } from './gemini/to-gemini-tools.js';
import { toMcpTools } from './mcp/to-mcp-tools.js';
import { toOpenAIResponsesTools } from './openai/to-openai-responses-tools.js';
import { toOpenAITools } from './openai/to-openai-tools.js';
import type { ExportResult } from './shared/export-result.js';

/**
 * Every export the shared suite runs.
 *
 * @example
 * ```ts
 * const id: ExporterTargetId = 'gemini';
 * ```
 */
export type ExporterTargetId =
  | 'openai-chat'
  | 'openai-chat-strict'
  | 'openai-responses-strict'
  | 'openai-responses-namespaces'
  | 'anthropic'
  | 'anthropic-strict'
  | 'gemini'
  | 'gemini-json-schema'
  | 'bedrock'
  | 'bedrock-strict'
  | 'mcp';

/**
 * What a case expects of one target: exported as is, exported with changes, or left out.
 *
 * @example
 * ```ts
 * const outcome: ExpectedOutcome = 'excluded'; // e.g. a recursive schema for Gemini
 * ```
 */
export type ExpectedOutcome = 'ok' | 'rewritten' | 'excluded';

/**
 * One tool every target exports, with what each target is expected to do with it.
 *
 * @example
 * ```ts
 * for (const testCase of EXPORTER_CASES) it(`handles ${testCase.about}`, () => {});
 * ```
 */
export interface ExporterCase {
  /** What the case is about, as it reads in a test name. */
  readonly about: string;
  readonly spec: ToolSpec;
  readonly outcomes: Readonly<Record<ExporterTargetId, ExpectedOutcome>>;
  /**
   * Arguments a model could send under the strict-mode schema (every property present, `null` for
   * absent optionals), and what `decodeStrictArguments` must turn them into.
   */
  readonly strictRoundTrip?: { readonly sent: Record<string, unknown>; readonly decoded: Record<string, unknown> };
}

const handler = () => null;

function outcomes(
  base: ExpectedOutcome,
  overrides: Partial<Record<ExporterTargetId, ExpectedOutcome>> = {},
): Record<ExporterTargetId, ExpectedOutcome> {
  // Bedrock takes JSON Schema as it is, like OpenAI without strict mode: the same outcome.
  const passThrough = overrides['openai-chat'] ?? base;
  // Namespaces and deferred loading wrap the strict Responses functions without changing them.
  const responses = overrides['openai-responses-strict'] ?? base;
  return {
    'openai-responses-namespaces': responses,
    // Strict tool use rewrites schemas much as OpenAI's strict mode does.
    'anthropic-strict': base,
    'openai-chat': base,
    'openai-chat-strict': base,
    'openai-responses-strict': base,
    anthropic: base,
    gemini: base,
    'gemini-json-schema': base,
    bedrock: passThrough,
    'bedrock-strict': passThrough,
    mcp: base,
    ...overrides,
  };
}

/**
 * A name 70 characters long: fine as text, too long for every provider (and for a canonical name).
 *
 * @example
 * ```ts
 * LONG_NAME.length; // 70
 * ```
 */
export const LONG_NAME = 'summarize_the_quarterly_financial_report_for_the_board_of_directors_now';

/**
 * The shared cases, one tool each; `exporters.test.ts` exports all of them together per target.
 *
 * @example
 * ```ts
 * const recursive = EXPORTER_CASES.find((testCase) => testCase.spec.name === 'build_tree');
 * recursive?.outcomes.gemini; // 'excluded'
 * ```
 */
export const EXPORTER_CASES: readonly ExporterCase[] = [
  {
    about: 'optional fields, defaults, formats and string constraints',
    spec: defineTool({
      name: 'search_emails',
      title: 'Search Emails',
      description: 'Full-text search over the mailbox; returns matching messages with highlighted snippets.',
      whenToUse: 'Use when the user asks about something that was said or sent by email.',
      category: 'email',
      cli: 'mail-search',
      annotations: { readOnly: true, openWorld: false },
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, description: 'Words to look for' },
          inbox: { type: 'string', default: 'inbox', description: 'Mailbox to search' },
          limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
          since: { type: 'string', format: 'date', description: 'Only messages on or after this day' },
          unread_only: { type: 'boolean' },
        },
        required: ['query'],
      },
      outputSchema: {
        type: 'object',
        properties: { total: { type: 'integer' }, messages: { type: 'array', items: { type: 'object' } } },
        required: ['total', 'messages'],
      },
      handler,
    }),
    outcomes: outcomes('rewritten', { 'openai-chat': 'ok', anthropic: 'ok', 'gemini-json-schema': 'ok', mcp: 'ok' }),
    strictRoundTrip: {
      sent: { query: 'invoice', inbox: null, limit: 5, since: null, unread_only: null },
      decoded: { query: 'invoice', limit: 5 },
    },
  },
  {
    about: 'string and number enums, const and a non-object output schema',
    spec: defineTool({
      name: 'convert_temperature',
      description: 'Convert a temperature between Celsius, Fahrenheit and Kelvin.',
      category: 'math',
      cli: 'convert',
      annotations: { readOnly: true, idempotent: true, openWorld: false },
      inputSchema: {
        type: 'object',
        properties: {
          value: { type: 'number' },
          from: { type: 'string', enum: ['c', 'f', 'k'] },
          to: { type: 'string', enum: ['c', 'f', 'k'] },
          precision: { type: 'integer', enum: [0, 1, 2], description: 'Decimal places' },
          rounding: { const: 'half-even' },
        },
        required: ['value', 'from', 'to'],
      },
      outputSchema: { type: 'number' },
      handler,
    }),
    outcomes: outcomes('rewritten', {
      'openai-chat': 'ok',
      anthropic: 'ok',
      'anthropic-strict': 'ok',
      'gemini-json-schema': 'ok',
    }),
    strictRoundTrip: {
      sent: { value: 21.5, from: 'c', to: 'f', precision: null, rounding: null },
      decoded: { value: 21.5, from: 'c', to: 'f' },
    },
  },
  {
    about: 'nested objects, nullable types and optional objects inside objects',
    spec: defineTool({
      name: 'create_event',
      title: 'Create Event',
      description: 'Create a calendar event.',
      whenToUse: 'Use after the user has confirmed the time and the attendees.',
      category: 'calendar',
      cli: null,
      annotations: { destructive: false },
      inputSchema: {
        type: 'object',
        properties: {
          title: { type: 'string' },
          when: {
            type: 'object',
            properties: {
              start: { type: 'string', format: 'date-time' },
              end: { type: 'string', format: 'date-time' },
            },
            required: ['start'],
          },
          location: {
            type: 'object',
            description: 'Where it happens',
            properties: {
              name: { type: 'string' },
              address: {
                type: 'object',
                properties: { street: { type: 'string' }, city: { type: 'string' } },
                required: ['city'],
              },
            },
          },
          notes: { type: ['string', 'null'], description: 'Free text; null clears it' },
        },
        required: ['title', 'when'],
      },
      handler,
    }),
    outcomes: outcomes('rewritten', { 'openai-chat': 'ok', anthropic: 'ok', 'gemini-json-schema': 'ok', mcp: 'ok' }),
    strictRoundTrip: {
      sent: {
        title: 'Standup',
        when: { start: '2026-01-05T09:30:00Z', end: null },
        location: { name: null, address: { street: null, city: 'Oslo' } },
        notes: null,
      },
      decoded: {
        title: 'Standup',
        when: { start: '2026-01-05T09:30:00Z' },
        location: { address: { city: 'Oslo' } },
        notes: null,
      },
    },
  },
  {
    about: 'arrays of strings, of enums and of objects, with item bounds',
    spec: defineTool({
      name: 'tag_files',
      description: 'Add tags to files.',
      category: 'filesystem',
      cli: 'tag',
      inputSchema: {
        type: 'object',
        properties: {
          paths: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 100, uniqueItems: true },
          tags: { type: 'array', items: { type: 'string', enum: ['draft', 'final', 'archived'] } },
          rules: {
            type: 'array',
            items: {
              type: 'object',
              properties: { pattern: { type: 'string' }, tag: { type: 'string' }, recursive: { type: 'boolean' } },
              required: ['pattern', 'tag'],
            },
          },
        },
        required: ['paths', 'tags'],
      },
      handler,
    }),
    outcomes: outcomes('rewritten', { 'openai-chat': 'ok', anthropic: 'ok', 'gemini-json-schema': 'ok', mcp: 'ok' }),
    strictRoundTrip: {
      sent: { paths: ['a.txt'], tags: ['final'], rules: [{ pattern: '*.md', tag: 'draft', recursive: null }] },
      decoded: { paths: ['a.txt'], tags: ['final'], rules: [{ pattern: '*.md', tag: 'draft' }] },
    },
  },
  {
    about: '$ref and $defs shared by several properties, with a description beside a $ref',
    spec: defineTool({
      name: 'send_invoice',
      description: 'Send an invoice to a customer.',
      category: 'finance',
      cli: 'invoice',
      inputSchema: {
        type: 'object',
        properties: {
          customer: { $ref: '#/$defs/Customer' },
          billing: { $ref: '#/$defs/Address' },
          shipping: { $ref: '#/$defs/Address', description: 'Where to ship; the billing address when absent' },
          lines: { type: 'array', items: { $ref: '#/$defs/Line' }, minItems: 1 },
        },
        required: ['customer', 'billing', 'lines'],
        $defs: {
          Customer: {
            type: 'object',
            properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
            required: ['name', 'email'],
          },
          Address: {
            type: 'object',
            properties: {
              street: { type: 'string' },
              city: { type: 'string' },
              country: { type: 'string', pattern: '^[A-Z]{2}$' },
            },
            required: ['street', 'city', 'country'],
          },
          Line: {
            type: 'object',
            properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
            required: ['sku', 'quantity'],
          },
        },
      },
      handler,
    }),
    outcomes: outcomes('rewritten', { 'openai-chat': 'ok', anthropic: 'ok', 'gemini-json-schema': 'ok', mcp: 'ok' }),
    strictRoundTrip: {
      sent: {
        customer: { name: 'Ada', email: 'ada@example.com' },
        billing: { street: '1 Main St', city: 'Oslo', country: 'NO' },
        shipping: null,
        lines: [{ sku: 'A-1', quantity: 2 }],
      },
      decoded: {
        customer: { name: 'Ada', email: 'ada@example.com' },
        billing: { street: '1 Main St', city: 'Oslo', country: 'NO' },
        lines: [{ sku: 'A-1', quantity: 2 }],
      },
    },
  },
  {
    about: 'a recursive schema (a tree of nodes)',
    spec: defineTool({
      name: 'build_tree',
      description: 'Render a tree of labelled nodes as an outline.',
      category: 'code',
      cli: 'tree',
      inputSchema: {
        type: 'object',
        properties: { root: { $ref: '#/$defs/Node' }, indent: { type: 'integer', minimum: 0 } },
        required: ['root'],
        $defs: {
          Node: {
            type: 'object',
            properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
            required: ['label'],
          },
        },
      },
      handler,
    }),
    outcomes: outcomes('ok', {
      'openai-chat-strict': 'rewritten',
      'openai-responses-strict': 'rewritten',
      'anthropic-strict': 'rewritten',
      gemini: 'excluded',
    }),
    strictRoundTrip: {
      sent: {
        root: {
          label: 'a',
          children: [
            { label: 'b', children: null },
            { label: 'c', children: [] },
          ],
        },
        indent: null,
      },
      decoded: { root: { label: 'a', children: [{ label: 'b' }, { label: 'c', children: [] }] } },
    },
  },
  {
    about: 'a 70-character name that no provider accepts',
    // Not a canonical name, so defineTool would refuse it; tools imported from elsewhere can carry such names.
    spec: {
      name: LONG_NAME,
      description: 'Summarize the quarterly report for the board.',
      category: 'reports',
      tags: [],
      inputSchema: {
        type: 'object',
        properties: { quarter: { type: 'string', enum: ['Q1', 'Q2', 'Q3', 'Q4'] } },
        required: ['quarter'],
      },
      handler,
      annotations: {},
      requires: {},
      metadata: {},
    } as unknown as ToolSpec,
    outcomes: outcomes('rewritten'),
  },
  {
    about: 'a tool without arguments (empty properties)',
    spec: defineTool({
      name: 'get_time',
      description: 'The current date and time in UTC.',
      cli: 'now',
      annotations: { readOnly: true, openWorld: false },
      handler,
    }),
    outcomes: outcomes('ok'),
    strictRoundTrip: { sent: {}, decoded: {} },
  },
  {
    about: 'an open map (additionalProperties) beside declared properties',
    spec: defineTool({
      name: 'fetch_url',
      description: 'Fetch a URL over HTTP and return the response body.',
      whenToUse: 'Use for pages and APIs the user names explicitly; prefer search for open questions.',
      category: 'web',
      cli: 'fetch',
      inputSchema: {
        type: 'object',
        properties: {
          url: { type: 'string', format: 'uri' },
          method: { type: 'string', enum: ['GET', 'POST'], default: 'GET' },
          headers: { type: 'object', additionalProperties: { type: 'string' } },
        },
        required: ['url'],
      },
      handler,
    }),
    outcomes: outcomes('rewritten', { 'openai-chat': 'ok', anthropic: 'ok', 'gemini-json-schema': 'ok', mcp: 'ok' }),
  },
  {
    about: 'a zod-defined tool (the JSON Schema zod derives)',
    spec: defineTool({
      name: 'add_note',
      description: 'Save a short note.',
      category: 'notes',
      input: z.object({
        text: z.string().min(1).describe('The note'),
        tags: z.array(z.string()).optional(),
        pinned: z.boolean().default(false),
        color: z.enum(['red', 'blue']).nullable().optional(),
      }),
      handler,
    }),
    outcomes: outcomes('rewritten', { 'openai-chat': 'ok', anthropic: 'ok', 'gemini-json-schema': 'ok', mcp: 'ok' }),
    strictRoundTrip: {
      sent: { text: 'milk', tags: null, pinned: null, color: null },
      decoded: { text: 'milk', color: null },
    },
  },
];

/**
 * Every case's spec, in case order.
 *
 * @example
 * ```ts
 * const { tools, warnings } = toGeminiTools(CASE_SPECS);
 * ```
 */
export const CASE_SPECS: readonly ToolSpec[] = EXPORTER_CASES.map((testCase) => testCase.spec);

/**
 * One export the shared suite runs, with how to read its result and the provider's rules.
 *
 * @example
 * ```ts
 * for (const target of EXPORTER_TARGETS) {
 *   const result = target.exportTools(CASE_SPECS);
 *   for (const entry of target.entries(result)) expect(target.problems(entry)).toEqual([]);
 * }
 * ```
 */
export interface ExporterTarget {
  readonly id: ExporterTargetId;
  exportTools(specs: readonly ToolSpec[]): ExportResult<unknown>;
  /** The exported tool entries, one per tool (Gemini's sit inside its one tool). */
  entries(result: ExportResult<unknown>): unknown[];
  /** The wire name of one entry. */
  nameOf(entry: unknown): string;
  /** The schema of one entry's arguments (`undefined` for a Gemini function without parameters). */
  schemaOf(entry: unknown): unknown;
  /** Where the provider's rules are broken by one entry, as sentences; empty when it is valid. */
  problems(entry: unknown): string[];
}

type Entry = Record<string, unknown>;
const entry = (value: unknown): Entry => (isPlainObject(value) ? value : {});

/**
 * OpenAI function names.
 *
 * @example
 * ```ts
 * OPENAI_NAME.test('github_create-issue'); // true
 * ANTHROPIC_NAME.test('a'.repeat(65)); // false
 * ```
 */
export const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Anthropic tool names (the same rule as OpenAI's). */
export const ANTHROPIC_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/**
 * Gemini function names: a letter or underscore first; letters, digits, `_ . : -`; at most 64.
 *
 * @example
 * ```ts
 * GEMINI_NAME.test('3d_render'); // false: Gemini wants a letter or underscore first
 * ```
 */
export const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;
/**
 * MCP tool names (SEP-986): letters, digits, `_ - .`; 1 to 128.
 *
 * @example
 * ```ts
 * MCP_NAME.test('github.create_issue'); // true
 * ```
 */
export const MCP_NAME = /^[a-zA-Z0-9_.-]{1,128}$/;

function openAIFunction(value: unknown): Entry {
  const tool = entry(value);
  return tool.function === undefined ? tool : entry(tool.function);
}

function openAIProblems(value: unknown, api: 'chat' | 'responses', strict: boolean): string[] {
  const tool = entry(value);
  const fn = openAIFunction(value);
  const problems: string[] = [];
  if (tool.type !== 'function') problems.push("type must be 'function'");
  if (api === 'chat' && !isPlainObject(tool.function)) problems.push('chat tools nest their fields under function');
  if (api === 'responses' && typeof tool.strict !== 'boolean') problems.push('responses tools need an explicit strict');
  if (typeof fn.name !== 'string' || !OPENAI_NAME.test(fn.name))
    problems.push(`name ${JSON.stringify(fn.name)} breaks ${OPENAI_NAME}`);
  if (typeof fn.description !== 'string') problems.push('description must be a string');
  const parameters = entry(fn.parameters);
  if (parameters.type !== 'object') problems.push("parameters must have type 'object'");
  problems.push(...validJsonSchema(parameters));
  if (strict && fn.strict === true) problems.push(...openAIStrictProblems(parameters));
  if (!strict && fn.strict === true) problems.push('strict: true without strict mode');
  return problems;
}

/** Keywords OpenAI strict mode accepts (Structured Outputs' supported subset). */
const OPENAI_STRICT_KEYWORDS = new Set([
  'type',
  'title',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
const OPENAI_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

/**
 * OpenAI strict-mode rules, checked independently of the exporter's own converter.
 *
 * @example
 * ```ts
 * openAIStrictProblems({ type: 'object', properties: { a: { type: 'string' } } });
 * // [': objects need additionalProperties: false', ': every property must be required']
 * ```
 */
export function openAIStrictProblems(parameters: Entry): string[] {
  const problems: string[] = [];
  if (parameters.anyOf !== undefined) problems.push('the root must not be anyOf');
  const defs = isPlainObject(parameters.$defs) ? parameters.$defs : {};
  const walk = (node: unknown, at: string): void => {
    if (!isPlainObject(node)) {
      problems.push(`${at}: every schema must be an object`);
      return;
    }
    for (const key of Object.keys(node))
      if (!OPENAI_STRICT_KEYWORDS.has(key)) problems.push(`${at}: '${key}' is not allowed`);
    if (node.$ref !== undefined) {
      if (Object.keys(node).length > 1) problems.push(`${at}: $ref must stand alone`);
      const ref = String(node.$ref);
      if (ref !== '#' && !(ref.startsWith('#/$defs/') && Object.hasOwn(defs, ref.slice('#/$defs/'.length)))) {
        problems.push(`${at}: $ref ${ref} must point into the root $defs`);
      }
      return;
    }
    if (node.$defs !== undefined && at !== '') problems.push(`${at}: $defs only at the root`);
    const types =
      typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? (node.type as unknown[]) : [];
    if (types.length === 0 && node.anyOf === undefined && node.enum === undefined && node.const === undefined) {
      problems.push(`${at}: every schema needs a type`);
    }
    if (types.includes('object')) {
      if (node.additionalProperties !== false) problems.push(`${at}: objects need additionalProperties: false`);
      const properties = isPlainObject(node.properties) ? Object.keys(node.properties) : undefined;
      if (properties === undefined) problems.push(`${at}: objects need properties`);
      const required = Array.isArray(node.required) ? node.required : [];
      if (
        properties !== undefined &&
        (required.length !== properties.length || !properties.every((name) => required.includes(name)))
      ) {
        problems.push(`${at}: every property must be required`);
      }
    }
    if (types.includes('array') && !isPlainObject(node.items)) problems.push(`${at}: arrays need items`);
    if (node.format !== undefined && !OPENAI_FORMATS.has(String(node.format)))
      problems.push(`${at}: format ${String(node.format)}`);
    for (const [name, child] of Object.entries(isPlainObject(node.properties) ? node.properties : {}))
      walk(child, `${at}/properties/${name}`);
    if (node.items !== undefined) walk(node.items, `${at}/items`);
    if (Array.isArray(node.anyOf))
      for (const [index, branch] of node.anyOf.entries()) walk(branch, `${at}/anyOf/${index}`);
  };
  walk({ ...parameters, $defs: undefined }, '');
  for (const [name, def] of Object.entries(defs)) walk(def, `/$defs/${name}`);
  return problems;
}

/** Keys a Gemini schema may hold (its OpenAPI 3.0 subset): the exporter's own allowlist. */
const GEMINI_KEYS = new Set<string>(GEMINI_SCHEMA_KEYS);
const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

/**
 * Gemini declaration rules: allowlisted keys, known types, string enums, objects with properties, arrays with items.
 *
 * @example
 * ```ts
 * geminiProblems({ name: 'f', description: '', parameters: { type: 'object', properties: {}, additionalProperties: false } });
 * // [": 'additionalProperties' is not in Gemini's subset", ': objects need at least one property']
 * ```
 */
export function geminiProblems(value: unknown): string[] {
  const declaration = entry(value);
  const problems: string[] = [];
  if (typeof declaration.name !== 'string' || !GEMINI_NAME.test(declaration.name)) {
    problems.push(`name ${JSON.stringify(declaration.name)} breaks ${GEMINI_NAME}`);
  }
  if (typeof declaration.description !== 'string') problems.push('description must be a string');
  if (declaration.parameters === undefined) return problems;
  const walk = (node: unknown, at: string): void => {
    if (!isPlainObject(node)) {
      problems.push(`${at}: every schema must be an object`);
      return;
    }
    for (const key of Object.keys(node))
      if (!GEMINI_KEYS.has(key)) problems.push(`${at}: '${key}' is not in Gemini's subset`);
    if (node.type === undefined && node.anyOf === undefined) problems.push(`${at}: needs a type or anyOf`);
    if (node.type !== undefined && !GEMINI_TYPES.has(String(node.type)))
      problems.push(`${at}: type ${JSON.stringify(node.type)}`);
    if (node.enum !== undefined && !(Array.isArray(node.enum) && node.enum.every((item) => typeof item === 'string'))) {
      problems.push(`${at}: enum values must be strings`);
    }
    // Schema.enum: "possible values of the element of Type.STRING with enum format".
    if (node.enum !== undefined && node.type !== 'string') problems.push(`${at}: enum is only for type string`);
    if (node.nullable !== undefined && node.nullable !== true) problems.push(`${at}: nullable is only ever true`);
    if (node.type === 'object') {
      const properties = isPlainObject(node.properties) ? node.properties : {};
      if (Object.keys(properties).length === 0) problems.push(`${at}: objects need at least one property`);
      const required = Array.isArray(node.required) ? node.required : [];
      for (const name of required)
        if (!Object.hasOwn(properties, String(name))) problems.push(`${at}: required ${String(name)} is undeclared`);
      for (const [name, child] of Object.entries(properties)) walk(child, `${at}/properties/${name}`);
    }
    if (node.type === 'array') {
      if (node.items === undefined) problems.push(`${at}: arrays need items`);
      else walk(node.items, `${at}/items`);
    }
    if (Array.isArray(node.anyOf))
      for (const [index, branch] of node.anyOf.entries()) walk(branch, `${at}/anyOf/${index}`);
  };
  const parameters = entry(declaration.parameters);
  if (parameters.type !== 'object') problems.push("parameters must have type 'object'");
  for (const name of Object.keys(isPlainObject(parameters.properties) ? parameters.properties : {})) {
    if (!/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/.test(name)) problems.push(`parameter name ${name} is not valid for Gemini`);
  }
  walk(parameters, '');
  return problems;
}

/**
 * Gemini declarations in JSON Schema mode: a Gemini name, and `parametersJsonSchema` — "the schema must
 * describe an object where the properties are the parameters", "mutually exclusive with parameters" —
 * valid JSON Schema with top-level parameter names Gemini accepts.
 *
 * @example
 * ```ts
 * geminiJsonSchemaProblems({ name: 'f', description: '', parametersJsonSchema: { type: 'string' } });
 * // ["parametersJsonSchema must have type 'object'"]
 * ```
 */
export function geminiJsonSchemaProblems(value: unknown): string[] {
  const declaration = entry(value);
  const problems: string[] = [];
  if (typeof declaration.name !== 'string' || !GEMINI_NAME.test(declaration.name))
    problems.push(`name ${JSON.stringify(declaration.name)} breaks ${GEMINI_NAME}`);
  if (typeof declaration.description !== 'string') problems.push('description must be a string');
  if (declaration.parameters !== undefined) problems.push('parameters and parametersJsonSchema are mutually exclusive');
  const schema = entry(declaration.parametersJsonSchema);
  if (schema.type !== 'object') problems.push("parametersJsonSchema must have type 'object'");
  if (!isPlainObject(schema.properties)) problems.push('parametersJsonSchema must declare properties');
  for (const name of Object.keys(isPlainObject(schema.properties) ? schema.properties : {})) {
    if (!/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/.test(name)) problems.push(`parameter name ${name} is not valid for Gemini`);
  }
  problems.push(...validJsonSchema(schema));
  return problems;
}

/** Bedrock tool names (ToolSpecification.name: 1-64 characters of `[a-zA-Z0-9_-]`). */
const BEDROCK_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Bedrock Converse rules (Tool, ToolSpecification, ToolInputSchema in the Bedrock API reference): a
 * `Tool` is a union holding one member, here `toolSpec`; its `name` matches {@link BEDROCK_NAME}; its
 * `description`, when present, has at least one character; `inputSchema` is a union holding `json`, a
 * JSON Schema of the arguments; `strict` is a boolean.
 *
 * @example
 * ```ts
 * bedrockProblems({ toolSpec: { name: 'a b', description: '', inputSchema: { json: { type: 'object' } } } }, false);
 * // ['name "a b" breaks /^[a-zA-Z0-9_-]{1,64}$/', 'description must have at least one character']
 * ```
 */
export function bedrockProblems(value: unknown, strict: boolean): string[] {
  const tool = entry(value);
  const problems: string[] = [];
  const members = Object.keys(tool);
  if (members.length !== 1 || members[0] !== 'toolSpec') problems.push('a Tool holds exactly one member, toolSpec');
  const spec = entry(tool.toolSpec);
  for (const key of Object.keys(spec))
    if (!['name', 'description', 'inputSchema', 'strict'].includes(key))
      problems.push(`toolSpec has no field '${key}'`);
  if (typeof spec.name !== 'string' || !BEDROCK_NAME.test(spec.name))
    problems.push(`name ${JSON.stringify(spec.name)} breaks ${BEDROCK_NAME}`);
  if (spec.description !== undefined && (typeof spec.description !== 'string' || spec.description.length === 0))
    problems.push('description must have at least one character');
  if (spec.strict !== undefined && typeof spec.strict !== 'boolean') problems.push('strict must be a boolean');
  if (strict && spec.strict !== true) problems.push('strict export must set strict: true');
  const input = entry(spec.inputSchema);
  if (Object.keys(input).length !== 1 || !isPlainObject(input.json))
    problems.push('inputSchema holds exactly one member, json (a JSON Schema object)');
  const schema = entry(input.json);
  if (schema.type !== 'object') problems.push("inputSchema.json must have type 'object'");
  problems.push(...validJsonSchema(schema));
  return problems;
}

function anthropicProblems(value: unknown): string[] {
  const tool = entry(value);
  const problems: string[] = [];
  if (typeof tool.name !== 'string' || !ANTHROPIC_NAME.test(tool.name))
    problems.push(`name ${JSON.stringify(tool.name)} breaks ${ANTHROPIC_NAME}`);
  if (typeof tool.description !== 'string') problems.push('description must be a string');
  const schema = entry(tool.input_schema);
  if (schema.type !== 'object') problems.push("input_schema must have type 'object'");
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    if (schema[key] !== undefined) problems.push(`input_schema must not have ${key} at the top level`);
  problems.push(...validJsonSchema(schema));
  return problems;
}

/** Keywords Anthropic's strict tool use accepts (its JSON Schema subset). */
const ANTHROPIC_STRICT_KEYWORDS = new Set([
  'type',
  'title',
  'description',
  'default',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'enum',
  'const',
  'anyOf',
  'allOf',
  '$ref',
  '$defs',
  'definitions',
  'format',
  'pattern',
]);

/**
 * Anthropic strict tool use rules, checked independently of the exporter's own converter: a tool with
 * `strict: true` closes every object with `additionalProperties: false`, uses only the supported
 * keywords and formats, `minItems` 0 or 1, enums of primitives, and local `$ref`s.
 *
 * @example
 * ```ts
 * anthropicStrictProblems({ type: 'object', properties: { n: { type: 'integer', minimum: 1 } } });
 * // [': objects need additionalProperties: false', '/properties/n: minimum is not supported']
 * ```
 */
export function anthropicStrictProblems(schema: Entry): string[] {
  const problems: string[] = [];
  const walk = (node: unknown, at: string): void => {
    if (!isPlainObject(node)) {
      problems.push(`${at}: not a schema`);
      return;
    }
    for (const key of Object.keys(node))
      if (!ANTHROPIC_STRICT_KEYWORDS.has(key)) problems.push(`${at}: ${key} is not supported`);
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes('object') || isPlainObject(node.properties)) {
      if (node.additionalProperties !== false) problems.push(`${at}: objects need additionalProperties: false`);
      for (const [name, child] of Object.entries(isPlainObject(node.properties) ? node.properties : {}))
        walk(child, `${at}/properties/${name}`);
    }
    if (node.items !== undefined) walk(node.items, `${at}/items`);
    if (node.minItems !== undefined && node.minItems !== 0 && node.minItems !== 1)
      problems.push(`${at}: minItems must be 0 or 1`);
    if (node.format !== undefined && !ANTHROPIC_STRICT_FORMATS.has(String(node.format)))
      problems.push(`${at}: format ${JSON.stringify(node.format)} is not supported`);
    if (Array.isArray(node.enum) && node.enum.some((value) => typeof value === 'object' && value !== null))
      problems.push(`${at}: enum values must be primitives`);
    if (node.$ref !== undefined && !String(node.$ref).startsWith('#')) problems.push(`${at}: only local $refs`);
    for (const key of ['anyOf', 'allOf'])
      if (Array.isArray(node[key]))
        for (const [index, branch] of (node[key] as unknown[]).entries()) walk(branch, `${at}/${key}/${index}`);
    for (const key of ['$defs', 'definitions'])
      for (const [name, child] of Object.entries(isPlainObject(node[key]) ? node[key] : {}))
        walk(child, `${at}/${key}/${name}`);
  };
  walk(schema, '');
  return problems;
}

function mcpProblems(value: unknown): string[] {
  const tool = entry(value);
  const problems: string[] = [];
  if (typeof tool.name !== 'string' || !MCP_NAME.test(tool.name))
    problems.push(`name ${JSON.stringify(tool.name)} breaks ${MCP_NAME}`);
  const input = entry(tool.inputSchema);
  if (input.type !== 'object') problems.push("inputSchema must have type 'object'");
  for (const [name, property] of Object.entries(isPlainObject(input.properties) ? input.properties : {})) {
    if (!isPlainObject(property)) problems.push(`inputSchema.properties.${name} must be an object`);
  }
  problems.push(...validJsonSchema(input));
  if (tool.outputSchema !== undefined && entry(tool.outputSchema).type !== 'object')
    problems.push("outputSchema must have type 'object'");
  const annotations = entry(tool.annotations);
  for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
    if (typeof annotations[hint] !== 'boolean') problems.push(`annotations.${hint} must be a boolean`);
  }
  return problems;
}

function validJsonSchema(schema: unknown): string[] {
  try {
    return schemaProblems(schema).map((problem) => `not valid JSON Schema: ${problem}`);
  } catch (error) {
    return [`not valid JSON Schema: ${(error as Error).message}`];
  }
}

const flatEntries = (result: ExportResult<unknown>): unknown[] => result.tools;

/**
 * The targets the shared suite runs every case for.
 *
 * @example
 * ```ts
 * for (const target of EXPORTER_TARGETS) describe(target.id, () => runSharedCases(target));
 * ```
 */
export const EXPORTER_TARGETS: readonly ExporterTarget[] = [
  {
    id: 'openai-chat',
    exportTools: (specs) => toOpenAITools(specs, { api: 'chat' }),
    entries: flatEntries,
    nameOf: (value) => String(openAIFunction(value).name),
    schemaOf: (value) => openAIFunction(value).parameters,
    problems: (value) => openAIProblems(value, 'chat', false),
  },
  {
    id: 'openai-chat-strict',
    exportTools: (specs) => toOpenAITools(specs, { api: 'chat', strict: true }),
    entries: flatEntries,
    nameOf: (value) => String(openAIFunction(value).name),
    schemaOf: (value) => openAIFunction(value).parameters,
    problems: (value) => openAIProblems(value, 'chat', true),
  },
  {
    id: 'openai-responses-strict',
    exportTools: (specs) => toOpenAITools(specs, { api: 'responses', strict: true }),
    entries: flatEntries,
    nameOf: (value) => String(entry(value).name),
    schemaOf: (value) => entry(value).parameters,
    problems: (value) => openAIProblems(value, 'responses', true),
  },
  {
    id: 'openai-responses-namespaces',
    exportTools: (specs) => toOpenAIResponsesTools(specs, { strict: true, namespaces: true, deferLoading: true }),
    entries: (result) =>
      result.tools.flatMap((tool) => (entry(tool).type === 'namespace' ? (entry(tool).tools as unknown[]) : [])),
    nameOf: (value) => String(entry(value).name),
    schemaOf: (value) => entry(value).parameters,
    problems: (value) => [
      ...openAIProblems(value, 'responses', true),
      ...(entry(value).defer_loading === true ? [] : ['a deferred export marks every function defer_loading: true']),
    ],
  },
  {
    id: 'anthropic',
    exportTools: toAnthropicTools,
    entries: flatEntries,
    nameOf: (value) => String(entry(value).name),
    schemaOf: (value) => entry(value).input_schema,
    problems: anthropicProblems,
  },
  {
    id: 'anthropic-strict',
    exportTools: (specs) => toAnthropicTools(specs, { strict: true }),
    entries: flatEntries,
    nameOf: (value) => String(entry(value).name),
    schemaOf: (value) => entry(value).input_schema,
    problems: (value) => [
      ...anthropicProblems(value),
      ...(entry(value).strict === true ? anthropicStrictProblems(entry(entry(value).input_schema)) : []),
      ...(typeof entry(value).strict === 'boolean' ? [] : ['a strict export says strict: true or false on every tool']),
    ],
  },
  {
    id: 'gemini',
    exportTools: toGeminiTools,
    entries: (result) =>
      result.tools.flatMap((tool) => (entry(tool).functionDeclarations as unknown[] | undefined) ?? []),
    nameOf: (value) => String(entry(value).name),
    schemaOf: (value) => entry(value).parameters,
    problems: geminiProblems,
  },
  {
    id: 'gemini-json-schema',
    exportTools: (specs) => toGeminiTools(specs, { schemaMode: 'json-schema' }),
    entries: (result) =>
      result.tools.flatMap((tool) => (entry(tool).functionDeclarations as unknown[] | undefined) ?? []),
    nameOf: (value) => String(entry(value).name),
    schemaOf: (value) => entry(value).parametersJsonSchema,
    problems: geminiJsonSchemaProblems,
  },
  {
    id: 'bedrock',
    exportTools: (specs) => toBedrockTools(specs),
    entries: flatEntries,
    nameOf: (value) => String(entry(entry(value).toolSpec).name),
    schemaOf: (value) => entry(entry(entry(value).toolSpec).inputSchema).json,
    problems: (value) => bedrockProblems(value, false),
  },
  {
    id: 'bedrock-strict',
    exportTools: (specs) => toBedrockTools(specs, { strict: true }),
    entries: flatEntries,
    nameOf: (value) => String(entry(entry(value).toolSpec).name),
    schemaOf: (value) => entry(entry(entry(value).toolSpec).inputSchema).json,
    problems: (value) => bedrockProblems(value, true),
  },
  {
    id: 'mcp',
    exportTools: toMcpTools,
    entries: flatEntries,
    nameOf: (value) => String(entry(value).name),
    schemaOf: (value) => entry(value).inputSchema,
    problems: mcpProblems,
  },
];

/**
 * The strict-mode parameters of one case, as `toOpenAITools(..., {strict: true})` exports them.
 *
 * @example
 * ```ts
 * compileValidator(strictParametersOf(spec)!)({ query: 'x', limit: null }); // undefined: valid
 * ```
 */
export function strictParametersOf(spec: ToolSpec): JsonSchema | undefined {
  const tool = toOpenAITools([spec], { api: 'chat', strict: true }).tools[0];
  return tool?.function.strict === true ? tool.function.parameters : undefined;
}
