import { type FormEvent, type KeyboardEvent, useState } from 'react';
import { ApiFailure, isRecord } from './api-client.js';
import type { Agent, AttachedTool, Tool } from './api-types.js';
import { CopyButton } from './copy-button.js';
import { Link, navigate } from './router.js';
import { useApi, useSession } from './session.js';
import { EmptyState, ErrorState, LoadingState } from './states.js';
import { AgentSourceBadge } from './tool-source.js';
import { isConfigAgent } from './tool-source-labels.js';

/**
 * One agent: how to connect an MCP client to it (its URL and a Claude Desktop snippet), its tools with
 * their per-attachment config (attach with a JSON config, detach), whether it falls back to the
 * workspace's default set, and the system-prompt docs of its tools. An agent made through the API can
 * be renamed, given other tools and deleted here; an agent defined in a configuration file says so and
 * offers none of that: the file is where it changes.
 *
 * @example
 * ```tsx
 * <AgentPage agentId="agt_0123" />
 * ```
 */
export function AgentPage(props: { agentId: string }) {
  const base = `/api/agents/${encodeURIComponent(props.agentId)}`;
  const agent = useApi<Agent>(base);
  const attached = useApi<{ tools: AttachedTool[]; fallback: boolean }>(`${base}/tools`);
  const prompt = useApi<string>(`${base}/prompt`);
  const readOnly = agent.status === 'ready' && isConfigAgent(agent.data);
  const changed = () => {
    attached.reload();
    prompt.reload();
  };

  if (agent.status !== 'ready') {
    return (
      <>
        <p className="breadcrumb">
          <Link to="/agents">Agents</Link> /
        </p>
        <h1 tabIndex={-1}>
          <code>{props.agentId}</code>
        </h1>
        {agent.status === 'loading' ? (
          <LoadingState label="Loading the agent" />
        ) : (
          <ErrorState error={agent.error} onRetry={agent.reload} title="The agent could not be loaded." />
        )}
      </>
    );
  }
  return (
    <>
      <p className="breadcrumb">
        <Link to="/agents">Agents</Link> /
      </p>
      <h1 tabIndex={-1}>{agent.data.name}</h1>
      <p className="tool-meta">
        <code>{agent.data.id}</code> <AgentSourceBadge agent={agent.data} />
      </p>
      {agent.data.description === null ? null : <p>{agent.data.description}</p>}
      {readOnly ? (
        <p className="read-only-notice" data-testid="agent-origin">
          This agent is defined in <code>{agent.data.origin ?? 'a configuration file'}</code>. Its tools and their
          config come from that file: change them there, and the server takes them up when it serves the file again.
        </p>
      ) : null}
      <div className="tool-layout agent-layout">
        <div className="tool-main">
          <section aria-labelledby="agent-tools-heading">
            <h2 id="agent-tools-heading">Tools</h2>
            {attached.status === 'loading' ? (
              <LoadingState label="Loading the agent's tools" />
            ) : attached.status === 'error' ? (
              <ErrorState error={attached.error} onRetry={attached.reload} />
            ) : (
              <AttachedTools agentId={props.agentId} list={attached.data} onChange={changed} readOnly={readOnly} />
            )}
          </section>
          {readOnly ? null : (
            <AttachForm
              agentId={props.agentId}
              attachedIds={
                attached.status === 'ready' && !attached.data.fallback ? attached.data.tools.map((tool) => tool.id) : []
              }
              onAttached={changed}
            />
          )}
          <section aria-labelledby="prompt-heading">
            <h2 id="prompt-heading">System-prompt docs</h2>
            {prompt.status === 'loading' ? (
              <LoadingState label="Loading the prompt docs" />
            ) : prompt.status === 'error' ? (
              <ErrorState error={prompt.error} onRetry={prompt.reload} />
            ) : (
              <>
                <div className="panel-actions">
                  <CopyButton text={prompt.data} label="Copy the system-prompt docs" />
                </div>
                <pre className="code-block prompt-docs" data-testid="prompt-docs">
                  {prompt.data}
                </pre>
              </>
            )}
          </section>
        </div>
        <div className="tool-side">
          <Connect agentId={agent.data.id} />
          {readOnly ? null : (
            <>
              <RenameAgent agent={agent.data} onSaved={agent.reload} />
              <DeleteAgent agentId={agent.data.id} name={agent.data.name} />
            </>
          )}
        </div>
      </div>
    </>
  );
}

function AttachedTools(props: {
  agentId: string;
  list: { tools: AttachedTool[]; fallback: boolean };
  onChange(): void;
  readOnly: boolean;
}) {
  const { request } = useSession();
  const [error, setError] = useState<ApiFailure | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const detach = async (toolId: string) => {
    setBusy(toolId);
    setError(undefined);
    try {
      await request(`/api/agents/${encodeURIComponent(props.agentId)}/tools/${encodeURIComponent(toolId)}`, {
        method: 'DELETE',
      });
      props.onChange();
    } catch (failure) {
      setError(failure instanceof ApiFailure ? failure : new ApiFailure(0, 'CLIENT', String(failure)));
    } finally {
      setBusy(undefined);
    }
  };
  const { tools, fallback } = props.list;
  const actions = !fallback && !props.readOnly;
  return (
    <>
      {fallback ? (
        <p className="notice" data-testid="fallback-notice">
          <strong>Fallback:</strong> no tool was ever attached, so this agent uses the workspace's default set (
          {tools.length} {tools.length === 1 ? 'tool' : 'tools'}).
          {props.readOnly ? '' : ' Attach a tool to give it its own set.'}
        </p>
      ) : (
        <p className="muted" data-testid="attached-count">
          {tools.length} attached {tools.length === 1 ? 'tool' : 'tools'}.
        </p>
      )}
      {error === undefined ? null : <ErrorState error={error} title="Not detached." />}
      {tools.length === 0 ? (
        <EmptyState
          title={
            fallback
              ? "The workspace's default set is empty."
              : 'No tools attached: this agent can use none. Detaching never falls back to the default set.'
          }
        />
      ) : (
        <div className="table-scroll">
          <table className="table" aria-label={fallback ? 'Default tools' : 'Attached tools'}>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Config</th>
                {actions ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {tools.map((tool) => (
                <tr key={tool.id}>
                  <th scope="row">
                    <Link to={`/tools/${encodeURIComponent(tool.id)}`}>{tool.name}</Link> <code>{tool.id}</code>
                  </th>
                  <td>
                    {tool.config === null ? (
                      <span className="muted">none</span>
                    ) : (
                      <code>{JSON.stringify(tool.config)}</code>
                    )}
                  </td>
                  {!actions ? null : (
                    <td>
                      <button
                        type="button"
                        className="button button-small button-danger"
                        onClick={() => detach(tool.id)}
                        disabled={busy === tool.id}
                        aria-label={`Detach ${tool.id}`}
                      >
                        {busy === tool.id ? 'Detaching…' : 'Detach'}
                      </button>
                    </td>
                  )}
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
 * The attachment config as typed: `undefined` for an empty box, the object when it is a JSON object,
 * or the reason it is not.
 */
function parseConfig(text: string): { config?: Record<string, unknown>; error?: string } {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `The config is not valid JSON: ${error instanceof Error ? error.message : String(error)}.` };
  }
  if (!isRecord(value)) {
    const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    return { error: `The config must be a JSON object such as {"precision": 3}, got ${kind}.` };
  }
  return { config: value };
}

function AttachForm(props: { agentId: string; attachedIds: string[]; onAttached(): void }) {
  const { request } = useSession();
  const catalog = useApi<{ tools: Tool[] }>('/api/tools');
  const [toolId, setToolId] = useState('');
  const [configText, setConfigText] = useState('');
  const [touched, setTouched] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | undefined>();
  const [saving, setSaving] = useState(false);
  const parsed = parseConfig(configText);
  const configError = touched ? parsed.error : undefined;
  const available =
    catalog.status === 'ready' ? catalog.data.tools.filter((tool) => !props.attachedIds.includes(tool.id)) : [];

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    setTouched(true);
    setFailure(undefined);
    if (toolId === '') {
      setFailure(new ApiFailure(400, 'VALIDATION_ERROR', 'Choose a tool to attach.', 'tool_id'));
      document.getElementById('attach-tool')?.focus();
      return;
    }
    if (parsed.error !== undefined) {
      document.getElementById('attach-config')?.focus();
      return;
    }
    setSaving(true);
    try {
      await request(`/api/agents/${encodeURIComponent(props.agentId)}/tools`, {
        method: 'POST',
        body: { tool_id: toolId, ...(parsed.config === undefined ? {} : { config: parsed.config }) },
      });
      setToolId('');
      setConfigText('');
      setTouched(false);
      props.onAttached();
    } catch (error) {
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, 'CLIENT', String(error)));
    } finally {
      setSaving(false);
    }
  };
  // Enter adds a line in the config box; Ctrl+Enter (or Cmd+Enter) submits from there too.
  const onConfigKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void submit();
  };

  return (
    <form className="card form" onSubmit={submit} noValidate aria-labelledby="attach-heading">
      <h2 id="attach-heading">Attach a tool</h2>
      <div className="field">
        <label htmlFor="attach-tool">Tool</label>
        <select
          id="attach-tool"
          value={toolId}
          onChange={(event) => setToolId(event.target.value)}
          aria-invalid={failure?.field === 'tool_id' ? true : undefined}
        >
          <option value="">Choose a tool…</option>
          {available.map((tool) => (
            <option key={tool.id} value={tool.id}>
              {tool.name} ({tool.id})
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="attach-config">Config for this agent (JSON object, optional)</label>
        <textarea
          id="attach-config"
          className="json-editor"
          rows={4}
          spellCheck={false}
          value={configText}
          placeholder='{"precision": 3}'
          onChange={(event) => {
            setConfigText(event.target.value);
            setTouched(true);
          }}
          onKeyDown={onConfigKeyDown}
          aria-invalid={configError === undefined ? undefined : true}
          aria-describedby={configError === undefined ? 'attach-config-help' : 'attach-config-error'}
        />
        {configError === undefined ? (
          <p className="field-help" id="attach-config-help">
            Handed to the tool as its config when this agent calls it. Ctrl+Enter attaches.
          </p>
        ) : (
          <p className="field-error" id="attach-config-error" role="alert">
            {configError}
          </p>
        )}
      </div>
      {failure === undefined ? null : <ErrorState error={failure} title="Not attached." />}
      <button type="submit" className="button button-primary" disabled={saving}>
        {saving ? 'Attaching…' : 'Attach tool'}
      </button>
    </form>
  );
}

function Connect(props: { agentId: string }) {
  const url = `${location.origin}/mcp/agents/${encodeURIComponent(props.agentId)}`;
  const snippet = JSON.stringify(
    {
      mcpServers: {
        [`toolshed-${props.agentId}`]: {
          command: 'npx',
          // mcp-remote expands ${VAR} from `env` itself, which keeps the token out of the args.
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder for mcp-remote, not for JavaScript.
          args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${TOOLSHED_AUTH}'],
          env: { TOOLSHED_AUTH: 'Bearer YOUR_WORKSPACE_TOKEN' },
        },
      },
    },
    null,
    2,
  );
  return (
    <section aria-labelledby="connect-heading" className="card">
      <h2 id="connect-heading">Connect over MCP</h2>
      <label htmlFor="mcp-url">MCP URL (Streamable HTTP)</label>
      <div className="copy-row">
        <input id="mcp-url" className="copy-value" readOnly value={url} onFocus={(event) => event.target.select()} />
        <CopyButton text={url} label="Copy the MCP URL" />
      </div>
      <p className="muted">
        Clients send the workspace token as <code>Authorization: Bearer …</code>.
      </p>
      <h3>Claude Desktop</h3>
      <p className="muted">
        Add to <code>claude_desktop_config.json</code> and put your token in <code>TOOLSHED_AUTH</code>:
      </p>
      <div className="panel-actions">
        <CopyButton text={snippet} label="Copy the Claude Desktop config" />
      </div>
      <pre className="code-block" data-testid="claude-config">
        {snippet}
      </pre>
    </section>
  );
}

function RenameAgent(props: { agent: Agent; onSaved(): void }) {
  const { request } = useSession();
  const [name, setName] = useState(props.agent.name);
  const [description, setDescription] = useState(props.agent.description ?? '');
  const [failure, setFailure] = useState<ApiFailure | undefined>();
  const [saving, setSaving] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setFailure(undefined);
    try {
      await request(`/api/agents/${encodeURIComponent(props.agent.id)}`, {
        method: 'PATCH',
        body: { name: name.trim(), description: description.trim() === '' ? null : description.trim() },
      });
      props.onSaved();
    } catch (error) {
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, 'CLIENT', String(error)));
    } finally {
      setSaving(false);
    }
  };
  const nameError = failure?.field === 'name' ? failure.message : undefined;
  return (
    <form className="card form" onSubmit={submit} noValidate aria-labelledby="rename-heading">
      <h2 id="rename-heading">Name and description</h2>
      <div className="field">
        <label htmlFor="rename-name">Name</label>
        <input
          id="rename-name"
          value={name}
          maxLength={200}
          onChange={(event) => setName(event.target.value)}
          aria-invalid={nameError === undefined ? undefined : true}
          aria-describedby={nameError === undefined ? undefined : 'rename-name-error'}
        />
        {nameError === undefined ? null : (
          <p className="field-error" id="rename-name-error" role="alert">
            {nameError}
          </p>
        )}
      </div>
      <div className="field">
        <label htmlFor="rename-description">Description (optional)</label>
        <input id="rename-description" value={description} onChange={(event) => setDescription(event.target.value)} />
      </div>
      {failure !== undefined && failure.field !== 'name' ? <ErrorState error={failure} title="Not saved." /> : null}
      <button type="submit" className="button button-primary" disabled={saving}>
        {saving ? 'Saving…' : 'Save'}
      </button>
    </form>
  );
}

function DeleteAgent(props: { agentId: string; name: string }) {
  const { request } = useSession();
  const [confirming, setConfirming] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | undefined>();
  const remove = async () => {
    try {
      await request(`/api/agents/${encodeURIComponent(props.agentId)}`, { method: 'DELETE' });
      navigate('/agents');
    } catch (error) {
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, 'CLIENT', String(error)));
    }
  };
  return (
    <section aria-labelledby="delete-heading" className="card card-danger">
      <h2 id="delete-heading">Delete</h2>
      {confirming ? (
        <p>
          Delete <strong>{props.name}</strong> and its attachments?{' '}
          <button type="button" className="button button-danger" onClick={remove}>
            Yes, delete
          </button>{' '}
          <button type="button" className="button" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </p>
      ) : (
        <button type="button" className="button button-danger" onClick={() => setConfirming(true)}>
          Delete this agent
        </button>
      )}
      {failure === undefined ? null : <ErrorState error={failure} title="Not deleted." />}
    </section>
  );
}
