/** What the catalog sends with every API request; kept in localStorage once accepted. */
export interface Credentials {
  workspaceId: string;
  token: string;
}

/** A failed API request: the server's `{"error": {code, message, details}}`, or why there was no answer. */
export class ApiFailure extends Error {
  override readonly name = 'ApiFailure';

  constructor(
    /** The HTTP status; 0 when the server could not be reached. */
    readonly status: number,
    readonly code: string,
    message: string,
    /** `details.field` of a `VALIDATION_ERROR`. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** How a request is sent. */
export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Sent as JSON. */
  body?: unknown;
  signal?: AbortSignal;
}

const STORAGE_KEY = 'toolshed.credentials';

/**
 * Send one REST API request with the workspace's token and return the parsed JSON (a 204 gives
 * `undefined`, a text answer its text). Throws {@link ApiFailure} for an error status or no answer.
 *
 * @example
 * ```ts
 * const { tools } = await apiRequest<{ tools: Tool[] }>(credentials, '/api/tools?q=math');
 * ```
 */
export async function apiRequest<T>(credentials: Credentials, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${credentials.token}`,
    'x-workspace-id': credentials.workspaceId,
  };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiFailure(
      0,
      'NETWORK',
      `Could not reach the toolshed server (${error instanceof Error ? error.message : String(error)}); is toolshed serve still running?`,
    );
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json')) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!response.ok) throw failureOf(response.status, parsed);
  return parsed as T;
}

function failureOf(status: number, body: unknown): ApiFailure {
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  const code = typeof error?.code === 'string' ? error.code : `HTTP_${status}`;
  const message = typeof error?.message === 'string' ? error.message : `The server answered HTTP ${status}.`;
  const field = isRecord(error?.details) && typeof error.details.field === 'string' ? error.details.field : undefined;
  return new ApiFailure(status, code, message, field);
}

/**
 * The sentence the token screen shows for a refused token: 401 (unknown, malformed or revoked) and 403
 * (another workspace's token) each say what to do.
 *
 * @example
 * ```ts
 * explainAuthFailure(new ApiFailure(401, 'UNAUTHORIZED', '...'), 'default');
 * ```
 */
export function explainAuthFailure(failure: ApiFailure, workspaceId: string): string {
  if (failure.status === 401) {
    return 'The token was refused: it is malformed, unknown or revoked. Paste the token that toolshed serve printed on its first start, or make one with: toolshed token create --workspace ID';
  }
  if (failure.status === 403) {
    return `The token is valid but belongs to another workspace than '${workspaceId}'. Check the workspace id.`;
  }
  if (failure.status === 400 && failure.field === 'X-Workspace-Id') return 'Enter the workspace id.';
  return failure.message;
}

/**
 * The credentials saved in this browser, or `undefined`.
 *
 * @example
 * ```ts
 * const saved = loadCredentials();
 * ```
 */
export function loadCredentials(): Credentials | undefined {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null');
    if (isRecord(parsed) && typeof parsed.workspaceId === 'string' && typeof parsed.token === 'string') {
      return { workspaceId: parsed.workspaceId, token: parsed.token };
    }
  } catch {
    // Unreadable storage is the same as none.
  }
  return undefined;
}

/**
 * Save the credentials in this browser (`undefined` forgets them).
 *
 * @example
 * ```ts
 * saveCredentials({ workspaceId: 'default', token });
 * ```
 */
export function saveCredentials(credentials: Credentials | undefined): void {
  try {
    if (credentials === undefined) localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, JSON.stringify(credentials));
  } catch {
    // Private modes may refuse storage; the session still works until the page is closed.
  }
}

/**
 * True for a non-null, non-array object.
 *
 * @example
 * ```ts
 * isRecord({}); // true
 * ```
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
