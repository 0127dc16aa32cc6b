/**
 * toolshed — define an LLM agent tool once; validate it, dispatch calls to it defensively, and export
 * it to every consumer.
 *
 * This entry point is runtime-neutral (no Node built-ins at load time): the YAML loaders import their
 * file-system code on first use. Node-only and heavy parts live behind subpath exports.
 */

export type { AnthropicTool } from './adapters/anthropic/index.js';
export { toAnthropicTools } from './adapters/anthropic/index.js';
export type {
  ExportCheckReport,
  ExportCheckStatus,
  ExportCheckTarget,
  ToolExportCheck,
} from './adapters/check-exports.js';
export { checkExports } from './adapters/check-exports.js';
export type { GeminiFunctionDeclaration, GeminiSchema, GeminiTool } from './adapters/gemini/index.js';
export { toGeminiTools } from './adapters/gemini/index.js';
export type { McpToolEntry } from './adapters/mcp/index.js';
export { toMcpTools } from './adapters/mcp/index.js';
export type {
  OpenAIChatTool,
  OpenAIChatToolsOptions,
  OpenAIResponsesTool,
  OpenAIResponsesToolsOptions,
  OpenAIToolsOptions,
} from './adapters/openai/index.js';
export { decodeStrictArguments, toOpenAITools } from './adapters/openai/index.js';
export type { PromptDocsOptions } from './adapters/prompt-docs/index.js';
export { cliDecisionGaps, renderPromptDocs } from './adapters/prompt-docs/index.js';
export type { ExportResult, ExportTarget, ExportWarning, ExportWarningKind } from './adapters/shared/export-result.js';
export type { WireNameMap } from './adapters/shared/wire-name.js';
export { createWireNameMap, toWireName, WIRE_NAME_PATTERN } from './adapters/shared/wire-name.js';
export type { CallContextOptions, ProgressEvent } from './core/call-context.js';
export type {
  AudioContent,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
  TextContent,
} from './core/content-block.js';
export type { JsonSchemaToolOptions, SchemaToolOptions, ToolOptionsBase } from './core/define-tool.js';
export { defineTool, isToolSpec, TOOL_NAME_PATTERN } from './core/define-tool.js';
export { closestNames } from './core/did-you-mean.js';
export type { CallHook, CallInfo, CallOptions } from './core/dispatch.js';
export { expectedArguments, TimeoutError } from './core/dispatch.js';
export type { ErrorCode } from './core/errors/error-code.js';
export { ERROR_CODES, isRetryable } from './core/errors/error-code.js';
export { ToolCallError } from './core/errors/tool-call-error.js';
export { ToolNotFoundError } from './core/errors/tool-not-found-error.js';
export type { SourceLocation } from './core/errors/tool-registration-error.js';
export { ToolRegistrationError } from './core/errors/tool-registration-error.js';
export type { ToolshedErrorCode } from './core/errors/toolshed-error.js';
export { ToolshedError } from './core/errors/toolshed-error.js';
export type { JsonObjectSchema, JsonSchema, JsonSchemaType } from './core/json-schema.js';
export type { OutputPage } from './core/output-store.js';
export type { ToolProtocol } from './core/tool-protocol.js';
export type {
  ResultMetadata,
  ToolError,
  ToolFailure,
  ToolPendingApproval,
  ToolStatus,
  ToolSuccess,
} from './core/tool-result.js';
export { isSuccess, ToolResult, toModelText } from './core/tool-result.js';
export type {
  ApprovalPredicate,
  ElicitationResult,
  LogLevel,
  RequiredEnvVar,
  SamplingRequest,
  SamplingResult,
  ToolAnnotations,
  ToolContext,
  ToolHandler,
  ToolRequirements,
  ToolSpec,
} from './core/tool-spec.js';
export type { CompiledValidator, ValidationIssue } from './core/validation-issue.js';
export type { ApprovalRule, ApprovalStore, PendingApproval } from './registry/approvals.js';
export { canonicalJson, MemoryApprovalStore } from './registry/approvals.js';
export type { BatchCall } from './registry/call-many.js';
export type { LoggerHookOptions, StructuredLogger } from './registry/logger-hook.js';
export { createLoggerHook } from './registry/logger-hook.js';
export { READ_TOOL_OUTPUT } from './registry/read-tool-output.js';
export type {
  DefinitionOptions,
  DirectoryOptions,
  RegisterOptions,
  RegistrableTool,
  RegistryChange,
  RegistryEvents,
  ToolDefinition,
  ToolRegistryOptions,
} from './registry/tool-registry.js';
export { ToolRegistry } from './registry/tool-registry.js';
export { compileValidator, describeSchema } from './schema/compile-validator.js';
export type { EmbeddingProvider, OpenAIEmbeddingsOptions } from './search/embeddings.js';
export { EmbeddingError, OpenAIEmbeddings } from './search/embeddings.js';
export type {
  HybridSearchOptions,
  HybridSearchResult,
  HybridSearchSource,
  HybridToolSearchOptions,
} from './search/hybrid-tool-search.js';
export { HybridToolSearch } from './search/hybrid-tool-search.js';
export type { SearchableRegistry, SearchToolsOptions } from './search/search-tools-tool.js';
export { createSearchToolsTool, SEARCH_TOOLS } from './search/search-tools-tool.js';
export type { ToolSearchHit, ToolSearchOptions } from './search/tool-search-index.js';
export { ToolSearchIndex } from './search/tool-search-index.js';
