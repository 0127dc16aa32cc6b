import { useState } from 'react';
import type { Agent, Tool, ToolCall } from './api-types.js';
import { Link } from './router.js';
import { useApi } from './session.js';
import { EmptyState, ErrorState, LoadingState } from './states.js';
import { formatDuration } from './tool-result-view.js';

/** How many recent calls the page reads. */
const CALL_LIMIT = 200;

/**
 * The recent call log (newest first) with status, error code and duration, filterable by agent (on the
 * server) and by tool.
 *
 * @example
 * ```tsx
 * <CallsPage />
 * ```
 */
export function CallsPage() {
  const [agentId, setAgentId] = useState('');
  const [toolId, setToolId] = useState('');
  const agents = useApi<{ agents: Agent[] }>('/api/agents');
  const tools = useApi<{ tools: Tool[] }>('/api/tools');
  const query = new URLSearchParams({ limit: String(CALL_LIMIT) });
  if (agentId !== '') query.set('agent_id', agentId);
  if (toolId !== '') query.set('tool_id', toolId);
  const calls = useApi<{ calls: ToolCall[] }>(`/api/calls?${query}`);
  const shown = calls.status === 'ready' ? calls.data.calls : [];
  // Calls keep the agent's id; names come from the agent list (a deleted agent has none left).
  const agentNames =
    agents.status === 'ready' ? new Map(agents.data.agents.map((agent) => [agent.id, agent.name])) : undefined;

  return (
    <>
      <h1 tabIndex={-1}>Recent calls</h1>
      <form className="filters" onSubmit={(event) => event.preventDefault()} aria-label="Filter calls">
        <div className="field">
          <label htmlFor="calls-agent">Agent</label>
          <select id="calls-agent" value={agentId} onChange={(event) => setAgentId(event.target.value)}>
            <option value="">All agents</option>
            {agents.status === 'ready'
              ? agents.data.agents.map((agent) => (
                  <option key={agent.id} value={agent.id}>
                    {agent.name} ({agent.id})
                  </option>
                ))
              : null}
          </select>
        </div>
        <div className="field">
          <label htmlFor="calls-tool">Tool</label>
          <select id="calls-tool" value={toolId} onChange={(event) => setToolId(event.target.value)}>
            <option value="">All tools</option>
            {tools.status === 'ready'
              ? tools.data.tools.map((tool) => (
                  <option key={tool.id} value={tool.id}>
                    {tool.id}
                  </option>
                ))
              : null}
          </select>
        </div>
        <button type="button" className="button" onClick={calls.reload}>
          Refresh
        </button>
      </form>
      {calls.status === 'loading' ? (
        <LoadingState label="Loading calls" />
      ) : calls.status === 'error' ? (
        <ErrorState error={calls.error} onRetry={calls.reload} title="The call log could not be loaded." />
      ) : shown.length === 0 ? (
        <EmptyState title={agentId === '' && toolId === '' ? 'No calls yet.' : 'No calls match these filters.'}>
          {agentId === '' && toolId === ''
            ? 'Run a tool from its page in the catalog, or connect an agent over MCP.'
            : `Only the last ${CALL_LIMIT} calls are searched.`}
        </EmptyState>
      ) : (
        <div className="table-scroll">
          <table className="table calls-table">
            <caption className="visually-hidden">Recent calls, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Tool</th>
                <th scope="col">Agent</th>
                <th scope="col">Status</th>
                <th scope="col">Error code</th>
                <th scope="col" className="numeric">
                  Duration
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((call) => (
                <tr key={call.id}>
                  <td>
                    <time dateTime={call.created_at}>{new Date(call.created_at).toLocaleString()}</time>
                  </td>
                  <th scope="row">
                    <Link to={`/tools/${encodeURIComponent(call.tool_id)}`}>{call.tool_id}</Link>
                  </th>
                  <td>
                    {call.agent_id === null ? (
                      <span className="muted">none</span>
                    ) : (
                      <AgentCell id={call.agent_id} names={agentNames} />
                    )}
                  </td>
                  <td>
                    <span className={`status status-${call.status}`}>{call.status}</span>
                  </td>
                  <td>{call.error_code === null ? '' : <code>{call.error_code}</code>}</td>
                  <td className="numeric">{formatDuration(call.duration_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/**
 * An agent in the call log: its name, linking to its page (the id while the names load), or its id,
 * greyed, once the agent was deleted.
 */
function AgentCell(props: { id: string; names: ReadonlyMap<string, string> | undefined }) {
  const name = props.names === undefined ? props.id : props.names.get(props.id);
  if (name === undefined) {
    return (
      <span className="muted" title="This agent was deleted.">
        <code>{props.id}</code>
      </span>
    );
  }
  return <Link to={`/agents/${encodeURIComponent(props.id)}`}>{name}</Link>;
}
