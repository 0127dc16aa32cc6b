import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Where the service's OAuth protected resource metadata (RFC 9728) is served. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * The RFC 9728 protected resource metadata of the service's MCP endpoints. toolshed names no
 * authorization server: its API tokens are plain bearer tokens, so `authorization_servers` is empty
 * and `toolshed_token` says how to get and send one (clients that look for OAuth find none, and show
 * the 401's own message instead of starting a flow that cannot succeed).
 *
 * @example
 * ```ts
 * protectedResourceMetadata('https://tools.example.com', '/mcp').resource; // 'https://tools.example.com/mcp'
 * ```
 */
export function protectedResourceMetadata(base: string, path = '/mcp'): Record<string, unknown> {
  return {
    resource: `${base}${path}`,
    authorization_servers: [],
    bearer_methods_supported: ['header'],
    resource_name: 'toolshed',
    toolshed_token:
      "toolshed API tokens (tsk_...) are bearer tokens: send 'Authorization: Bearer <token>'. Make one with 'toolshed token create --workspace <id>' or POST /api/tokens.",
  };
}

/**
 * The `WWW-Authenticate` header of a 401 from an MCP endpoint (RFC 6750 §3, RFC 9728 §5.1): the
 * `Bearer` scheme, the metadata URL, and `error="invalid_token"` when a token was sent but refused.
 *
 * @example
 * ```ts
 * wwwAuthenticate('http://127.0.0.1:4319', true);
 * // 'Bearer error="invalid_token", resource_metadata="http://127.0.0.1:4319/.well-known/oauth-protected-resource"'
 * ```
 */
export function wwwAuthenticate(base: string, tokenSent: boolean): string {
  const metadata = `resource_metadata="${base}${PROTECTED_RESOURCE_PATH}"`;
  return tokenSent ? `Bearer error="invalid_token", ${metadata}` : `Bearer ${metadata}`;
}

/**
 * The origin clients reached the service at, from the request (`http://host:port`). A Host header that
 * is not a plain host and port falls back to the socket's address, so nothing a client sends ends up
 * in a header unchecked.
 *
 * @example
 * ```ts
 * requestBase(request); // 'http://127.0.0.1:4319'
 * ```
 */
export function requestBase(request: FastifyRequest): string {
  const host = request.headers.host;
  const protocol = request.protocol === 'https' ? 'https' : 'http';
  if (typeof host === 'string' && /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/.test(host)) {
    return `${protocol}://${host}`;
  }
  const address = request.socket.localAddress ?? '127.0.0.1';
  const shown = address.includes(':') ? `[${address}]` : address;
  return `${protocol}://${shown}:${request.socket.localPort ?? 80}`;
}

/**
 * Serve the protected resource metadata (public, as RFC 9728 requires) at
 * `/.well-known/oauth-protected-resource` — for `/mcp` — and at the path-suffixed form of each MCP
 * endpoint (`/.well-known/oauth-protected-resource/mcp/agents/:agentId`).
 *
 * @example
 * ```ts
 * registerProtectedResourceRoutes(app);
 * ```
 */
export function registerProtectedResourceRoutes(app: FastifyInstance): void {
  const config = { auth: 'none' } as const;
  app.get(PROTECTED_RESOURCE_PATH, { config }, async (request) => protectedResourceMetadata(requestBase(request)));
  app.get(`${PROTECTED_RESOURCE_PATH}/mcp`, { config }, async (request) =>
    protectedResourceMetadata(requestBase(request), '/mcp'),
  );
  app.get<{ Params: { agentId: string } }>(
    `${PROTECTED_RESOURCE_PATH}/mcp/agents/:agentId`,
    { config },
    async (request) =>
      protectedResourceMetadata(requestBase(request), `/mcp/agents/${encodeURIComponent(request.params.agentId)}`),
  );
}
