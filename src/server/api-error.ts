import { closestNames } from '../core/did-you-mean.js';
import { isBranded, ToolshedError } from '../core/errors/toolshed-error.js';
import type { ToolshedStore } from '../store/index.js';
/** The error codes of the REST API, each with its HTTP status. */
export type ApiErrorCode =
  /**
   * 400: the body, a parameter or a header is malformed; `details.field` names it (`path` for a URL
   * with a malformed percent-encoding, or 414 for a path segment over 100 characters).
   */
  | 'VALIDATION_ERROR'
  /** 401: no token, a malformed, unknown or revoked one. */
  | 'UNAUTHORIZED'
  /** 403: a valid token of another workspace than `X-Workspace-Id`. */
  | 'FORBIDDEN'
  /** 404: no such resource in the workspace (another workspace's resources look the same). */
  | 'NOT_FOUND'
  /** 409: the id is taken, or the tool is already attached. */
  | 'ALREADY_EXISTS'
  /** 409: an approval that was already decided, or was given for other arguments. */
  | 'APPROVAL_INVALID'
  /**
   * 409: the tool or agent belongs to the service (a built-in) or to a configuration file (its
   * tools, its agents): the API does not change it. The message names the file to edit;
   * `details.source` and `details.origin` (the file, `null` for built-ins) say the same as data.
   */
  | 'READ_ONLY'
  /** 413: the body is over the limit. */
  | 'PAYLOAD_TOO_LARGE'
  /** 415: the body is not JSON. */
  | 'UNSUPPORTED_MEDIA_TYPE'
  /** 429: the token or workspace is at its limit of calls running at once; retry when one finishes. */
  | 'RATE_LIMITED'
  /** 503: the database is unavailable. */
  | 'UNAVAILABLE'
  /** 500: a bug; the message says nothing about internals. */
  | 'INTERNAL';

/**
 * The body of every error response. A 5xx answer also carries `request_id` (the `X-Request-Id`
 * header every answer has), the id of the server's log line about it.
 */
export interface ApiErrorBody {
  error: { code: ApiErrorCode; message: string; details?: Record<string, unknown>; request_id?: string };
}

const MARKER = Symbol.for('toolshed.ApiError');

/**
 * An error a route throws on purpose; the server's error handler turns it into
 * `{"error": {"code", "message", "details"?}}` with its status.
 *
 * @example
 * ```ts
 * throw new ApiError(400, 'VALIDATION_ERROR', "'tool_id' must be a string.", { field: 'tool_id' });
 * ```
 */
export class ApiError extends ToolshedError<ApiErrorCode> {
  readonly [MARKER] = true;
  override readonly name = 'ApiError';

  constructor(
    readonly statusCode: number,
    code: ApiErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(code, message);
  }

  /** True for an `ApiError`, also one from another copy of the package. */
  static override isInstance(value: unknown): value is ApiError {
    return isBranded(value, MARKER);
  }

  /** The response body. */
  toBody(): ApiErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}

/**
 * A 400 `VALIDATION_ERROR` naming the offending field.
 *
 * @example
 * ```ts
 * throw validationError('limit', "'limit' must be a whole number from 1 to 500.");
 * ```
 */
export function validationError(field: string, message: string): ApiError {
  return new ApiError(400, 'VALIDATION_ERROR', message, { field });
}

/**
 * Refuse a query parameter the route does not take: a 400 `VALIDATION_ERROR` naming it (cut at 80
 * characters), the route's parameters, and the closest one when it looks like a typo. A misspelt
 * filter would otherwise be ignored, and the answer would look filtered when it is not.
 *
 * @example
 * ```ts
 * refuseUnknownQuery(request.query, ['category', 'q']);
 * // ?categroy=math → 400 "Unknown query parameter 'categroy'; did you mean 'category'? Allowed: category, q."
 * ```
 */
export function refuseUnknownQuery(query: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(query)) {
    if (allowed.includes(key)) continue;
    const shown = key.length > 80 ? `${key.slice(0, 79)}…` : key;
    const [closest] = closestNames(key, allowed, 1);
    const hint = closest === undefined ? '' : ` did you mean '${closest}'?`;
    const list = `${hint === '' ? 'allowed' : 'Allowed'}: ${allowed.join(', ')}.`;
    throw validationError(key, `Unknown query parameter '${shown}';${hint} ${list}`);
  }
}

/** A 404 `NOT_FOUND` that says nothing about other workspaces. */
export function notFound(message: string): ApiError {
  return new ApiError(404, 'NOT_FOUND', message);
}

/**
 * A 404 `NOT_FOUND` for a tool id nobody has: `message`, then up to three of `known` closest to `id`
 * as "Did you mean 'x' or 'y'?" (also in `details.did_you_mean`). `known` is what the request could
 * have meant — ids of the request's own workspace, never another's.
 *
 * @example
 * ```ts
 * throw toolNotFound("Tool 'serach' does not exist in this workspace.", 'serach', ['search', 'read_file']);
 * // 404 {"error": {"code": "NOT_FOUND", "message": "Tool 'serach' does not exist in this workspace. Did you mean 'search'?", "details": {"did_you_mean": ["search"]}}}
 * ```
 */
export function toolNotFound(message: string, id: string, known: Iterable<string>): ApiError {
  const closest = closestNames(id, known, 3);
  if (closest.length === 0) return notFound(message);
  const names = closest.map((name) => `'${name}'`).join(' or ');
  return new ApiError(404, 'NOT_FOUND', `${message} Did you mean ${names}?`, { did_you_mean: closest });
}

/**
 * {@link toolNotFound} with the tools `id` could have meant: the ids of the workspace's own tools,
 * read from the store when the answer is a 404 (never on a request that found its tool).
 *
 * @example
 * ```ts
 * if (tool === undefined) throw await workspaceToolNotFound(store, 'acme', "Tool 'serach' does not exist in this workspace.", 'serach');
 * ```
 */
export async function workspaceToolNotFound(
  store: Pick<ToolshedStore, 'tools'>,
  workspaceId: string,
  message: string,
  id: string,
): Promise<ApiError> {
  const known = (await store.tools.list(workspaceId)).map((tool) => tool.id);
  return toolNotFound(message, id, known);
}
