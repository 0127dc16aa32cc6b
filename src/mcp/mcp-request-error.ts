/** The JSON-RPC error codes the server answers a refused request with. */
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/**
 * An error a request handler throws to answer with a JSON-RPC error: `code` and `message` go to the
 * client as they are (the SDK's `McpError` would prefix its message with "MCP error <code>:", which
 * the client's `McpError` prefixes once more).
 *
 * @example
 * ```ts
 * throw requestError(INVALID_PARAMS, "No prompt 'x'.");
 * ```
 */
export function requestError(code: number, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}
