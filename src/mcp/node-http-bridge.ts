import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/**
 * A web-standard `Request` for a node:http request. The body streams from the socket (nothing is read
 * up front), and `signal` should abort when the client goes away.
 *
 * @example
 * ```ts
 * createServer(async (incoming, outgoing) => {
 *   const request = toWebRequest(incoming, new AbortController().signal);
 *   await writeWebResponse(await handle(request), outgoing);
 * });
 * ```
 */
export function toWebRequest(incoming: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [key, value] of Object.entries(incoming.headers)) {
    // HTTP/2 pseudo-headers (`:path`) are not headers a Request may carry.
    if (value === undefined || key.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(key, item);
    else headers.set(key, value);
  }
  const secure = (incoming.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  const url = requestUrl(incoming.url ?? '/', incoming.headers.host, secure ? 'https' : 'http');
  const method = incoming.method ?? 'GET';
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal };
  if (method !== 'GET' && method !== 'HEAD') {
    init.body = Readable.toWeb(incoming) as ReadableStream<Uint8Array>;
    init.duplex = 'half';
  }
  return new Request(url, init);
}

/**
 * How {@link writeWebResponse} sends an event stream's headers.
 *
 * @example
 * ```ts
 * const options: WriteWebResponseOptions = { holdEventStreamHeaders: true };
 * ```
 */
export interface WriteWebResponseOptions {
  /**
   * Send an event stream's headers with its first event instead of at once (at the latest after
   * {@link EVENT_STREAM_HEADER_HOLD_MS}). Right for the answer to a POST, whose client waits for it
   * anyway: a quick answer then leaves in one write (headers, event and end together) instead of
   * three. A standalone stream (GET) needs its headers at once, so it is never held.
   */
  holdEventStreamHeaders?: boolean;
}

/** How long a held event stream's headers wait for its first event before they are sent alone. */
export const EVENT_STREAM_HEADER_HOLD_MS = 50;

/**
 * Write a web-standard `Response` to a node:http response, streaming its body chunk by chunk (so
 * server-sent events reach the client as they are produced) and cancelling the body when the client
 * disconnects. Chunks produced in one turn of the event loop leave in one write.
 *
 * @example
 * ```ts
 * await writeWebResponse(new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } }), outgoing);
 * ```
 */
export async function writeWebResponse(
  response: Response,
  outgoing: ServerResponse,
  options: WriteWebResponseOptions = {},
): Promise<void> {
  outgoing.statusCode = response.status;
  for (const [key, value] of response.headers) {
    if (key !== 'set-cookie') outgoing.setHeader(key, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) outgoing.setHeader('set-cookie', cookies);
  if (response.body === null) {
    outgoing.end();
    return;
  }
  let headerTimer: ReturnType<typeof setTimeout> | undefined;
  // An event stream may stay silent for a while; the client needs the headers now (or soon, when held).
  if (response.headers.get('content-type')?.startsWith('text/event-stream') === true) {
    if (options.holdEventStreamHeaders === true) {
      headerTimer = setTimeout(() => {
        if (!outgoing.headersSent && !outgoing.writableEnded) outgoing.flushHeaders();
      }, EVENT_STREAM_HEADER_HOLD_MS);
    } else {
      outgoing.flushHeaders();
    }
  }
  const reader = response.body.getReader();
  let closed = false;
  const onClose = () => {
    closed = true;
    reader.cancel().catch(() => {});
  };
  outgoing.on('close', onClose);
  // Writes wait, corked, until the event loop turns: a body that ends at once leaves with its end.
  let corked = false;
  const uncork = () => {
    corked = false;
    outgoing.uncork();
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || closed) break;
      if (headerTimer !== undefined) {
        clearTimeout(headerTimer);
        headerTimer = undefined;
      }
      if (!corked) {
        corked = true;
        outgoing.cork();
        setImmediate(uncork);
      }
      if (!outgoing.write(value)) await drained(outgoing);
    }
  } catch {
    // The body failed or the client went away mid-stream: there is no one left to tell.
  } finally {
    if (headerTimer !== undefined) clearTimeout(headerTimer);
    outgoing.off('close', onClose);
    if (!outgoing.writableEnded) outgoing.end();
  }
}

function drained(outgoing: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off('drain', done);
      outgoing.off('close', done);
      resolve();
    };
    outgoing.on('drain', done);
    outgoing.on('close', done);
  });
}

function requestUrl(path: string, host: string | undefined, protocol: string): string {
  // The Host header is checked later; a malformed one must not make the request unparseable first.
  for (const base of [host === undefined ? undefined : `${protocol}://${host}`, `${protocol}://localhost`]) {
    if (base === undefined) continue;
    try {
      const url = new URL(path, base);
      // A Request refuses URLs with credentials (`Host: evil@127.0.0.1`).
      if (url.username === '' && url.password === '') return url.href;
    } catch {
      // Try the next base.
    }
  }
  return `${protocol}://localhost/`;
}

/**
 * A node:http request listener for a web-standard `fetch` handler: the request body streams in, the
 * response streams out (server-sent events included), and the request's signal aborts when the client
 * goes away. A request that cannot be turned into a `Request` gets `malformed()`.
 */
export function nodeListener(
  fetch: (request: Request) => Promise<Response>,
  malformed: () => Response,
): (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void> {
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
        await writeWebResponse(malformed(), outgoing);
        return;
      }
      // The answer to a POST is awaited by its client: its event stream's headers may wait for the first event.
      await writeWebResponse(await fetch(request), outgoing, { holdEventStreamHeaders: incoming.method === 'POST' });
    } finally {
      outgoing.off('close', onClose);
    }
  };
}
