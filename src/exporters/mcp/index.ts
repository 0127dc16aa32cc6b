export { toMcpInputSchema, toMcpOutputSchema } from './mcp-schema.js';
export type { McpObjectSchema, McpToolAnnotations, McpToolEntry } from './mcp-tool.js';
export { toMcpTools } from './to-mcp-tools.js';
