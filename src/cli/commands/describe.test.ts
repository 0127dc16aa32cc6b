import { describe, expect, it } from 'vitest';
import { defineTool } from '../../core/define-tool.js';
import { describeTool, describeType } from './describe.js';

describe('describeType', () => {
  it.each([
    [{ type: 'string' }, 'string'],
    [{ type: 'array', items: { type: 'string' } }, 'string[]'],
    [{ type: 'array', items: { type: ['string', 'null'] } }, '(string | null)[]'],
    [{ type: ['integer', 'null'] }, 'integer | null'],
    [{ enum: ['asc', 'desc'] }, '"asc" | "desc"'],
    [{ enum: [1, 2, 3, 4, 5, 6] }, '1 | 2 | 3 | 4 | 5 | …'],
    [{ const: 'fixed' }, '"fixed"'],
    [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, 'string | number'],
    [{ $ref: '#/$defs/Address' }, 'Address'],
    [{ description: 'anything' }, 'any'],
    [true, 'any'],
  ])('describes %j as %s', (schema, expected) => {
    expect(describeType(schema)).toBe(expected);
  });

  it('shows control characters in enum values as escapes', () => {
    expect(describeType({ enum: ['a\u001b[2J'] })).toBe('"a\\u001b[2J"');
  });
});

describe('describeTool', () => {
  it('says whether calls may or must run as MCP tasks, and says nothing for a tool that does not declare it', () => {
    const tool = (execution?: { taskSupport: 'optional' | 'required' }) =>
      describeTool(
        defineTool({
          name: 'export_archive',
          description: 'Export.',
          handler: () => 'ok',
          ...(execution ? { execution } : {}),
        }),
        {},
        100,
      ).join('\n');
    expect(tool({ taskSupport: 'required' })).toMatch(/^MCP tasks: +required \(calls run as tasks\)$/m);
    expect(tool({ taskSupport: 'optional' })).toMatch(/^MCP tasks: +optional$/m);
    expect(tool()).not.toContain('MCP tasks');
  });
});
