import { TOOL_NAME_PATTERN } from '../core/define-tool.js';

/**
 * The canonical toolshed name of a tool imported from an MCP server: `SERVER__TOOL`, both parts in
 * snake_case (`longRunningOperation` → `long_running_operation`), anything outside `[a-z0-9_]`
 * replaced, cut to 64 characters with a short stable hash when longer, so it is valid for every
 * provider and the same tool always gets the same name.
 *
 * @example
 * ```ts
 * mcpToolName('everything', 'longRunningOperation'); // 'everything__long_running_operation'
 * ```
 */
export function mcpToolName(server: string, tool: string): string {
  let serverPart = snake(server) || 'mcp';
  if (!/^[a-z]/.test(serverPart)) serverPart = `m_${serverPart}`;
  const toolPart = snake(tool) || 'tool';
  const name = `${serverPart}__${toolPart}`;
  if (name.length <= 64 && TOOL_NAME_PATTERN.test(name)) return name;
  const suffix = `_${shortHash(`${server}\u0000${tool}`)}`;
  const room = 64 - suffix.length;
  return `${name.slice(0, room).replace(/_+$/, '')}${suffix}`;
}

function snake(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
}

/** A 6-character base-36 FNV-1a hash: short, stable across runs and platforms. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36).padStart(6, '0').slice(-6);
}
