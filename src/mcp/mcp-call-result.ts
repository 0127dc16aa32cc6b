import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ContentBlock } from '../core/content-block.js';
import { isPlainObject } from '../core/json-schema.js';
import { type ToolResult, toModelText } from '../core/tool-result.js';

/**
 * An MCP `tools/call` result: content blocks, `structuredContent` for tools with an output schema, and
 * `isError` for failures.
 *
 * @example
 * ```ts
 * const failed: McpCallToolResult = {
 *   content: [{ type: 'text', text: "Error [TIMEOUT]: Tool 'slow' timed out after 100 ms." }],
 *   isError: true,
 *   _meta: { error_code: 'TIMEOUT', retryable: true },
 * };
 * ```
 */
export interface McpCallToolResult {
  [key: string]: unknown;
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/**
 * The MCP `tools/call` result for a toolshed {@link ToolResult}.
 *
 * - success: the result's content blocks when the tool returned some, else one text block with
 *   `toModelText(result)`; plus `structuredContent` (the data) when `structured` is true and the data is
 *   an object, which is what an MCP output schema promises.
 * - error, timeout, cancelled: `isError: true` with the `toModelText` message, and the error code in
 *   `_meta` (`error_code`, `retryable`) for programs. Never a JSON-RPC error, so the model reads it.
 * - pending approval: a text block saying the call waits for approval, with `_meta.approval_id`.
 *
 * Content blocks a handler built by hand that MCP cannot carry (an image whose data is not base64, a
 * resource with neither text nor blob) turn the result into an `OUTPUT_INVALID` error result instead
 * of a protocol error.
 *
 * @example
 * ```ts
 * const result = await registry.call('add', { a: 1, b: 2 });
 * toCallToolResult(result); // { content: [{ type: 'text', text: '3' }] }
 * ```
 */
export function toCallToolResult(result: ToolResult, structured = false): McpCallToolResult {
  switch (result.status) {
    case 'success': {
      if (result.content !== undefined && result.content.length > 0) {
        const mcpResult: McpCallToolResult = { content: result.content };
        if (structured && isPlainObject(result.data)) mcpResult.structuredContent = result.data;
        const checked = CallToolResultSchema.safeParse(mcpResult);
        if (checked.success) return mcpResult;
        const problem = checked.error.issues[0];
        const where = problem === undefined ? '' : ` (${problem.path.join('.')}: ${problem.message})`;
        return {
          content: [
            {
              type: 'text',
              text: `Error [OUTPUT_INVALID]: Tool '${result.metadata.tool}' returned content blocks that MCP cannot carry${where}.\nHint: This is a fault in the tool, not in your arguments; try another approach.`,
            },
          ],
          isError: true,
          _meta: { error_code: 'OUTPUT_INVALID', retryable: false },
        };
      }
      const mcpResult: McpCallToolResult = { content: [{ type: 'text', text: toModelText(result) }] };
      if (structured && isPlainObject(result.data)) mcpResult.structuredContent = result.data;
      return mcpResult;
    }
    case 'pending_approval':
      return {
        content: [{ type: 'text', text: toModelText(result) }],
        _meta: { approval_id: result.approval.id },
      };
    case 'error':
    case 'timeout':
    case 'cancelled':
      return {
        content: [{ type: 'text', text: toModelText(result) }],
        isError: true,
        _meta: { error_code: result.error.code, retryable: result.error.retryable },
      };
    default: {
      const unreachable: never = result;
      return unreachable;
    }
  }
}
