/**
 * toolshed/mcp — serve a tool registry over the Model Context Protocol: stdio for local clients
 * (`toolshed mcp`, Claude Desktop), Streamable HTTP for the service (`/mcp`, per agent).
 *
 * Node-only; built on `@modelcontextprotocol/sdk`. The node:http bridge and the session machinery are
 * internal and not exported.
 */

export type { McpObjectSchema, McpToolAnnotations, McpToolEntry } from '../exporters/mcp/mcp-tool.js';
export type { HostPolicy } from './host-validation.js';
export { checkHostAndOrigin } from './host-validation.js';
export type {
  ImportMcpServerOptions,
  McpServerConfig,
  McpServerConnection,
  McpServerLogEntry,
  McpServerOAuth,
  McpServerStatus,
} from './import-mcp-server.js';
export { importMcpServer, McpServerUnavailableError } from './import-mcp-server.js';
export type { McpCallToolResult } from './mcp-call-result.js';
export { toCallToolResult } from './mcp-call-result.js';
export { TOOL_OUTPUT_URI_PREFIX } from './mcp-catalog-handlers.js';
export type {
  McpEndpoint,
  McpEndpointResolver,
  McpHttpHandler,
  McpHttpHandlerOptions,
  McpResumableStreamsOptions,
  McpSessionQuota,
  McpSessionSharing,
  McpSessionSignalMessage,
  McpSharedSession,
} from './mcp-http-handler.js';
export { createMcpHttpHandler } from './mcp-http-handler.js';
export type {
  ModernMcpEndpoint,
  ModernMcpHandler,
  ModernMcpHandlerOptions,
  ModernMcpServerOptions,
} from './mcp-modern.js';
export {
  createModernMcpHandler,
  createModernMcpServer,
  DEFAULT_LIST_TTL_MS,
  isModernMcpRequest,
  MODERN_PROTOCOL_VERSION,
} from './mcp-modern.js';
export type { McpCallContext, McpServerOptions } from './mcp-server.js';
export { createMcpServer } from './mcp-server.js';
export type { McpTaskEntry, McpTaskOutcome, McpTaskStatus, McpTaskStore } from './mcp-task-store.js';
export type { McpTaskOptions } from './mcp-tasks.js';
export type { McpToolListing } from './mcp-tool-list.js';
export { listMcpTools, toolsHash } from './mcp-tool-list.js';
export { mcpToolName } from './mcp-tool-name.js';
export type { MemoryTaskStoreOptions } from './memory-task-store.js';
export { createMemoryTaskStore } from './memory-task-store.js';
export type { StdioServeOptions, StdioServing } from './serve-stdio.js';
export { serveStdio } from './serve-stdio.js';
export type { McpSharedEvent } from './session-event-store.js';
export type { PinnedField, PinnedToolDefinition, UpstreamPins } from './upstream-pins.js';
export {
  changedFields,
  describeDefinitionChange,
  PINNED_FIELDS,
  pinnedDefinition,
  quarantineMessage,
} from './upstream-pins.js';
