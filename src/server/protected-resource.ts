import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Where the service's OAuth protected resource metadata (RFC 9728) is served. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * The RFC 9728 protected resource metadata of the service's MCP endpoints. `authorization_servers`
 * names the external OAuth authorization server of `server.oauth` when one is configured, else none:
 * toolshed's API tokens are plain bearer tokens, and `toolshed_token` says how to get and send one
 * (clients that look for OAuth then find none, and show the 401's own message instead of starting a
 * flow that cannot succeed).
 *
 * @example
 * ```ts
 * protectedResourceMetadata('https://tools.example.com', '/mcp').resource; // 'https://tools.example.com/mcp'
 * protectedResourceMetadata('https://tools.example.com', '/mcp', ['https://auth.example.com']).authorization_servers;
 * // ['https://auth.example.com']
 * ```
 */
export function protectedResourceMetadata(
  base: string,
  path = '/mcp',
  authorizationServers: readonly string[] = [],
): Record<string, unknown> {
  return {
    resource: `${base}${path}`,
    authorization_servers: [...authorizationServers],
    bearer_methods_supported: ['header'],
    resource_name: 'toolshed',
    toolshed_token:
      "toolshed API tokens (tsk_...) are bearer tokens: send 'Authorization: Bearer <token>'. Make one with 'toolshed token create --workspace <id>' or POST /api/tokens.",
  };
}

/**
 * The `WWW-Authenticate` header of a 401 from an MCP endpoint (RFC 6750 §3, RFC 9728 §5.1): the
 * `Bearer` scheme, the metadata URL, and `error="invalid_token"` when a token was sent but refused,
 * with `description` as `error_description` (characters a quoted string cannot carry become `?`).
 *
 * @example
 * ```ts
 * wwwAuthenticate('http://127.0.0.1:4319', true);
 * // 'Bearer error="invalid_token", resource_metadata="http://127.0.0.1:4319/.well-known/oauth-protected-resource"'
 * wwwAuthenticate('http://127.0.0.1:4319', true, 'The access token expired.');
 * // 'Bearer error="invalid_token", error_description="The access token expired.", resource_metadata="..."'
 * ```
 */
export function wwwAuthenticate(base: string, tokenSent: boolean, description?: string): string {
  const metadata = `resource_metadata="${base}${PROTECTED_RESOURCE_PATH}"`;
  if (!tokenSent) return `Bearer ${metadata}`;
  // RFC 6750 §3: error_description is %x20-21 / %x23-5B / %x5D-7E.
  const shown = description?.replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, '?').slice(0, 500);
  return shown === undefined || shown === ''
    ? `Bearer error="invalid_token", ${metadata}`
    : `Bearer error="invalid_token", error_description="${shown}", ${metadata}`;
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
 * endpoint (`/.well-known/oauth-protected-resource/mcp/agents/:agentId`), naming
 * `authorizationServers` (the issuer of `server.oauth`, when configured).
 *
 * With no authorization server, `POST /register` answers an RFC 7591 registration error whose
 * description is toolshed's own: clients such as mcp-remote start OAuth on any 401 even when the
 * metadata names no authorization server, try to register a client at the server's origin, and show
 * what that answered — so a user with a wrong token reads how to send a right one.
 *
 * @example
 * ```ts
 * registerProtectedResourceRoutes(app, ['https://auth.example.com']);
 * ```
 */
export function registerProtectedResourceRoutes(
  app: FastifyInstance,
  authorizationServers: readonly string[] = [],
): void {
  const config = { auth: 'none' } as const;
  const servers = [...authorizationServers];
  app.get(PROTECTED_RESOURCE_PATH, { config }, async (request) =>
    protectedResourceMetadata(requestBase(request), '/mcp', servers),
  );
  app.get(`${PROTECTED_RESOURCE_PATH}/mcp`, { config }, async (request) =>
    protectedResourceMetadata(requestBase(request), '/mcp', servers),
  );
  app.get<{ Params: { agentId: string } }>(
    `${PROTECTED_RESOURCE_PATH}/mcp/agents/:agentId`,
    { config },
    async (request) =>
      protectedResourceMetadata(
        requestBase(request),
        `/mcp/agents/${encodeURIComponent(request.params.agentId)}`,
        servers,
      ),
  );
  if (servers.length === 0) {
    app.post('/register', { config }, async (_request, reply) =>
      reply.code(400).send({ error: 'invalid_client_metadata', error_description: NO_OAUTH_MESSAGE }),
    );
  }
}

/**
 * The `error_description` of `POST /register` when the service has no OAuth authorization server: how
 * to send a toolshed API token instead.
 *
 * @example
 * ```ts
 * NO_OAUTH_MESSAGE.startsWith('toolshed has no OAuth authorization server'); // true
 * ```
 */
export const NO_OAUTH_MESSAGE =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote's ${VAR} syntax, literally.
  "toolshed has no OAuth authorization server: its MCP endpoints take a toolshed API token, and the one sent was missing, malformed, unknown or revoked. Send 'Authorization: Bearer tsk_...' (mcp-remote: --header \"Authorization:${TOOLSHED_AUTH}\" with TOOLSHED_AUTH='Bearer tsk_...' in env). Make a token with 'toolshed token create --workspace <id>' or POST /api/tokens.";
