import type { FastifyRequest } from 'fastify';
import { StoreValidationError, type TokenIdentity, type ToolshedStore } from '../store/index.js';
import { ApiError } from './api-error.js';
import { looksLikeJwt, OAuthTokenError, type OAuthVerifier } from './oauth-tokens.js';

/**
 * Who a request speaks for: a workspace and a token id (an API token's id, or `oauth:<subject>` for an
 * OAuth access token), and the one agent an OAuth access token is bound to by its agent claim.
 *
 * @example
 * ```ts
 * const identity: RequestIdentity = { tokenId: 'oauth:ci-bot', workspaceId: 'acme', agentId: 'writer' };
 * ```
 */
export interface RequestIdentity extends TokenIdentity {
  /** The only agent the token may use (`/mcp` then serves that agent's view). */
  agentId?: string;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Who a request speaks for: its `Authorization: Bearer <token>` verified against the store (or, with
 * `oauth` and a token shaped like a JWT, against the external authorization server), and its
 * `X-Workspace-Id` checked against the token's workspace. No, a malformed, unknown or revoked token is
 * 401 `UNAUTHORIZED`; a workspace header naming another workspace is 403 `FORBIDDEN`. With
 * `requireWorkspaceHeader` (the REST API) a missing header is 400 `VALIDATION_ERROR`; without it (MCP,
 * whose clients often cannot add headers) the token alone picks the workspace. `oauth.resources` are
 * the resource URLs an access token's audience may name.
 *
 * @example
 * ```ts
 * const { workspaceId } = await authenticate(store, request, { requireWorkspaceHeader: true });
 * ```
 */
export async function authenticate(
  store: ToolshedStore,
  request: FastifyRequest,
  options: {
    requireWorkspaceHeader: boolean;
    oauth?: { verifier: OAuthVerifier; resources: readonly string[] } | undefined;
  },
): Promise<RequestIdentity> {
  const header = request.headers.authorization;
  const token = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
  if (token === undefined) {
    throw new ApiError(401, 'UNAUTHORIZED', 'Send an API token as "Authorization: Bearer <token>".');
  }
  const identity: RequestIdentity | undefined =
    options.oauth !== undefined && looksLikeJwt(token)
      ? await oauthIdentity(store, token, options.oauth)
      : await store.tokens.verify(token);
  if (identity === undefined) {
    throw new ApiError(401, 'UNAUTHORIZED', 'The API token is malformed, unknown or revoked.');
  }
  const workspace = request.headers['x-workspace-id'];
  if (options.requireWorkspaceHeader && (typeof workspace !== 'string' || workspace === '')) {
    throw new ApiError(400, 'VALIDATION_ERROR', 'Send the workspace id in the X-Workspace-Id header.', {
      field: 'X-Workspace-Id',
    });
  }
  if (workspace !== undefined && workspace !== identity.workspaceId) {
    throw new ApiError(403, 'FORBIDDEN', 'The API token does not belong to the workspace in X-Workspace-Id.');
  }
  return identity;
}

/** An access token's identity, once its workspace is known to exist (a mapping may name one that was deleted). */
async function oauthIdentity(
  store: ToolshedStore,
  token: string,
  oauth: { verifier: OAuthVerifier; resources: readonly string[] },
): Promise<RequestIdentity> {
  const identity = await oauth.verifier.verify(token, oauth.resources);
  const workspace = await store.workspaces.get(identity.workspaceId).catch((error: unknown) => {
    if (StoreValidationError.isInstance(error)) return undefined;
    throw error;
  });
  if (workspace === undefined) {
    throw new OAuthTokenError(
      `The access token maps to workspace '${identity.workspaceId}', which this server does not have; the operator's server.oauth.workspaces names it.`,
    );
  }
  return identity;
}
