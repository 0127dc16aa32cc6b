export { decodeStrictArguments } from './decode-strict-arguments.js';
export type { OpenAISchemaResult } from './openai-schema.js';
export {
  OPENAI_STRICT_FORMATS,
  OPENAI_STRICT_MAX_NESTING,
  OPENAI_STRICT_MAX_PROPERTIES,
  toOpenAISchema,
} from './openai-schema.js';
export type {
  OpenAIChatTool,
  OpenAIChatToolsOptions,
  OpenAIResponsesTool,
  OpenAIResponsesToolsOptions,
  OpenAIToolsOptions,
} from './openai-tool.js';
export { toOpenAITools } from './to-openai-tools.js';
