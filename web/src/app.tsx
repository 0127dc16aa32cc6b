import { useCallback, useEffect, useMemo, useState } from 'react';
import { AgentPage } from './agent-page.js';
import { AgentsPage } from './agents-page.js';
import {
  ApiFailure,
  apiRequest,
  type Credentials,
  explainAuthFailure,
  loadCredentials,
  saveCredentials,
} from './api-client.js';
import { CallsPage } from './calls-page.js';
import { CatalogPage } from './catalog-page.js';
import { DefaultToolsPage } from './default-tools-page.js';
import { McpServersPage } from './mcp-servers-page.js';
import { Link, usePath } from './router.js';
import { type Session, SessionContext, useSession } from './session.js';
import { EmptyState } from './states.js';
import { TokenScreen } from './token-screen.js';
import { ToolPage } from './tool-page.js';

/**
 * The catalog app: the token screen until a token is accepted, then the pages (catalog, tool, default
 * tools, agents, agent, calls, MCP servers) under one header.
 *
 * @example
 * ```tsx
 * createRoot(element).render(<App />);
 * ```
 */
export function App() {
  const [credentials, setCredentials] = useState<Credentials | undefined>(loadCredentials);
  const [signOutMessage, setSignOutMessage] = useState<string | undefined>();
  const [lastWorkspace, setLastWorkspace] = useState<string | undefined>(credentials?.workspaceId);

  const signOut = useCallback((message?: string) => {
    saveCredentials(undefined);
    setSignOutMessage(message);
    setCredentials(undefined);
  }, []);

  const session = useMemo<Session | undefined>(() => {
    if (credentials === undefined) return undefined;
    return {
      credentials,
      signOut,
      async request<T>(path: string, options = {}) {
        try {
          return await apiRequest<T>(credentials, path, options);
        } catch (error) {
          if (error instanceof ApiFailure && (error.status === 401 || error.status === 403)) {
            signOut(explainAuthFailure(error, credentials.workspaceId));
          }
          throw error;
        }
      },
    };
  }, [credentials, signOut]);

  if (session === undefined) {
    return (
      <TokenScreen
        message={signOutMessage}
        initialWorkspace={lastWorkspace}
        onAccepted={(accepted) => {
          saveCredentials(accepted);
          setLastWorkspace(accepted.workspaceId);
          setSignOutMessage(undefined);
          setCredentials(accepted);
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Shell />
    </SessionContext.Provider>
  );
}

function Shell() {
  const path = usePath();
  const pathname = path.split('?')[0] ?? '/';
  useEffect(() => {
    // Move focus to the new page's heading, so keyboard and screen-reader users start there.
    if (pathname === '/') return;
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [pathname]);
  const section = pathname.startsWith('/agents')
    ? 'agents'
    : pathname.startsWith('/calls')
      ? 'calls'
      : pathname.startsWith('/default-tools')
        ? 'default-tools'
        : pathname.startsWith('/mcp-servers')
          ? 'mcp-servers'
          : 'catalog';
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          toolshed
        </Link>
        <nav aria-label="Main">
          <Link to="/" current={section === 'catalog'}>
            Catalog
          </Link>
          <Link to="/default-tools" current={section === 'default-tools'}>
            Default tools
          </Link>
          <Link to="/agents" current={section === 'agents'}>
            Agents
          </Link>
          <Link to="/calls" current={section === 'calls'}>
            Calls
          </Link>
          <Link to="/mcp-servers" current={section === 'mcp-servers'}>
            MCP servers
          </Link>
        </nav>
        <SignedIn />
      </header>
      <main id="main" className="page">
        <Route pathname={pathname} />
      </main>
    </>
  );
}

function SignedIn() {
  const { credentials, signOut } = useSession();
  return (
    <div className="signed-in">
      <span className="muted">
        workspace <strong>{credentials.workspaceId}</strong>
      </span>
      <button type="button" className="button button-small" onClick={() => signOut()}>
        Change token
      </button>
    </div>
  );
}

function Route(props: { pathname: string }) {
  const { pathname } = props;
  if (pathname === '/' || pathname === '/index.html') return <CatalogPage />;
  const tool = /^\/tools\/([^/]+)\/?$/.exec(pathname);
  if (tool?.[1] !== undefined) return <ToolPage key={tool[1]} toolId={decodeURIComponent(tool[1])} />;
  if (pathname === '/agents' || pathname === '/agents/') return <AgentsPage />;
  const agent = /^\/agents\/([^/]+)\/?$/.exec(pathname);
  if (agent?.[1] !== undefined) return <AgentPage key={agent[1]} agentId={decodeURIComponent(agent[1])} />;
  if (pathname === '/calls' || pathname === '/calls/') return <CallsPage />;
  if (pathname === '/default-tools' || pathname === '/default-tools/') return <DefaultToolsPage />;
  if (pathname === '/mcp-servers' || pathname === '/mcp-servers/') return <McpServersPage />;
  return (
    <>
      <h1 tabIndex={-1}>Page not found</h1>
      <EmptyState title={`Nothing lives at ${pathname}.`}>
        <Link to="/">Back to the catalog</Link>
      </EmptyState>
    </>
  );
}
