import { describe, expect, it } from 'vitest';
import { defineTool } from '../core/define-tool.js';
import { ToolRegistry } from './tool-registry.js';

function searchTool(name = 'search_docs') {
  return defineTool<{ query: string; limit?: number; filters?: { lang?: string } }>({
    name,
    description: 'Search the docs.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        limit: { type: 'integer', minimum: 1 },
        filters: { type: 'object', properties: { lang: { type: 'string' } } },
      },
      required: ['query'],
    },
    handler: (args) => args,
  });
}

describe('registry exports', () => {
  it('caches each export until the tool set changes', () => {
    const registry = new ToolRegistry();
    registry.register(searchTool());
    const first = registry.toOpenAITools({ api: 'chat', strict: true });
    expect(registry.toOpenAITools({ api: 'chat', strict: true })).toBe(first);
    expect(registry.toOpenAITools({ api: 'chat' })).not.toBe(first);
    expect(registry.toAnthropicTools()).toBe(registry.toAnthropicTools());
    registry.register(searchTool('search_code'));
    const second = registry.toOpenAITools({ api: 'chat', strict: true });
    expect(second).not.toBe(first);
    expect(second.tools.map((tool) => tool.function.name)).toEqual(['search_code', 'search_docs']);
  });

  it('exports every target from the same definition', () => {
    const registry = new ToolRegistry();
    registry.register(searchTool());
    expect(registry.toAnthropicTools().tools[0]).toMatchObject({
      name: 'search_docs',
      description: 'Search the docs.',
    });
    expect(registry.toGeminiTools().tools[0]?.functionDeclarations[0]?.name).toBe('search_docs');
    expect(registry.toMcpTools().tools[0]?.inputSchema.required).toEqual(['query']);
    expect(registry.renderPromptDocs()).toContain('**search_docs**');
    const report = registry.check();
    expect(report.tools.map((tool) => tool.tool)).toEqual(['search_docs']);
  });

  it('accepts the nulls a strict-mode model sends for optional arguments, as absent', async () => {
    const registry = new ToolRegistry();
    registry.register(searchTool());
    const strict = registry.toOpenAITools({ api: 'chat', strict: true }).tools[0]!;
    expect(strict.function.parameters.required).toEqual(['query', 'limit', 'filters']);
    const result = await registry.call('search_docs', '{"query": "x", "limit": null, "filters": {"lang": null}}');
    expect(result.status).toBe('success');
    expect(result.status === 'success' && result.data).toEqual({ query: 'x', filters: {} });
  });

  it('still refuses a null where the schema has no optional to decode it to', async () => {
    const registry = new ToolRegistry();
    registry.register(searchTool());
    const result = await registry.call('search_docs', { query: null });
    expect(result.status === 'error' && result.error.message).toBe(
      "Invalid arguments for 'search_docs': 'query' must be a string, got null.",
    );
  });
});

describe('deferred loading', () => {
  it('marks tools deferred for Anthropic and keeps a search tool loaded to find them', async () => {
    const registry = new ToolRegistry();
    registry.register(searchTool());
    registry.register(searchTool('search_code'));
    const { tools } = registry.toAnthropicTools({ deferLoading: { alwaysLoaded: ['search_code'] } });
    expect(tools.map((tool) => [tool.name, tool.defer_loading])).toEqual([
      ['search_code', undefined],
      ['search_docs', true],
      ['search_tools', undefined],
    ]);
    const found = await registry.call('search_tools', { query: 'search docs' });
    expect(found.status === 'success' && (found.data as { tools: Array<{ name: string }> }).tools[0]?.name).toBe(
      'search_docs',
    );
  });

  it('marks OpenAI Responses tools deferred, and leaves plain exports untouched', () => {
    const registry = new ToolRegistry();
    registry.register(searchTool());
    const deferred = registry.toOpenAITools({ api: 'responses', deferLoading: true }).tools;
    expect(deferred.find((tool) => tool.name === 'search_docs')?.defer_loading).toBe(true);
    expect(deferred.find((tool) => tool.name === 'search_tools')?.defer_loading).toBeUndefined();
    expect(registry.toAnthropicTools().tools.every((tool) => tool.defer_loading === undefined)).toBe(true);
  });
});
