/**
 * toolshed — define an LLM agent tool once; validate it, dispatch calls to it defensively, and export
 * it to every consumer.
 *
 * This entry point is runtime-neutral (no Node built-ins at load time): the YAML loaders import their
 * file-system code on first use. Node-only and heavy parts live behind subpath exports.
 */

export type { ApprovalRule, ApprovalStore, PendingApproval } from './core/approvals.js';
export { canonicalJson, MemoryApprovalStore } from './core/approvals.js';
export type { CallContextOptions, ProgressEvent } from './core/call-context.js';
export type {
  AudioContent,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
  TextContent,
} from './core/content-block.js';
export type { PromptArgument, PromptMessage, PromptOptions, PromptSpec } from './core/define-prompt.js';
export { definePrompt, PROMPT_NAME_PATTERN } from './core/define-prompt.js';
export type {
  ResourceContents,
  ResourceOptions,
  ResourceSpec,
  ResourceTemplateOptions,
  ResourceTemplateSpec,
} from './core/define-resource.js';
export { defineResource, defineResourceTemplate } from './core/define-resource.js';
export type { JsonSchemaToolOptions, SchemaToolOptions, ToolOptionsBase } from './core/define-tool.js';
export { defineTool, isToolSpec, MAX_INPUT_EXAMPLES, TASK_SUPPORT, TOOL_NAME_PATTERN } from './core/define-tool.js';
export { closestNames } from './core/did-you-mean.js';
export type { CallHook, CallInfo, CallOptions } from './core/dispatch.js';
export { CallerCapabilityError } from './core/errors/caller-capability-error.js';
export type { ErrorCode } from './core/errors/error-code.js';
export { ERROR_CODES, isRetryable } from './core/errors/error-code.js';
export { expectedArguments } from './core/errors/failures.js';
export { TimeoutError } from './core/errors/timeout-error.js';
export { ToolCallError } from './core/errors/tool-call-error.js';
export { ToolNotFoundError } from './core/errors/tool-not-found-error.js';
export type { SourceLocation } from './core/errors/tool-registration-error.js';
export { ToolRegistrationError } from './core/errors/tool-registration-error.js';
export type { ToolshedErrorCode } from './core/errors/toolshed-error.js';
export { ToolshedError } from './core/errors/toolshed-error.js';
export type { JsonLimitBreach, JsonLimits } from './core/input-limits.js';
export { checkJsonText, checkJsonValue, describeJsonLimitBreach, INPUT_LIMITS } from './core/input-limits.js';
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
  TaskSupport,
  ToolAnnotations,
  ToolContext,
  ToolExecution,
  ToolHandler,
  ToolRequirements,
  ToolSpec,
} from './core/tool-spec.js';
export type { CompiledValidator, ValidationIssue } from './core/validation-issue.js';
export type { AnthropicStrictSchema, AnthropicTool, AnthropicToolsOptions } from './exporters/anthropic/index.js';
export { ANTHROPIC_STRICT_LIMITS, toAnthropicStrictSchema, toAnthropicTools } from './exporters/anthropic/index.js';
export type { BedrockTool, BedrockToolsOptions } from './exporters/bedrock/index.js';
export { toBedrockTools } from './exporters/bedrock/index.js';
export type {
  ExportCheckReport,
  ExportCheckStatus,
  ExportCheckTarget,
  ToolExportCheck,
} from './exporters/check-exports.js';
export { checkExports } from './exporters/check-exports.js';
export type {
  GeminiFunctionDeclaration,
  GeminiSchema,
  GeminiTool,
  GeminiToolsOptions,
} from './exporters/gemini/index.js';
export { toGeminiTools } from './exporters/gemini/index.js';
export type { McpToolEntry } from './exporters/mcp/index.js';
export { toMcpTools } from './exporters/mcp/index.js';
export type {
  OpenAIChatTool,
  OpenAIChatToolsOptions,
  OpenAIResponsesExportOptions,
  OpenAIResponsesNamespace,
  OpenAIResponsesTool,
  OpenAIResponsesToolParam,
  OpenAIResponsesToolsOptions,
  OpenAIToolSearchCall,
  OpenAIToolSearchOutput,
  OpenAIToolSearchTool,
  OpenAIToolsOptions,
} from './exporters/openai/index.js';
export {
  decodeStrictArguments,
  namespaceName,
  OPENAI_CLIENT_TOOL_SEARCH_PARAMETERS,
  toOpenAIResponsesTools,
  toOpenAITools,
} from './exporters/openai/index.js';
export type { PromptDocsOptions } from './exporters/prompt-docs/index.js';
export { cliDecisionGaps, renderPromptDocs } from './exporters/prompt-docs/index.js';
export type { SchemaFinding } from './exporters/schema-lint.js';
export { formatSchemaFinding, lintInputExamples, lintSchema } from './exporters/schema-lint.js';
export type { ExportResult, ExportTarget, ExportWarning, ExportWarningKind } from './exporters/shared/export-result.js';
export type { ToolSource } from './exporters/shared/tool-source.js';
export type { WireNameMap } from './exporters/shared/wire-name.js';
export { createWireNameMap, toWireName, WIRE_NAME_PATTERN } from './exporters/shared/wire-name.js';
export type { BatchCall, CallManyOptions } from './registry/call-many.js';
export type { CatalogChange } from './registry/content-catalog.js';
export { ContentCatalog } from './registry/content-catalog.js';
export type { LoggerHookOptions, StructuredLogger } from './registry/logger-hook.js';
export { createLoggerHook } from './registry/logger-hook.js';
export { READ_TOOL_OUTPUT } from './registry/read-tool-output.js';
export type {
  DefinitionOptions,
  DirectoryOptions,
  RegisterOptions,
  RegistrableTool,
  RegistryChange,
} from './registry/registration.js';
export type { SubsetOptions } from './registry/subset-view.js';
export type { RegistryEvents, ToolDefinition, ToolRegistryOptions } from './registry/tool-registry.js';
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
