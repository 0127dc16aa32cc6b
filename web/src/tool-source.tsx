import type { Agent, Tool } from './api-types.js';
import { Link } from './router.js';
import { fileNameOf, isConfigAgent, sourceDescription, sourceLabel } from './tool-source-labels.js';

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
export function UnavailableMark(props: { reason: string | undefined; compact?: boolean; quarantined?: boolean }) {
  const reason = props.reason ?? 'This server cannot run this tool now.';
  const label = props.quarantined === true ? 'quarantined' : 'unavailable';
  if (props.compact === true) {
    return (
      <span className="unavailable-badge" title={reason} data-testid="unavailable">
        {label}
        <span className="visually-hidden">: {reason}</span>
      </span>
    );
  }
  return (
    <p className="unavailable-notice" data-testid="unavailable">
      <span className="unavailable-badge">{label}</span> {reason}
      {props.quarantined === true ? (
        <>
          {' '}
          <Link to="/mcp-servers">Review the change</Link>
        </>
      ) : null}
    </p>
  );
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
