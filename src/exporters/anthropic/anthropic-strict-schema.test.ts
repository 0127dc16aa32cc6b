import { describe, expect, it } from 'vitest';
import { defineTool } from '../../core/define-tool.js';
import type { JsonSchema } from '../../core/json-schema.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { anthropicStrictProblems } from '../exporters.cases.js';
import { SchemaIssues } from '../shared/schema-issues.js';
import { ANTHROPIC_STRICT_LIMITS, toAnthropicStrictSchema } from './anthropic-strict-schema.js';
import { toAnthropicTools } from './to-anthropic-tools.js';

const messages = (issues: SchemaIssues) => issues.list.map((issue) => `${issue.pointer ?? ''} ${issue.message}`);

describe('toAnthropicStrictSchema', () => {
  it('closes objects, keeps optional properties optional and removes what strict tool use rejects', () => {
    const issues = new SchemaIssues();
    const result = toAnthropicStrictSchema(
      {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: 200 },
          limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
          tags: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 5 },
          site: { type: 'string', format: 'uri' },
          color: { type: 'string', format: 'hex-color' },
          filter: { type: 'object', properties: { from: { type: 'string', format: 'date' } } },
        },
        required: ['query'],
      },
      issues,
    );
    expect(result).toEqual({
      schema: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          limit: { type: 'integer', default: 10 },
          tags: { type: 'array', items: { type: 'string' } },
          site: { type: 'string', format: 'uri' },
          color: { type: 'string' },
          filter: {
            type: 'object',
            properties: { from: { type: 'string', format: 'date' } },
            additionalProperties: false,
          },
        },
        required: ['query'],
        additionalProperties: false,
      },
      optionalProperties: 6,
      unionProperties: 0,
    });
    expect(messages(issues)).toEqual([
      "/properties/query 'minLength' is not supported in strict tool use; removed",
      "/properties/query 'maxLength' is not supported in strict tool use; removed",
      "/properties/limit 'minimum' is not supported in strict tool use; removed",
      "/properties/limit 'maximum' is not supported in strict tool use; removed",
      "/properties/tags 'maxItems' is not supported in strict tool use; removed",
      "/properties/tags 'minItems: 2' is not supported (only 0 or 1); removed",
      '/properties/color format "hex-color" is not supported in strict tool use; removed',
      "/properties/filter Open object closed with 'additionalProperties: false' (strict tool use requires it; the model can no longer send undeclared keys)",
    ]);
    if ('schema' in result) expect(anthropicStrictProblems(result.schema)).toEqual([]);
  });

  it('turns oneOf into anyOf and counts union properties', () => {
    const issues = new SchemaIssues();
    const result = toAnthropicStrictSchema(
      {
        type: 'object',
        properties: {
          id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
          note: { type: ['string', 'null'] },
        },
        required: ['id', 'note'],
      },
      issues,
    );
    expect(result).toMatchObject({
      schema: { properties: { id: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } },
      optionalProperties: 0,
      unionProperties: 2,
    });
  });

  it.each([
    [
      { type: 'object', properties: { m: { type: 'object', additionalProperties: { type: 'string' } } } },
      'an open object (additionalProperties or patternProperties) (at /properties/m)',
    ],
    [{ type: 'object', properties: { v: {} } }, 'a value of any type (at /properties/v)'],
    [
      { type: 'object', properties: { p: { type: 'array', prefixItems: [{ type: 'string' }] } } },
      'a tuple (prefixItems) (at /properties/p)',
    ],
    [{ type: 'object', properties: { e: { enum: [{ a: 1 }] } } }, "an 'enum' of objects or arrays (at /properties/e)"],
    [
      {
        type: 'object',
        properties: { n: { $ref: '#/$defs/N' } },
        $defs: { N: { type: 'object', properties: { next: { $ref: '#/$defs/N' } } } },
      },
      'a recursive schema',
    ],
  ])('cannot express %j: %s', (schema, reason) => {
    const issues = new SchemaIssues();
    expect(toAnthropicStrictSchema(schema, issues)).toEqual({ unsupported: reason });
    expect(issues.list).toEqual([]);
  });
});

describe('toAnthropicTools with strict', () => {
  const tool = (name: string, properties: Record<string, JsonSchema>, required: string[] = []): ToolSpec =>
    defineTool({ name, description: name, inputSchema: { type: 'object', properties, required }, handler: () => 'ok' });

  it('falls back to the plain export for a tool strict tool use cannot express, saying why', () => {
    const { tools, warnings } = toAnthropicTools(
      [tool('fetch', { headers: { type: 'object', additionalProperties: { type: 'string' } } })],
      { strict: true },
    );
    expect(tools[0]).toMatchObject({
      strict: false,
      input_schema: { properties: { headers: { additionalProperties: { type: 'string' } } } },
    });
    expect(warnings.map((warning) => warning.message)).toEqual([
      'Strict tool use cannot express an open object (additionalProperties or patternProperties) (at /properties/headers); exported with strict: false',
    ]);
  });

  it(`makes at most ${ANTHROPIC_STRICT_LIMITS.tools} tools strict, in list order`, () => {
    const specs = Array.from({ length: 22 }, (_, index) => tool(`tool_${index}`, { a: { type: 'string' } }, ['a']));
    const { tools, warnings } = toAnthropicTools(specs, { strict: true });
    expect(tools.map((entry) => entry.strict)).toEqual([...Array(20).fill(true), false, false]);
    expect(warnings.map((warning) => `${warning.tool}: ${warning.message}`)).toEqual([
      "tool_20: The request already has 20 strict tools, Anthropic's limit; exported with strict: false",
      "tool_21: The request already has 20 strict tools, Anthropic's limit; exported with strict: false",
    ]);
  });

  it('keeps the optional and union properties of strict tools within the request limits', () => {
    const optional = (name: string) =>
      tool(name, Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`p${index}`, { type: 'string' }])));
    const unions = (name: string) =>
      tool(
        name,
        Object.fromEntries(Array.from({ length: 9 }, (_, index) => [`u${index}`, { type: ['string', 'null'] }])),
        Array.from({ length: 9 }, (_, index) => `u${index}`),
      );
    const { tools, warnings } = toAnthropicTools(
      [optional('a'), optional('b'), optional('c'), unions('d'), unions('e')],
      {
        strict: true,
      },
    );
    expect(tools.map((entry) => entry.strict)).toEqual([true, true, false, true, false]);
    expect(warnings.filter((warning) => warning.message.includes('limit')).map((warning) => warning.message)).toEqual([
      "Its 10 optional properties would pass Anthropic's limit of 24 across a request's strict tools; exported with strict: false",
      "Its 9 union-typed properties would pass Anthropic's limit of 16 across a request's strict tools; exported with strict: false",
    ]);
  });

  it('leaves strict out entirely without the option', () => {
    const { tools } = toAnthropicTools([tool('plain', { a: { type: 'string', minLength: 2 } })]);
    expect(tools[0]).toEqual({
      name: 'plain',
      description: 'plain',
      input_schema: { type: 'object', properties: { a: { type: 'string', minLength: 2 } }, required: [] },
    });
  });
});
