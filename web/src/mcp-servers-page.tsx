import { useState } from 'react';
import { ApiFailure } from './api-client.js';
import type { UpstreamChange, UpstreamServer } from './api-types.js';
import { useApi, useSession } from './session.js';
import { EmptyState, ErrorState, LoadingState } from './states.js';

/**
 * The MCP servers of the served configuration: each one's state (up, down, failed) with since when and
 * why, and the tools whose definition changed since it was approved — quarantined until approved here —
 * each with the diff (`-` as approved, `+` as the server lists it now) and an Approve button.
 *
 * @example
 * ```tsx
 * <McpServersPage />
 * ```
 */
export function McpServersPage() {
  const servers = useApi<{ servers: UpstreamServer[] }>('/api/mcp-servers');
  const [notice, setNotice] = useState<string | undefined>();
  return (
    <>
      <h1 tabIndex={-1}>MCP servers</h1>
      <p className="muted">
        The configuration's <code>mcp_servers</code>. A tool whose description, schemas or annotations changed since it
        was approved is quarantined — not offered to agents, its calls refused — until you approve the change.
      </p>
      {notice === undefined ? null : (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {servers.status === 'loading' ? (
        <LoadingState label="Loading MCP servers" />
      ) : servers.status === 'error' ? (
        <ErrorState error={servers.error} onRetry={servers.reload} title="The MCP servers could not be loaded." />
      ) : servers.data.servers.length === 0 ? (
        <EmptyState title="No MCP servers.">
          This server serves no configuration with <code>mcp_servers</code> to this workspace.
        </EmptyState>
      ) : (
        <ul className="mcp-server-list">
          {servers.data.servers.map((server) => (
            <li key={server.name} className="card">
              <ServerCard
                server={server}
                onApproved={(message) => {
                  setNotice(message);
                  servers.reload();
                }}
              />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

const STATE_LABELS: Record<UpstreamServer['state'], string> = {
  up: 'up',
  down: 'down, reconnecting',
  failed: 'did not start',
  not_connected: 'not served by this process',
};

function ServerCard(props: { server: UpstreamServer; onApproved: (message: string) => void }) {
  const { server } = props;
  return (
    <>
      <h2>
        {server.name}{' '}
        <span className={`status ${server.state === 'up' ? 'status-success' : 'status-error'}`}>
          {STATE_LABELS[server.state]}
        </span>
      </h2>
      <p className="muted">
        {server.since === undefined ? null : <>since {server.since}</>}
        {server.tools === undefined ? null : <> · {server.tools === 1 ? '1 tool' : `${server.tools} tools`}</>}
        {server.reconnects === undefined || server.reconnects === 0 ? null : <> · reconnected {server.reconnects}×</>}
      </p>
      {server.last_error === undefined ? null : <pre className="upstream-error">{server.last_error}</pre>}
      {server.changes.length === 0 ? (
        <p>No changed tools waiting for approval.</p>
      ) : (
        server.changes.map((change) => <ChangeView key={change.tool} change={change} onApproved={props.onApproved} />)
      )}
    </>
  );
}

function ChangeView(props: { change: UpstreamChange; onApproved: (message: string) => void }) {
  const { change } = props;
  const { request } = useSession();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | undefined>();
  // The lines of one diff, in order and never reordered: their position is their identity.
  const lines = change.diff.split('\n').map((text, position) => ({ text, id: `line-${position}` }));
  const approve = async () => {
    setBusy(true);
    setFailure(undefined);
    try {
      await request(`/api/mcp-servers/${encodeURIComponent(change.server)}/approve`, {
        method: 'POST',
        body: { tool: change.tool },
      });
      props.onApproved(`Approved: ${change.server} ${change.tool} is served again.`);
    } catch (error) {
      setFailure(error instanceof ApiFailure ? error : new ApiFailure(0, 'CLIENT', String(error)));
      setBusy(false);
    }
  };
  return (
    <section className="upstream-change" aria-label={`Change of ${change.tool}`}>
      <h3>
        {change.tool} <span className="badge">quarantined</span>
      </h3>
      <p className="muted">
        Changed: {change.changed.join(', ')} · since {change.pending_since} · approved {change.approved_at}
      </p>
      <pre className="diff">
        {lines.map((line) => (
          <span
            key={line.id}
            className={
              line.text.startsWith('+ ') ? 'diff-added' : line.text.startsWith('- ') ? 'diff-removed' : undefined
            }
          >
            {line.text}
            {'\n'}
          </span>
        ))}
      </pre>
      {failure === undefined ? null : <ErrorState error={failure} title="Not approved." />}
      <button type="button" className="button" disabled={busy} onClick={() => void approve()}>
        {busy ? 'Approving…' : `Approve the change of ${change.tool}`}
      </button>
    </section>
  );
}
