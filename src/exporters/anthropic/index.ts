export { toAnthropicSchema } from './anthropic-schema.js';
export type { AnthropicStrictSchema } from './anthropic-strict-schema.js';
export {
  ANTHROPIC_OBJECT_CLOSED,
  ANTHROPIC_STRICT_FORMATS,
  ANTHROPIC_STRICT_LIMITS,
  toAnthropicStrictSchema,
} from './anthropic-strict-schema.js';
export type { AnthropicInputSchema, AnthropicTool, AnthropicToolsOptions } from './anthropic-tool.js';
export { toAnthropicTools } from './to-anthropic-tools.js';
