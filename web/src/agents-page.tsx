import { type FormEvent, useState } from 'react';
import { ApiFailure } from './api-client.js';
import type { Agent } from './api-types.js';
import { Link, navigate } from './router.js';
import { useApi, useSession } from './session.js';
import { EmptyState, ErrorState, LoadingState } from './states.js';
import { AgentSourceBadge } from './tool-source.js';
import { isConfigAgent } from './tool-source-labels.js';

/**
 * The workspace's agents, each with its source (created through the API, or defined in a
 * configuration file), and a form to create one (which then opens the new agent's page).
 *
 * @example
 * ```tsx
 * <AgentsPage />
 * ```
 */
export function AgentsPage() {
  const agents = useApi<{ agents: Agent[] }>('/api/agents');
  return (
    <>
      <h1 tabIndex={-1}>Agents</h1>
      <p className="muted">
        An agent is a named set of tools with per-tool config, served over MCP at <code>/mcp/agents/ID</code>. An agent
        that never had a tool attached uses the workspace's default set. Agents defined in a configuration file are
        changed in that file.
      </p>
      <CreateAgentForm />
      <h2>All agents</h2>
      {agents.status === 'loading' ? (
        <LoadingState label="Loading agents" />
      ) : agents.status === 'error' ? (
        <ErrorState error={agents.error} onRetry={agents.reload} title="The agents could not be loaded." />
      ) : agents.data.agents.length === 0 ? (
        <EmptyState title="No agents yet.">Create one with the form above.</EmptyState>
      ) : (
        <ul className="agent-list" aria-label="Agents">
          {agents.data.agents.map((agent) => (
            <li key={agent.id} className="card">
              <h3>
                <Link to={`/agents/${encodeURIComponent(agent.id)}`}>{agent.name}</Link>
              </h3>
              <p className="tool-meta">
                <code>{agent.id}</code> <AgentSourceBadge agent={agent} />
              </p>
              {agent.description === null ? null : <p>{agent.description}</p>}
              {isConfigAgent(agent) ? (
                <p className="muted" data-testid="agent-origin">
                  defined in <code>{agent.origin ?? 'a configuration file'}</code>
                </p>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function CreateAgentForm() {
  const { request } = useSession();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<ApiFailure | undefined>();
  const [saving, setSaving] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === '') {
      setError(new ApiFailure(400, 'VALIDATION_ERROR', 'Give the agent a name.', 'name'));
      document.getElementById('agent-name')?.focus();
      return;
    }
    setSaving(true);
    setError(undefined);
    try {
      const body = { name: name.trim(), ...(description.trim() === '' ? {} : { description: description.trim() }) };
      const agent = await request<Agent>('/api/agents', { method: 'POST', body });
      navigate(`/agents/${encodeURIComponent(agent.id)}`);
    } catch (failure) {
      setError(failure instanceof ApiFailure ? failure : new ApiFailure(0, 'CLIENT', String(failure)));
      setSaving(false);
    }
  };

  const fieldError = (field: string) => (error?.field === field ? error.message : undefined);
  return (
    <form className="card form" onSubmit={submit} noValidate aria-labelledby="create-agent-heading">
      <h2 id="create-agent-heading">Create an agent</h2>
      <div className="form-row">
        <div className="field">
          <label htmlFor="agent-name">Name</label>
          <input
            id="agent-name"
            value={name}
            maxLength={200}
            onChange={(event) => setName(event.target.value)}
            aria-invalid={fieldError('name') === undefined ? undefined : true}
            aria-describedby={fieldError('name') === undefined ? undefined : 'agent-name-error'}
            required
          />
          {fieldError('name') === undefined ? null : (
            <p className="field-error" id="agent-name-error">
              {fieldError('name')}
            </p>
          )}
        </div>
        <div className="field field-grow">
          <label htmlFor="agent-description">Description (optional)</label>
          <input id="agent-description" value={description} onChange={(event) => setDescription(event.target.value)} />
        </div>
        <button type="submit" className="button button-primary" disabled={saving}>
          {saving ? 'Creating…' : 'Create agent'}
        </button>
      </div>
      {error !== undefined && error.field !== 'name' ? <ErrorState error={error} title="Not created." /> : null}
    </form>
  );
}
