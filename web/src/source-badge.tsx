/**
 * Whether the API may change a tool of this source: only the workspace's own (`api`, `code`).
 *
 * @example
 * ```ts
 * isEditableTool('builtin'); // false
 * ```
 */
export function isEditableTool(source: string): boolean {
  return source === 'api' || source === 'code';
}

/**
 * Why a tool or agent cannot be changed here, and where it can: the sentence the read-only notice
 * shows (the same as the API's `READ_ONLY` message).
 *
 * @example
 * ```ts
 * readOnlyNotice('agent', 'assistant', 'config', 'examples/toolshed.yaml');
 * // "Agent 'assistant' is defined in examples/toolshed.yaml; edit it there."
 * ```
 */
export function readOnlyNotice(kind: 'tool' | 'agent', id: string, source: string, origin: string | null): string {
  const file = origin ?? 'the configuration';
  if (kind === 'agent') return `Agent '${id}' is defined in ${file}; edit it there.`;
  if (source === 'builtin') return `Tool '${id}' is a built-in; it cannot be changed.`;
  if (source.startsWith('mcp:')) {
    return `Tool '${id}' is imported from the MCP server '${source.slice(4)}' named in ${file}; change it on that server or in ${file}.`;
  }
  return `Tool '${id}' is defined in ${file}; edit it there.`;
}
