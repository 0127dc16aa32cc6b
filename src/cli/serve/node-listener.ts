import type { IncomingMessage, ServerResponse } from 'node:http';
import { nodeListener } from '../../mcp/node-http-bridge.js';
import type { HttpApp } from './create-http-app.js';
import { errorResponse } from './http-route.js';

/**
 * A node:http request listener for a web-standard app: the request body streams in, the response
 * streams out (server-sent events included), and the request's signal aborts when the client goes
 * away.
 *
 * @example
 * ```ts
 * createServer(toNodeListener(app)).listen(4319, '127.0.0.1');
 * ```
 */
export function toNodeListener(app: HttpApp): (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void> {
  return nodeListener(
    (request) => app.fetch(request),
    () => errorResponse(400, 'BAD_REQUEST', 'The HTTP request is malformed.'),
  );
}
