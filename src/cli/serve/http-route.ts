/**
 * One piece of the `toolshed serve` HTTP app: answers the requests it owns with a `Response` and
 * returns `undefined` for the others, so routes compose in order (health, MCP, and later the REST API
 * and the web UI). Web-standard `Request`/`Response`, so a route runs the same under node:http and in
 * tests with `app.fetch(new Request(...))`.
 *
 * @example
 * ```ts
 * const ping: HttpRoute = (request, url) =>
 *   url.pathname === '/ping' ? new Response('pong') : undefined;
 * ```
 */
export type HttpRoute = (request: Request, url: URL) => Response | undefined | Promise<Response | undefined>;

/**
 * The codes of `{"error": {code, message}}` bodies, as in the REST API (SPEC §9.2).
 *
 * - `BAD_REQUEST` — the HTTP request itself is malformed.
 * - `NOT_FOUND` — no route, or no agent with that id.
 * - `METHOD_NOT_ALLOWED` — the route exists but not for this method.
 * - `INTERNAL` — a route failed unexpectedly.
 */
export type HttpErrorCode = 'BAD_REQUEST' | 'NOT_FOUND' | 'METHOD_NOT_ALLOWED' | 'INTERNAL';

/**
 * A JSON response with `status`.
 *
 * @example
 * ```ts
 * jsonResponse(200, { status: 'ok' });
 * ```
 */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

/**
 * An error response in the API's shape: `{"error": {"code", "message"}}`.
 *
 * @example
 * ```ts
 * errorResponse(404, 'NOT_FOUND', "No agent 'x'. Agents: assistant.");
 * ```
 */
export function errorResponse(
  status: number,
  code: HttpErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return jsonResponse(status, { error: { code, message } }, headers);
}
