import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../core/define-tool.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import type { ToolRecord } from '../store/index.js';
import { unavailableReason } from './tool-availability.js';
import { rowBuildErrorsOf } from './workspace-registries.js';

function record(id: string, source: string, extra: Partial<ToolRecord> = {}): ToolRecord {
  return {
    id,
    workspaceId: 'acme',
    name: id,
    description: 'A tool.',
    parametersSchema: { type: 'object', properties: {} },
    handlerKey: id,
    category: 'general',
    whenToUse: null,
    annotations: {},
    requires: {},
    config: null,
    tags: [],
    inputExamples: [],
    execution: {},
    source: source as ToolRecord['source'],
    origin: 'toolshed.yaml',
    definitionHash: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

const echo = defineTool({ name: 'gh__issues', description: 'List issues.', input: z.object({}), handler: () => [] });

describe('unavailableReason', () => {
  it('is undefined for a tool the registry runs, and names a down MCP server for one marked unavailable', () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    expect(unavailableReason(record('gh__issues', 'mcp:gh'), registry)).toBeUndefined();
    registry.register(
      { ...(echo as ToolSpec), metadata: { mcpServer: 'gh', mcpUnavailable: true } },
      { allowOverride: true },
    );
    expect(unavailableReason(record('gh__issues', 'mcp:gh'), registry)).toBe(
      "Tool 'gh__issues' comes from MCP server 'gh', which is not connected right now; it reconnects by itself, try again shortly.",
    );
  });

  it('says why a row has no handler here: by its source, or the error its stored definition raised', () => {
    const registry = new ToolRegistry();
    expect(unavailableReason(record('word_count', 'config'), registry)).toBe(
      "Tool 'word_count' is defined in toolshed.yaml, which this server does not serve (or no longer defines it); serve that configuration (toolshed serve --config toolshed.yaml) to run it.",
    );
    expect(unavailableReason(record('gh__issues', 'mcp:gh'), registry)).toBe(
      "Tool 'gh__issues' comes from MCP server 'gh' of toolshed.yaml, which this server has not connected; serve that configuration (toolshed serve --config toolshed.yaml) to run it.",
    );
    expect(unavailableReason(record('add', 'code', { handlerKey: 'python', origin: null }), registry)).toBe(
      "Tool 'add' runs python code, and this server runs without the sandbox.",
    );
    expect(unavailableReason(record('lookup', 'api', { origin: null }), registry)).toBe(
      "Tool 'lookup' has no handler on this server.",
    );
    rowBuildErrorsOf(registry).set('lookup', "Tool 'lookup' needs a non-empty description, got nothing.");
    expect(unavailableReason(record('lookup', 'api', { origin: null }), registry)).toBe(
      "Tool 'lookup' cannot run: its stored definition is refused (Tool 'lookup' needs a non-empty description, got nothing.).",
    );
  });
});
