import { createHash, randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

/**
 * A fake OAuth 2.1 authorization server on loopback, as the MCP authorization spec expects one:
 * RFC 8414 metadata, a JWKS, an authorization endpoint that approves at once (redirecting to the
 * client's `redirect_uri` with a code, as a user who clicks "Allow" would), and a token endpoint for
 * the client_credentials and authorization_code (PKCE S256) grants. Its access tokens are JWTs whose
 * audience is the RFC 8707 `resource` of the request.
 */
export interface FakeAuthorizationServer {
  issuer: string;
  /** The `resource` parameter of each token request, in order. */
  resources: string[];
  sign(claims: JWTPayload, options?: { alg?: string; kid?: string; key?: CryptoKey }): Promise<string>;
  close(): Promise<void>;
}

/** The clients the fake server knows: a secret for the client_credentials grant (none: a public client), and the claims of their tokens. */
export const CLIENTS: Record<string, { secret?: string; claims: JWTPayload }> = {
  'acme-bot': { secret: 'acme-secret', claims: { org: 'org-acme' } },
  'globex-bot': { secret: 'globex-secret', claims: { org: 'org-globex' } },
  'writer-bot': { secret: 'writer-secret', claims: { org: 'org-acme', toolshed_agent: 'writer' } },
  desktop: { claims: { org: 'org-acme' } },
};

interface Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string | null;
}

/** Start the fake server on 127.0.0.1 and a free port. */
export async function startAuthorizationServer(): Promise<FakeAuthorizationServer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
  const resources: string[] = [];
  const codes = new Map<string, Grant>();
  let issuer = '';
  const sign: FakeAuthorizationServer['sign'] = async (claims, options = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: options.alg ?? 'ES256', kid: options.kid ?? 'key-1', typ: 'at+jwt' })
      .sign(options.key ?? privateKey);
  const issue = async (clientId: string, resource: string, respond: (status: number, body: unknown) => void) => {
    resources.push(resource);
    const now = Math.floor(Date.now() / 1000);
    const claims = CLIENTS[clientId]?.claims ?? {};
    const token = await sign({ ...claims, iss: issuer, sub: clientId, aud: resource, iat: now, exp: now + 300 });
    respond(200, { access_token: token, token_type: 'Bearer', expires_in: 300 });
  };
  const server: Server = createHttpServer((request: IncomingMessage, response: ServerResponse) => {
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const url = new URL(request.url ?? '/', issuer);
    if (request.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'client_credentials'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
      });
    }
    if (request.method === 'GET' && url.pathname === '/jwks') return json(200, { keys: [jwk] });
    if (request.method === 'GET' && url.pathname === '/authorize') {
      const clientId = url.searchParams.get('client_id') ?? '';
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      const challenge = url.searchParams.get('code_challenge') ?? '';
      if (CLIENTS[clientId] === undefined || url.searchParams.get('code_challenge_method') !== 'S256') {
        return json(400, { error: 'invalid_request' });
      }
      const code = randomUUID();
      codes.set(code, { clientId, redirectUri, challenge, resource: url.searchParams.get('resource') });
      const target = new URL(redirectUri);
      target.searchParams.set('code', code);
      const state = url.searchParams.get('state');
      if (state !== null) target.searchParams.set('state', state);
      target.searchParams.set('iss', issuer);
      response.writeHead(302, { location: target.toString() }).end();
      return;
    }
    if (request.method === 'POST' && url.pathname === '/token') {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => {
        const form = new URLSearchParams(body);
        const resource = form.get('resource');
        if (form.get('grant_type') === 'authorization_code') {
          const grant = codes.get(form.get('code') ?? '');
          codes.delete(form.get('code') ?? '');
          const verifier = form.get('code_verifier') ?? '';
          const challenge = createHash('sha256').update(verifier).digest('base64url');
          if (
            grant === undefined ||
            grant.challenge !== challenge ||
            grant.redirectUri !== form.get('redirect_uri') ||
            grant.clientId !== form.get('client_id')
          ) {
            return json(400, { error: 'invalid_grant' });
          }
          const target = resource ?? grant.resource;
          if (target === null) return json(400, { error: 'invalid_target' });
          void issue(grant.clientId, target, json);
          return;
        }
        const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
        const [id, secret] = Buffer.from(basic ?? '', 'base64')
          .toString('utf8')
          .split(':')
          .map((part) => decodeURIComponent(part));
        const client = id === undefined ? undefined : CLIENTS[id];
        if (client?.secret === undefined || client.secret !== secret) return json(401, { error: 'invalid_client' });
        if (form.get('grant_type') !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' });
        if (resource === null) return json(400, { error: 'invalid_target' });
        void issue(id as string, resource, json);
      });
      return;
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    resources,
    sign,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
