import type { ToolResult } from '../core/tool-result.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { type McpCallToolResult, toCallToolResult } from './mcp-call-result.js';
import { toolOutputLink } from './mcp-catalog-handlers.js';
import { listMcpTools } from './mcp-tool-list.js';

/**
 * What a `tools/call` answers once its call has a result, in either protocol version: `onCallResult`
 * hears of it first (a failure there is reported, never the caller's), then the result becomes MCP
 * content (structured when the tool declares an output schema), with a resource link to a whole
 * output that was cut short.
 *
 * @example
 * ```ts
 * const result = await registry.call('add', { a: 1, b: 2 });
 * const answer = await answerToolCall(registry, 'add', { a: 1, b: 2 }, result, undefined, console.error);
 * // { content: [{ type: 'text', text: '3' }] }
 * ```
 */
export async function answerToolCall(
  registry: ToolRegistry,
  name: string,
  args: unknown,
  result: ToolResult,
  onCallResult: ((tool: string, result: ToolResult, args: unknown) => void | Promise<unknown>) | undefined,
  report: (error: unknown) => void,
): Promise<McpCallToolResult> {
  if (onCallResult !== undefined) {
    try {
      await onCallResult(name, result, args);
    } catch (error) {
      report(error);
    }
  }
  const answer = toCallToolResult(result, listMcpTools(registry).structured.has(name));
  const handle = result.metadata.outputHandle;
  // The marker names read_tool_output for models; the link lets any MCP client read the whole output.
  if (result.status === 'success' && typeof handle === 'string') answer.content.push(toolOutputLink(name, handle));
  return answer;
}

/**
 * The `tools/call` answer when the call could not even be prepared (only a throwing `context` option
 * gets there, since `registry.call` never throws): still a result the model reads, never a protocol error.
 *
 * @example
 * ```ts
 * unpreparedCallResult('add', new Error('no tenant'));
 * // { content: [{ type: 'text', text: "Error [EXECUTION_FAILED]: The call to 'add' could not be prepared: no tenant" }], isError: true, ... }
 * ```
 */
export function unpreparedCallResult(name: string, error: unknown): McpCallToolResult {
  const message = error instanceof Error ? error.message : String(error);
  return {
    content: [
      { type: 'text', text: `Error [EXECUTION_FAILED]: The call to '${name}' could not be prepared: ${message}` },
    ],
    isError: true,
    _meta: { error_code: 'EXECUTION_FAILED', retryable: false },
  };
}
