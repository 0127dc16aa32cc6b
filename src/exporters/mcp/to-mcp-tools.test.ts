import { describe, expect, it } from 'vitest';
import { defineTool } from '../../core/define-tool.js';
import type { JsonSchema } from '../../core/json-schema.js';
import { toMcpTools } from './to-mcp-tools.js';

const handler = () => null;

describe('toMcpTools', () => {
  it('fills every annotation with the MCP default when the tool sets none', () => {
    const [entry] = toMcpTools([defineTool({ name: 'plain', description: 'Plain.', handler })]).tools;
    expect(entry?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('marks a read-only tool non-destructive and repeats the title', () => {
    const spec = defineTool({
      name: 'peek',
      title: 'Peek',
      description: 'Peek.',
      annotations: { readOnly: true, destructive: true },
      handler,
    });
    expect(toMcpTools([spec]).tools[0]?.annotations).toEqual({
      title: 'Peek',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it("keeps the schemas' declared $schema, and leaves it out where none is declared", () => {
    const dialect = 'https://json-schema.org/draft/2020-12/schema';
    const spec = defineTool({
      name: 'locate',
      description: 'Locate.',
      inputSchema: { $schema: dialect, type: 'object', properties: { q: { type: 'string' } } },
      outputSchema: { $schema: dialect, type: 'object', properties: { lat: { type: 'number' } } },
      handler,
    });
    const [entry] = toMcpTools([spec]).tools;
    expect(entry?.inputSchema).toEqual({ $schema: dialect, type: 'object', properties: { q: { type: 'string' } } });
    expect(entry?.outputSchema).toEqual({ $schema: dialect, type: 'object', properties: { lat: { type: 'number' } } });
    expect(toMcpTools([defineTool({ name: 'plain', description: 'Plain.', handler })]).tools[0]?.inputSchema).toEqual({
      type: 'object',
      properties: {},
    });
  });

  it('turns boolean property schemas into objects', () => {
    const spec = defineTool({
      name: 'loose',
      description: 'Loose.',
      inputSchema: { type: 'object', properties: { any: true, none: false } } as unknown as JsonSchema,
      handler,
    });
    const result = toMcpTools([spec]);
    expect(result.tools[0]?.inputSchema.properties).toEqual({ any: {}, none: { not: {} } });
    expect(result.warnings).toHaveLength(1);
  });

  it('keeps an object output schema and leaves out any other', () => {
    const objectOutput = defineTool({
      name: 'obj',
      description: 'Obj.',
      outputSchema: { type: 'object', properties: {} },
      handler,
    });
    const numberOutput = defineTool({ name: 'num', description: 'Num.', outputSchema: { type: 'number' }, handler });
    const result = toMcpTools([objectOutput, numberOutput]);
    expect(result.tools.map((tool) => tool.outputSchema)).toEqual([{ type: 'object', properties: {} }, undefined]);
    expect(result.warnings).toEqual([
      expect.objectContaining({
        tool: 'num',
        kind: 'rewritten',
        message: expect.stringMatching(/output schema is left out/),
      }),
    ]);
  });
});
