import { describe, expect, it } from 'vitest';
import { defineTool } from '../../core/define-tool.js';
import { ToolRegistry } from '../../registry/tool-registry.js';
import { toAnthropicTools } from '../anthropic/index.js';
import { checkExports } from '../check-exports.js';
import { toGeminiTools } from '../gemini/index.js';
import { toMcpTools } from '../mcp/index.js';
import { toOpenAITools } from '../openai/index.js';
import { cliDecisionGaps, renderPromptDocs } from '../prompt-docs/index.js';
import type { ToolSource } from './tool-source.js';

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.registerAll([
    defineTool({ name: 'add', description: 'Add two numbers.', cli: null, handler: () => 0 }),
    defineTool({ name: 'echo', description: 'Echo a text.', cli: null, handler: () => '' }),
  ]);
  return tools;
}

describe('standalone exporters given a registry', () => {
  it('export its tools, exactly as from registry.tools()', () => {
    const tools = registry();
    const exporters: Array<(source: ToolSource) => unknown> = [
      (source) => toOpenAITools(source),
      (source) => toOpenAITools(source, { api: 'responses', strict: true }),
      toAnthropicTools,
      toGeminiTools,
      toMcpTools,
      checkExports,
      renderPromptDocs,
      cliDecisionGaps,
    ];
    for (const exporter of exporters) expect(exporter(tools)).toEqual(exporter(tools.tools()));
    expect(toOpenAITools(tools).tools.map((tool) => tool.function.name)).toEqual(['add', 'echo']);
  });

  it('refuse what is neither a list nor a registry, with an error saying so', () => {
    const [one] = registry().tools();
    expect(() => toOpenAITools(one as unknown as ToolSource)).toThrow(
      new TypeError("Exports take an array of tool specs or a registry, got one tool ('add'); wrap it in an array."),
    );
    expect(() => toGeminiTools(undefined as unknown as ToolSource)).toThrow(
      new TypeError('Exports take an array of tool specs or a registry, got undefined.'),
    );
    expect(() => checkExports(null as unknown as ToolSource)).toThrow(
      new TypeError('Exports take an array of tool specs or a registry, got null.'),
    );
  });
});
