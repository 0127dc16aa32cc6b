import { describe, expect, it } from 'vitest';
import { SchemaIssues } from '../shared/schema-issues.js';
import { toAnthropicSchema } from './anthropic-schema.js';

describe('toAnthropicSchema', () => {
  it('passes $refs, formats and constraints through', () => {
    const issues = new SchemaIssues();
    const schema = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/A' }, b: { type: 'string', format: 'uri', minLength: 3 } },
      $defs: { A: { type: 'integer' } },
    };
    expect(toAnthropicSchema(schema, issues)).toEqual(schema);
    expect(issues.list).toEqual([]);
  });

  it('removes anyOf and oneOf at the top level, which Anthropic rejects', () => {
    const issues = new SchemaIssues();
    const schema = { type: 'object', properties: { a: { type: 'string' } }, anyOf: [{ required: ['a'] }], oneOf: [{}] };
    expect(toAnthropicSchema(schema, issues)).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
    expect(issues.list.map((issue) => issue.kind)).toEqual(['rewritten', 'rewritten']);
  });

  it('merges an allOf at the top level into the root', () => {
    const issues = new SchemaIssues();
    const schema = {
      type: 'object',
      properties: {},
      allOf: [{ properties: { a: { type: 'string' } }, required: ['a'] }],
    };
    expect(toAnthropicSchema(schema, issues)).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
    });
  });
});
