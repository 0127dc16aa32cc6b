export { toAnthropicSchema } from './anthropic-schema.js';
export type { AnthropicInputSchema, AnthropicTool } from './anthropic-tool.js';
export { toAnthropicTools } from './to-anthropic-tools.js';
