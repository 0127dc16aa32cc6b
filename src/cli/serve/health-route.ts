import { errorResponse, type HttpRoute, jsonResponse } from './http-route.js';

/** The body of `GET /health`. */
export interface HealthJson {
  status: 'ok';
  /** How many tools the server serves at `/mcp`. */
  tools: number;
}

/**
 * `GET /health` (and `HEAD`): `{"status": "ok", "tools": N}` with 200, for load balancers and
 * readiness probes. `countTools` is read on every request, so the count follows registry changes.
 *
 * @example
 * ```ts
 * const health = createHealthRoute(() => registry.size);
 * ```
 */
export function createHealthRoute(countTools: () => number): HttpRoute {
  return (request, url) => {
    if (url.pathname !== '/health') return undefined;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return errorResponse(405, 'METHOD_NOT_ALLOWED', `Use GET for /health, not ${request.method}.`, {
        allow: 'GET, HEAD',
      });
    }
    return jsonResponse(200, { status: 'ok', tools: countTools() } satisfies HealthJson);
  };
}
