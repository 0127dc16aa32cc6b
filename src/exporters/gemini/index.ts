export { GEMINI_PARAMETER_NAME_PATTERN, GEMINI_SCHEMA_KEYS, toGeminiSchema } from './gemini-schema.js';
export type {
  GeminiFunctionDeclaration,
  GeminiSchema,
  GeminiTool,
  GeminiToolsOptions,
  GeminiType,
} from './gemini-tool.js';
export { toGeminiTools } from './to-gemini-tools.js';
