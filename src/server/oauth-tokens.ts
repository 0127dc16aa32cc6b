import { createHash } from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { OAuthConfig } from '../config/index.js';
import { ApiError } from './api-error.js';

type Jose = typeof import('jose');

let loadingJose: Promise<Jose> | undefined;

/** jose, loaded by the first token checked: a server without OAuth never loads it (about 50 ms of a start). */
function loadJose(): Promise<Jose> {
  loadingJose ??= import('jose');
  return loadingJose;
}

/** The signature algorithms an access token may use: asymmetric ones only, never `none` or an HMAC. */
export const OAUTH_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/** How far the clocks of the issuer and the service may drift apart when `exp` and `nbf` are checked. */
export const OAUTH_CLOCK_TOLERANCE_SECONDS = 30;

/**
 * Who an accepted OAuth access token speaks for: the workspace (and the agent) its claims map to, and
 * a token id for the call log, sessions and quotas: `oauth.<subject>.<hash>`, the subject (`sub`, or
 * `client_id` when the token has none) shown in the id's alphabet and cut to 40 characters, then 16 hex
 * digits of the SHA-256 of the subject and the token's agent, so two subjects (or a subject's tokens
 * for different agents) never share an id.
 */
export interface OAuthIdentity {
  tokenId: string;
  workspaceId: string;
  /** The agent of the token's agent claim, when the configuration names one and the token carries it. */
  agentId?: string;
}

/**
 * A refused access token: 401 `UNAUTHORIZED` whose message is also the `error_description` of the
 * `WWW-Authenticate: Bearer error="invalid_token"` header.
 *
 * @example
 * ```ts
 * throw new OAuthTokenError('The access token expired at 2026-01-01T00:00:00.000Z.');
 * ```
 */
export class OAuthTokenError extends ApiError {
  constructor(message: string) {
    super(401, 'UNAUTHORIZED', message);
  }
}

/**
 * Checks OAuth 2.1 access tokens (JWTs) of one external authorization server, as
 * {@link createOAuthVerifier} makes it.
 */
export interface OAuthVerifier {
  /** The issuer, as the protected resource metadata names it in `authorization_servers`. */
  readonly issuer: string;
  /**
   * Verify `token` for a request to `resources` (the resource URLs the token's audience may name; the
   * configuration's `audience`, when set, replaces them): the signature against the issuer's JWKS, `iss`,
   * `aud`, `exp` (required), `nbf`, then the workspace claim's mapping. Throws an
   * {@link OAuthTokenError} (401) naming what is wrong, or a 503 `ApiError` when the JWKS cannot be
   * fetched.
   */
  verify(token: string, resources: readonly string[]): Promise<OAuthIdentity>;
}

/** What a JWT looks like: three base64url parts (the signature may be empty, as with `alg: none`). */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Whether `token` has the shape of a JWT (three base64url parts), as opposed to a toolshed API token.
 *
 * @example
 * ```ts
 * looksLikeJwt('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln'); // true
 * looksLikeJwt('tsk_0123'); // false
 * ```
 */
export function looksLikeJwt(token: string): boolean {
  return token.length <= 16_384 && JWT_SHAPE.test(token);
}

/**
 * Make the verifier of access tokens from the authorization server of `config` (`server.oauth` of
 * `toolshed.yaml`). The JWKS is fetched from `jwksUri`, or from the `jwks_uri` of the issuer's
 * metadata (RFC 8414 `/.well-known/oauth-authorization-server`, then OpenID Connect discovery) on the
 * first token; keys are cached and fetched again when a token names an unknown `kid`.
 *
 * @example
 * ```ts
 * const verifier = createOAuthVerifier({
 *   issuer: 'https://auth.example.com',
 *   workspaceClaim: 'org',
 *   workspaces: { 'org-42': 'acme' },
 * });
 * const { workspaceId } = await verifier.verify(accessToken, ['https://tools.example.com/mcp']);
 * ```
 */
export function createOAuthVerifier(config: OAuthConfig, fetchImpl: typeof fetch = fetch): OAuthVerifier {
  let keys: Promise<ReturnType<Jose['createRemoteJWKSet']>> | undefined;
  const jwks = (jose: Jose) => {
    keys ??= jwksUriOf(config, fetchImpl).then(
      (uri) => jose.createRemoteJWKSet(new URL(uri), { timeoutDuration: 5000, cooldownDuration: 30_000 }),
      (error: unknown) => {
        keys = undefined;
        throw error;
      },
    );
    return keys;
  };
  return {
    issuer: config.issuer,
    async verify(token, resources) {
      if (!looksLikeJwt(token)) throw new OAuthTokenError('The access token is not a JWT.');
      const audience = config.audience ?? [...resources];
      let payload: JWTPayload;
      let jose: Jose | undefined;
      try {
        jose = await loadJose();
        const keySet = await jwks(jose);
        ({ payload } = await jose.jwtVerify(token, keySet, {
          issuer: config.issuer,
          audience,
          algorithms: [...OAUTH_ALGORITHMS],
          requiredClaims: ['exp'],
          clockTolerance: OAUTH_CLOCK_TOLERANCE_SECONDS,
        }));
      } catch (error) {
        throw refusal(error, config, audience, jose);
      }
      return identityOf(payload, config);
    },
  };
}

async function jwksUriOf(config: OAuthConfig, fetchImpl: typeof fetch): Promise<string> {
  if (config.jwksUri !== undefined) return config.jwksUri;
  const issuer = config.issuer.replace(/\/$/, '');
  const { origin, pathname } = new URL(issuer);
  const path = pathname === '/' ? '' : pathname;
  const candidates = [
    `${origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer}/.well-known/openid-configuration`,
  ];
  for (const url of candidates) {
    let response: Response;
    try {
      response = await fetchImpl(url, { signal: AbortSignal.timeout(5000), headers: { accept: 'application/json' } });
    } catch (error) {
      throw unavailable(`its metadata at ${url} could not be fetched (${messageOf(error)})`);
    }
    if (!response.ok) continue;
    const metadata = (await response.json().catch(() => undefined)) as { jwks_uri?: unknown } | undefined;
    if (typeof metadata?.jwks_uri === 'string' && /^https?:\/\//.test(metadata.jwks_uri)) return metadata.jwks_uri;
    throw unavailable(`its metadata at ${url} names no jwks_uri; set server.oauth.jwks_uri`);
  }
  throw unavailable(`neither ${candidates.join(' nor ')} answered; set server.oauth.jwks_uri`);
}

function unavailable(reason: string): ApiError {
  return new ApiError(503, 'UNAVAILABLE', `Access tokens cannot be checked now: the authorization server's ${reason}.`);
}

function identityOf(payload: JWTPayload, config: OAuthConfig): OAuthIdentity {
  const claim = payload[config.workspaceClaim];
  if (typeof claim !== 'string' && typeof claim !== 'number') {
    throw new OAuthTokenError(
      `The access token has no '${config.workspaceClaim}' claim (a string), which picks its workspace.`,
    );
  }
  const value = String(claim);
  const workspaceId = Object.hasOwn(config.workspaces, value) ? config.workspaces[value] : undefined;
  if (workspaceId === undefined) {
    throw new OAuthTokenError(
      `The access token's '${config.workspaceClaim}' claim (${JSON.stringify(shorten(value))}) maps to no workspace of this server.`,
    );
  }
  const subject =
    typeof payload.sub === 'string' && payload.sub !== ''
      ? payload.sub
      : typeof payload.client_id === 'string'
        ? payload.client_id
        : undefined;
  if (subject === undefined) {
    throw new OAuthTokenError("The access token has neither a 'sub' nor a 'client_id' claim.");
  }
  let agentId: string | undefined;
  if (config.agentClaim !== undefined) {
    const agent = payload[config.agentClaim];
    if (agent !== undefined) {
      if (typeof agent !== 'string' || agent === '') {
        throw new OAuthTokenError(`The access token's '${config.agentClaim}' claim must be an agent id (a string).`);
      }
      agentId = agent;
    }
  }
  // A subject's tokens bound to an agent are another caller than its unbound ones: sessions never mix them.
  const tokenId = tokenIdOf(subject, agentId);
  return agentId === undefined ? { tokenId, workspaceId } : { tokenId, workspaceId, agentId };
}

function refusal(error: unknown, config: OAuthConfig, audience: readonly string[], jose: Jose | undefined): ApiError {
  if (ApiError.isInstance(error)) return error;
  if (jose === undefined) {
    return new ApiError(
      503,
      'UNAVAILABLE',
      `Access tokens cannot be checked now: the JWT library could not be loaded (${messageOf(error)}).`,
    );
  }
  const { errors } = jose;
  if (error instanceof errors.JWTExpired) {
    const exp = typeof error.payload.exp === 'number' ? ` at ${isoOf(error.payload.exp)}` : '';
    return new OAuthTokenError(`The access token expired${exp}.`);
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    const { claim, payload } = error;
    if (claim === 'nbf') {
      const nbf = typeof payload.nbf === 'number' ? ` before ${isoOf(payload.nbf)}` : ' yet';
      return new OAuthTokenError(`The access token is not valid${nbf}.`);
    }
    if (claim === 'iss') {
      return new OAuthTokenError(
        `The access token was issued by ${JSON.stringify(shorten(String(payload.iss ?? '')))}, not by ${config.issuer}.`,
      );
    }
    if (claim === 'aud') {
      return new OAuthTokenError(
        `The access token's audience is not this resource; request it with resource=${audience[0] ?? ''}.`,
      );
    }
    if (claim === 'exp') return new OAuthTokenError("The access token has no 'exp' claim.");
    return new OAuthTokenError(`The access token's '${claim}' claim is invalid.`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return new OAuthTokenError(
      `The access token's algorithm is not accepted; use one of ${OAUTH_ALGORITHMS.join(', ')}.`,
    );
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed) {
    return new OAuthTokenError(`The access token is not signed by a key of ${config.issuer}.`);
  }
  if (
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError) ||
    // A JWKS answer that was not 200 OK.
    error.constructor === errors.JOSEError
  ) {
    return unavailable(`JWKS could not be fetched (${messageOf(error)})`);
  }
  return new OAuthTokenError('The access token is malformed.');
}

/**
 * The token id of an OAuth subject: `oauth.`, the subject in the store's id alphabet (letters, digits,
 * `_`, `.`, `-`; at most 40 characters), `.`, and 16 hex digits of the SHA-256 of the subject and the
 * agent the token is bound to.
 */
function tokenIdOf(subject: string, agentId: string | undefined): string {
  const shown = subject.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40);
  const bound = agentId === undefined ? subject : `${subject}\nagent:${agentId}`;
  const digest = createHash('sha256').update(bound, 'utf8').digest('hex').slice(0, 16);
  return `oauth.${shown}.${digest}`;
}

function isoOf(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString();
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
