import { describe, expect, it } from 'vitest';
import { SchemaIssues } from '../shared/schema-issues.js';
import { toGeminiSchema } from './gemini-schema.js';

function gemini(schema: Record<string, unknown>) {
  const issues = new SchemaIssues();
  const result = toGeminiSchema({ type: 'object', ...schema }, issues);
  return { result, issues };
}

describe('toGeminiSchema', () => {
  it('turns null in type lists and anyOf branches into nullable', () => {
    const { result } = gemini({
      properties: {
        a: { type: ['integer', 'null'] },
        b: { anyOf: [{ type: 'string', description: 'Text' }, { type: 'null' }], description: 'B' },
        c: { enum: ['x', null] },
      },
    });
    expect(result?.properties).toEqual({
      a: { type: 'integer', nullable: true },
      b: { type: 'string', description: 'B', nullable: true },
      c: { type: 'string', nullable: true, enum: ['x'] },
    });
  });

  it('keeps enum on strings only: string values on another type move into the description', () => {
    const { result, issues } = gemini({
      properties: {
        flag: { type: 'boolean', enum: ['True', 'False'], description: 'Flag.' },
        count: { type: 'integer', enum: [1, 2] },
        unit: { type: 'string', enum: ['c', 'f'] },
      },
    });
    expect(result?.properties).toEqual({
      flag: { type: 'boolean', description: 'Flag. Allowed values: "True", "False".' },
      count: { type: 'integer', description: 'Allowed values: 1, 2.' },
      unit: { type: 'string', enum: ['c', 'f'] },
    });
    expect(issues.toWarnings('t', 'gemini').map((warning) => warning.message)).toEqual([
      "'enum' on type boolean moved into the description (Gemini takes 'enum' on strings only) (at /properties/flag)",
      "Non-string 'enum' values moved into the description (Gemini enums hold strings only) (at /properties/count)",
    ]);
  });

  it('splits a type list into anyOf branches that keep their own keywords', () => {
    const { result } = gemini({
      properties: { v: { type: ['string', 'number'], maxLength: 5, minimum: 0, description: 'V' } },
    });
    expect(result?.properties?.v).toEqual({
      description: 'V',
      anyOf: [
        { type: 'string', maxLength: 5 },
        { type: 'number', minimum: 0 },
      ],
    });
  });

  it('refuses a required property it cannot express and leaves the tool out', () => {
    const { result, issues } = gemini({
      properties: { headers: { type: 'object', additionalProperties: { type: 'string' } } },
      required: ['headers'],
    });
    expect(result).toBeUndefined();
    expect(issues.unsupportedSummary()).toBe('an open object (a map of any keys) (at /properties/headers)');
  });

  it('refuses parameter names Gemini does not accept when they are required', () => {
    const { result, issues } = gemini({ properties: { 'file-path': { type: 'string' } }, required: ['file-path'] });
    expect(result).toBeUndefined();
    expect(issues.unsupportedSummary()).toMatch(/parameter name 'file-path'/);
  });

  it('writes only keys of its subset, lowercase types first', () => {
    const { result } = gemini({
      properties: { n: { type: 'number', format: 'double', exclusiveMinimum: 0, multipleOf: 2, examples: [4] } },
      additionalProperties: false,
      $schema: 'https://json-schema.org/draft/2020-12/schema',
    });
    expect(result).toEqual({ type: 'object', properties: { n: { type: 'number', format: 'double', example: 4 } } });
  });
});
