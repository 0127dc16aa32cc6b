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
 * A tool's source as a badge, with the full sentence as its tooltip.
 *
 * @example
 * ```tsx
 * <SourceBadge tool={tool} />
 * ```
 */
export function SourceBadge(props: { tool: Pick<Tool, 'source' | 'origin'> }) {
  const kind = props.tool.source.startsWith('mcp:') ? 'mcp' : props.tool.source;
  return (
    <span
      className={`source-badge source-${kind}`}
      title={sourceDescription(props.tool)}
      data-testid="source-badge"
      data-source={props.tool.source}
    >
      {sourceLabel(props.tool)}
    </span>
  );
}

/**
 * The mark of a tool this server cannot run now, with the reason beside it (`compact` keeps the
 * reason in the tooltip and for screen readers only).
 *
 * @example
 * ```tsx
 * {tool.available === false ? <UnavailableMark reason={tool.unavailable_reason} /> : null}
 * ```
 */
export function UnavailableMark(props: { reason: string | undefined; compact?: boolean }) {
  const reason = props.reason ?? 'This server cannot run this tool now.';
  if (props.compact === true) {
    return (
      <span className="unavailable-badge" title={reason} data-testid="unavailable">
        unavailable<span className="visually-hidden">: {reason}</span>
      </span>
    );
  }
  return (
    <p className="unavailable-notice" data-testid="unavailable">
      <span className="unavailable-badge">unavailable</span> {reason}
    </p>
  );
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

/**
 * An agent's source as a badge: `API`, or the name of the configuration file that defines it.
 *
 * @example
 * ```tsx
 * <AgentSourceBadge agent={agent} />
 * ```
 */
export function AgentSourceBadge(props: { agent: Pick<Agent, 'source' | 'origin'> }) {
  const { agent } = props;
  const config = isConfigAgent(agent);
  return (
    <span
      className={`source-badge source-${config ? 'config' : 'api'}`}
      title={config ? `Defined in ${agent.origin ?? 'a configuration file'}.` : 'Created through the REST API.'}
      data-testid="source-badge"
      data-source={agent.source}
    >
      {config ? (agent.origin === null ? 'config' : fileNameOf(agent.origin)) : 'API'}
    </span>
  );
}
