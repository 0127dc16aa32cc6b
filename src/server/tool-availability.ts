import { quarantineMessage } from '../mcp/upstream-pins.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { ToolRecord } from '../store/index.js';
import { rowBuildErrorsOf } from './workspace-registries.js';

/**
 * Whether the tool of `record` is an MCP server's tool quarantined because its definition changed
 * since it was approved (see `toolshed mcp-servers approve`).
 *
 * @example
 * ```ts
 * isQuarantined(await store.tools.get('default', 'memory__read_graph'), registry); // true until approved
 * ```
 */
export function isQuarantined(record: ToolRecord, registry: ToolRegistry): boolean {
  return registry.has(record.id) && registry.get(record.id).metadata?.mcpQuarantine !== undefined;
}

/**
 * Why this server cannot run the tool of `record` now, or `undefined` when it can: a row whose
 * handler the server does not have (a configuration tool of a configuration it does not serve, a
 * code tool on a server without the sandbox), whose MCP server is down, or whose definition its MCP
 * server changed since it was approved (quarantined). The text is what a caller
 * reads in the listing and in the error of a call.
 *
 * @example
 * ```ts
 * unavailableReason(await store.tools.get('default', 'word_count'), registry);
 * // "Tool 'word_count' is defined in toolshed.yaml, which this server does not serve; ..."
 * ```
 */
export function unavailableReason(record: ToolRecord, registry: ToolRegistry): string | undefined {
  const name = record.id;
  const origin = record.origin ?? 'a configuration';
  if (registry.has(name)) {
    const tool = registry.get(name);
    const server = record.source.startsWith('mcp:') ? record.source.slice(4) : 'its MCP server';
    const quarantine = tool.metadata?.mcpQuarantine as { changed?: string[] } | undefined;
    if (quarantine !== undefined) {
      const upstream = typeof tool.metadata.mcpTool === 'string' ? tool.metadata.mcpTool : name;
      return quarantineMessage(name, server, upstream, quarantine.changed ?? []);
    }
    if (tool.metadata?.mcpUnavailable !== true) return undefined;
    return `Tool '${name}' comes from MCP server '${server}', which is not connected right now; it reconnects by itself, try again shortly.`;
  }
  if (record.source.startsWith('mcp:')) {
    return `Tool '${name}' comes from MCP server '${record.source.slice(4)}' of ${origin}, which this server has not connected; serve that configuration (toolshed serve --config ${origin}) to run it.`;
  }
  if (record.source === 'config' || record.source === 'module') {
    return `Tool '${name}' is defined in ${origin}, which this server does not serve (or no longer defines it); serve that configuration (toolshed serve --config ${origin}) to run it.`;
  }
  const buildError = rowBuildErrorsOf(registry).get(name);
  if (buildError !== undefined) return `Tool '${name}' cannot run: its stored definition is refused (${buildError}).`;
  if (record.source === 'code') {
    return `Tool '${name}' runs ${record.handlerKey} code, and this server runs without the sandbox.`;
  }
  return `Tool '${name}' has no handler on this server.`;
}
