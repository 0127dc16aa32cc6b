import { type FormEvent, useEffect, useRef, useState } from 'react';
import { ApiFailure, apiRequest, type Credentials, explainAuthFailure } from './api-client.js';

/**
 * The first screen: the workspace id and API token, checked against the API before they are kept.
 * `message` explains why an earlier session ended (a token revoked meanwhile).
 *
 * @example
 * ```tsx
 * <TokenScreen onAccepted={(credentials) => setCredentials(credentials)} />
 * ```
 */
export function TokenScreen(props: {
  onAccepted(credentials: Credentials): void;
  message?: string | undefined;
  initialWorkspace?: string | undefined;
}) {
  const [workspaceId, setWorkspaceId] = useState(props.initialWorkspace ?? 'default');
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>(props.message);
  const [checking, setChecking] = useState(false);
  const tokenInput = useRef<HTMLInputElement>(null);
  useEffect(() => tokenInput.current?.focus(), []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const credentials = { workspaceId: workspaceId.trim(), token: token.trim() };
    if (credentials.workspaceId === '' || credentials.token === '') {
      setError('Enter both the workspace id and the API token.');
      return;
    }
    setChecking(true);
    setError(undefined);
    try {
      await apiRequest(credentials, '/api/agents');
      props.onAccepted(credentials);
    } catch (failure) {
      setError(failure instanceof ApiFailure ? explainAuthFailure(failure, credentials.workspaceId) : String(failure));
      tokenInput.current?.focus();
    } finally {
      setChecking(false);
    }
  };

  return (
    <main className="token-screen" id="main">
      <form className="card token-card" onSubmit={submit} aria-describedby="token-help" noValidate>
        <h1>toolshed catalog</h1>
        <p id="token-help" className="muted">
          Connect with a workspace API token. <code>toolshed serve</code> prints one the first time it starts;{' '}
          <code>toolshed token create --workspace ID</code> makes more. The token stays in this browser.
        </p>
        <div className="field">
          <label htmlFor="workspace-id">Workspace id</label>
          <input
            id="workspace-id"
            name="workspace"
            autoComplete="off"
            value={workspaceId}
            onChange={(event) => setWorkspaceId(event.target.value)}
            required
          />
        </div>
        <div className="field">
          <label htmlFor="api-token">API token</label>
          <input
            id="api-token"
            name="token"
            type="password"
            autoComplete="off"
            spellCheck={false}
            ref={tokenInput}
            value={token}
            onChange={(event) => setToken(event.target.value)}
            placeholder="tsk_…"
            aria-invalid={error === undefined ? undefined : true}
            aria-describedby={error === undefined ? undefined : 'token-error'}
            required
          />
        </div>
        {error === undefined ? null : (
          <p className="form-error" id="token-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="button button-primary" disabled={checking}>
          {checking ? 'Checking…' : 'Connect'}
        </button>
      </form>
    </main>
  );
}
