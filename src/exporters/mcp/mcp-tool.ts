import type { JsonSchema } from '../../core/json-schema.js';

/**
 * An MCP input or output schema: JSON Schema 2020-12 with `type: 'object'` at the root.
 *
 * @example
 * ```ts
 * const schema: McpObjectSchema = { type: 'object', properties: { path: { type: 'string' } } };
 * ```
 */
export interface McpObjectSchema extends JsonSchema {
  type: 'object';
}

/**
 * MCP tool annotations, every hint resolved (MCP's defaults filled in where the tool sets none).
 *
 * @example
 * ```ts
 * const hints: McpToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false };
 * ```
 */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * One entry of an MCP `tools/list` result.
 *
 * @example
 * ```ts
 * const entry: McpToolEntry = {
 *   name: 'read_file',
 *   description: 'Read a file.',
 *   inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
 *   annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
 * };
 * ```
 */
export interface McpToolEntry {
  name: string;
  title?: string;
  description: string;
  inputSchema: McpObjectSchema;
  outputSchema?: McpObjectSchema;
  annotations: McpToolAnnotations;
}
