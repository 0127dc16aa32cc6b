import type { Agent, Tool } from './api-types.js';

/**
 * The last part of a configuration file's path, as a badge shows it (`/srv/app/toolshed.yaml` →
 * `toolshed.yaml`).
 *
 * @example
 * ```ts
 * fileNameOf('/srv/app/toolshed.yaml'); // 'toolshed.yaml'
 * ```
 */
export function fileNameOf(path: string): string {
  const parts = path.split(/[\\/]/).filter((part) => part !== '');
  return parts[parts.length - 1] ?? path;
}

/**
 * Where a tool comes from, in words a badge can hold: `built-in`, the configuration file's name,
 * `module`, `MCP: <server>`, `API` or `code`.
 *
 * @example
 * ```ts
 * sourceLabel({ source: 'config', origin: '/srv/app/toolshed.yaml' }); // 'toolshed.yaml'
 * sourceLabel({ source: 'mcp:github', origin: '/srv/app/toolshed.yaml' }); // 'MCP: github'
 * ```
 */
export function sourceLabel(tool: Pick<Tool, 'source' | 'origin'>): string {
  const { source, origin } = tool;
  if (source === 'builtin') return 'built-in';
  if (source === 'config') return origin === null ? 'config' : fileNameOf(origin);
  if (source === 'module') return 'module';
  if (source.startsWith('mcp:')) return `MCP: ${source.slice(4)}`;
  if (source === 'api') return 'API';
  if (source === 'code') return 'code';
  return source;
}

/**
 * The sentence behind a source badge (its tooltip and what a screen reader reads): where the tool is
 * defined and how it got into the workspace.
 *
 * @example
 * ```ts
 * sourceDescription({ source: 'api', origin: null }); // 'Created through the REST API.'
 * ```
 */
export function sourceDescription(tool: Pick<Tool, 'source' | 'origin'>): string {
  const { source, origin } = tool;
  const file = origin === null ? 'a configuration file' : origin;
  if (source === 'builtin') return 'A built-in tool of toolshed.';
  if (source === 'config') return `Defined in ${file}.`;
  if (source === 'module') return `A tool module loaded by ${file}.`;
  if (source.startsWith('mcp:')) return `Imported from MCP server '${source.slice(4)}' of ${file}.`;
  if (source === 'api') return 'Created through the REST API.';
  if (source === 'code') return 'Code stored in the workspace, run in the sandbox.';
  return `Source: ${source}.`;
}

/**
 * What the catalog's source filter compares: the source, and for configuration tools the file too
 * (two configurations are two sources).
 *
 * @example
 * ```ts
 * sourceKey({ source: 'config', origin: 'toolshed.yaml' }); // 'config:toolshed.yaml'
 * ```
 */
export function sourceKey(tool: Pick<Tool, 'source' | 'origin'>): string {
  return tool.source === 'config' && tool.origin !== null ? `config:${tool.origin}` : tool.source;
}

/**
 * True when the agent comes from a configuration file: the file is its source of truth, so the
 * catalog offers no controls that would change it.
 *
 * @example
 * ```ts
 * if (isConfigAgent(agent)) console.log(`defined in ${agent.origin}`);
 * ```
 */
export function isConfigAgent(agent: Pick<Agent, 'source'>): boolean {
  return agent.source === 'config';
}
