import type { FastifyRequest } from 'fastify';
import type { TokenIdentity, ToolshedStore } from '../store/index.js';
import { ApiError } from './api-error.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Who a request speaks for: its `Authorization: Bearer <token>` verified against the store, and its
 * `X-Workspace-Id` checked against the token's workspace. No, a malformed, unknown or revoked token is
 * 401 `UNAUTHORIZED`; a workspace header naming another workspace is 403 `FORBIDDEN`. With
 * `requireWorkspaceHeader` (the REST API) a missing header is 400 `VALIDATION_ERROR`; without it (MCP,
 * whose clients often cannot add headers) the token alone picks the workspace.
 *
 * @example
 * ```ts
 * const { workspaceId } = await authenticate(store, request, { requireWorkspaceHeader: true });
 * ```
 */
export async function authenticate(
  store: ToolshedStore,
  request: FastifyRequest,
  options: { requireWorkspaceHeader: boolean },
): Promise<TokenIdentity> {
  const header = request.headers.authorization;
  const token = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
  if (token === undefined) {
    throw new ApiError(401, 'UNAUTHORIZED', 'Send an API token as "Authorization: Bearer <token>".');
  }
  const identity = await store.tokens.verify(token);
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
