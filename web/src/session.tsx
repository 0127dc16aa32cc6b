import { createContext, useCallback, useContext, useEffect, useState } from 'react';
import { ApiFailure, apiRequest, type Credentials, type RequestOptions } from './api-client.js';

/** The signed-in workspace and how pages talk to the API. */
export interface Session {
  credentials: Credentials;
  /** {@link apiRequest} with these credentials; a 401 or 403 ends the session with a message. */
  request<T>(path: string, options?: RequestOptions): Promise<T>;
  signOut(message?: string): void;
}

/** The session of the signed-in app; pages render only inside it. */
export const SessionContext = createContext<Session | undefined>(undefined);

/**
 * The current session (pages render only while signed in).
 *
 * @example
 * ```tsx
 * const { request } = useSession();
 * ```
 */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === undefined) throw new Error('useSession needs a SessionContext provider.');
  return session;
}

/** The state of one API read. */
export type Loaded<T> =
  | { status: 'loading'; reload(): void }
  | { status: 'error'; error: ApiFailure; reload(): void }
  | { status: 'ready'; data: T; reload(): void };

/**
 * Read `path` from the API and re-read it when the path changes or `reload()` is called; `null` reads
 * nothing. Stale answers (an earlier path, an unmounted page) are dropped.
 *
 * @example
 * ```tsx
 * const agents = useApi<{ agents: Agent[] }>('/api/agents');
 * if (agents.status === 'ready') console.log(agents.data.agents.length);
 * ```
 */
export function useApi<T>(path: string | null): Loaded<T> {
  const { request } = useSession();
  const [version, setVersion] = useState(0);
  const [state, setState] = useState<
    | { path: string | null; status: 'loading' }
    | { path: string | null; status: 'error'; error: ApiFailure }
    | { path: string | null; status: 'ready'; data: T }
  >({ path, status: 'loading' });
  const reload = useCallback(() => setVersion((value) => value + 1), []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: version is the reload trigger.
  useEffect(() => {
    if (path === null) return;
    const controller = new AbortController();
    request<T>(path, { signal: controller.signal }).then(
      (data) => {
        if (!controller.signal.aborted) setState({ path, status: 'ready', data });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const failure = error instanceof ApiFailure ? error : new ApiFailure(0, 'CLIENT', String(error));
        setState({ path, status: 'error', error: failure });
      },
    );
    return () => controller.abort();
  }, [path, request, version]);
  // A reload keeps showing what was there; another path starts from loading.
  if (state.path !== path || state.status === 'loading') return { status: 'loading', reload };
  if (state.status === 'error') return { status: 'error', error: state.error, reload };
  return { status: 'ready', data: state.data, reload };
}
