import { exportEach } from '../shared/export-each.js';
import type { ExportResult } from '../shared/export-result.js';
import type { ToolSource } from '../shared/tool-source.js';
import { toAnthropicSchema } from './anthropic-schema.js';
import type { AnthropicTool } from './anthropic-tool.js';

/**
 * Export tools as Anthropic Messages API client tools: `{name, description, input_schema}`.
 *
 * The input schema passes through except for composition at its root, which Anthropic rejects (see
 * `toAnthropicSchema`). Names that are not valid Anthropic names get a wire name (`createWireNameMap`
 * maps them back). Never throws: malformed tools are left out with a warning.
 *
 * @example
 * ```ts
 * const { tools } = toAnthropicTools(registry.tools());
 * const message = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages, tools });
 * for (const block of message.content) {
 *   if (block.type === 'tool_use') await registry.call(block.name, block.input);
 * }
 * ```
 */
export function toAnthropicTools(specs: ToolSource): ExportResult<AnthropicTool> {
  return exportEach(specs, 'anthropic', (input, issues) => ({
    name: input.name,
    description: input.description,
    input_schema: toAnthropicSchema(input.inputSchema, issues),
  }));
}
