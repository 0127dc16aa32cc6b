/**
 * Exporters: pure functions from tool specs to each consumer's format, returning `{tools, warnings}`.
 * Only the public surface is listed here; the helpers in `shared/` that are not named stay internal.
 */

export type { AnthropicInputSchema, AnthropicTool } from './anthropic/index.js';
export { toAnthropicSchema, toAnthropicTools } from './anthropic/index.js';
export type { BedrockTool, BedrockToolsOptions } from './bedrock/index.js';
export { toBedrockTools } from './bedrock/index.js';
export type {
  ExportCheckOutcome,
  ExportCheckReport,
  ExportCheckStatus,
  ExportCheckTarget,
  ToolExportCheck,
} from './check-exports.js';
export { checkExports, EXPORT_CHECK_TARGETS } from './check-exports.js';
export type {
  GeminiFunctionDeclaration,
  GeminiSchema,
  GeminiTool,
  GeminiToolsOptions,
  GeminiType,
} from './gemini/index.js';
export { GEMINI_PARAMETER_NAME_PATTERN, GEMINI_SCHEMA_KEYS, toGeminiSchema, toGeminiTools } from './gemini/index.js';
export type { McpObjectSchema, McpToolAnnotations, McpToolEntry } from './mcp/index.js';
export { toMcpInputSchema, toMcpOutputSchema, toMcpTools } from './mcp/index.js';
export type {
  OpenAIChatTool,
  OpenAIChatToolsOptions,
  OpenAIResponsesTool,
  OpenAIResponsesToolsOptions,
  OpenAISchemaResult,
  OpenAIToolsOptions,
} from './openai/index.js';
export {
  decodeStrictArguments,
  OPENAI_STRICT_FORMATS,
  OPENAI_STRICT_MAX_NESTING,
  OPENAI_STRICT_MAX_PROPERTIES,
  toOpenAISchema,
  toOpenAITools,
} from './openai/index.js';
export type { PromptDocsOptions } from './prompt-docs/index.js';
export { cliDecisionGaps, renderPromptDocs } from './prompt-docs/index.js';
export type { ExportResult, ExportTarget, ExportWarning, ExportWarningKind } from './shared/export-result.js';
export { isExclusion } from './shared/export-result.js';
export type { SchemaIssue } from './shared/schema-issues.js';
export { SchemaIssues } from './shared/schema-issues.js';
export type { ToolSource } from './shared/tool-source.js';
export type { WireNameCollision, WireNameMap } from './shared/wire-name.js';
export { createWireNameMap, stableHash, toWireName, WIRE_NAME_PATTERN } from './shared/wire-name.js';
