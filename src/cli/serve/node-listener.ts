import type { IncomingMessage, ServerResponse } from 'node:http';
import { toWebRequest, writeWebResponse } from '../../mcp/node-http-bridge.js';
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
  return async (incoming, outgoing) => {
    const aborter = new AbortController();
    const onClose = () => {
      if (!outgoing.writableFinished) aborter.abort();
    };
    outgoing.on('close', onClose);
    try {
      let request: Request;
      try {
        request = toWebRequest(incoming, aborter.signal);
      } catch {
        await writeWebResponse(errorResponse(400, 'BAD_REQUEST', 'The HTTP request is malformed.'), outgoing);
        return;
      }
      await writeWebResponse(await app.fetch(request), outgoing);
    } finally {
      outgoing.off('close', onClose);
    }
  };
}
