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
export type {
  OpenAIResponsesExportOptions,
  OpenAIResponsesNamespace,
  OpenAIResponsesToolParam,
  OpenAIToolSearchCall,
  OpenAIToolSearchOutput,
  OpenAIToolSearchTool,
} from './to-openai-responses-tools.js';
export {
  namespaceName,
  OPENAI_CLIENT_TOOL_SEARCH_PARAMETERS,
  toOpenAIResponsesTools,
} from './to-openai-responses-tools.js';
export { toOpenAITools } from './to-openai-tools.js';
