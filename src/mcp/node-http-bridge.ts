import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/**
 * How {@link writeWebResponse} sends an event stream: when its headers and first chunk leave, when it
 * is ended, and whom it tells.
 *
 * @example
 * ```ts
 * const options: WriteWebResponseOptions = { holdEventStreamHeaders: true, onEnd: (cut) => console.log({ cut }) };
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
  /**
   * After the body's first chunk, wait up to this long for its second, so that both leave in one
   * write (a stream's priming event and a quick answer, say).
   */
  holdFirstChunkMs?: number;
  /** End the body this long after writing began, if it has not ended by itself (the client then reconnects). */
  endAfterMs?: number;
  /**
   * Called once when writing the body stops: `cut` when it stopped before the body's own end (the
   * client went away, or {@link endAfterMs} passed), not when the body ended or failed.
   */
  onEnd?: (cut: boolean) => void;
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
  let ended = false;
  const end = (cut: boolean) => {
    if (ended) return;
    ended = true;
    options.onEnd?.(cut);
  };
  const onClose = () => {
    closed = true;
    end(true);
    reader.cancel().catch(() => {});
  };
  outgoing.on('close', onClose);
  const endTimer =
    options.endAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          closed = true;
          end(true);
          // The body's writer sees it cancelled: what it writes from here is its own business (kept for a replay).
          reader.cancel().catch(() => {});
        }, options.endAfterMs);
  // Writes wait, corked, until the event loop turns: a body that ends at once leaves with its end.
  let corked = false;
  const uncork = () => {
    corked = false;
    outgoing.uncork();
  };
  const write = async (value: Uint8Array) => {
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
  };
  let holdFirst = options.holdFirstChunkMs;
  /** A read started while the first chunk was held, and not yet written. */
  let pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']> | undefined;
  try {
    for (;;) {
      const { done, value } = await (pending ?? reader.read());
      pending = undefined;
      if (done || closed) break;
      if (holdFirst === undefined) {
        await write(value);
        continue;
      }
      const next = reader.read();
      const waited = await withinMs(next, holdFirst);
      holdFirst = undefined;
      if (closed) break;
      await write(value);
      if (waited === undefined) pending = next;
      else if (waited.done) break;
      else await write(waited.value);
    }
  } catch {
    // The body failed or the client went away mid-stream: there is no one left to tell.
  } finally {
    if (headerTimer !== undefined) clearTimeout(headerTimer);
    if (endTimer !== undefined) clearTimeout(endTimer);
    outgoing.off('close', onClose);
    end(false);
    if (!outgoing.writableEnded) outgoing.end();
  }
}

/** What `promise` gives within `ms`, or `undefined` when it takes longer. */
async function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
    ]);
  } finally {
    clearTimeout(timer);
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

/** Where a request made by {@link nodeListener} came from: its body is read from here. */
interface NodeOrigin {
  readonly incoming: IncomingMessage;
  /** Made when first asked for ({@link clientSignal}); most requests never need one. */
  aborter: AbortController | undefined;
  /** The client went away before its answer was written. */
  gone: boolean;
}

const origins = new WeakMap<Request, NodeOrigin>();

/**
 * What {@link nodeListener} hands its handler: the parts of a `Request` a handler of it reads (method,
 * URL, headers, a signal), without the cost of a full one (its own signal and body stream, made per
 * request and never used). The body is read with {@link readRequestText}; code that needs a real
 * `Request` makes one from these parts ({@link withClientSignal}).
 */
class NodeRequest {
  readonly body = null;
  readonly bodyUsed = false;

  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: Headers,
  ) {}

  get signal(): AbortSignal {
    return clientSignal(this as unknown as Request);
  }
}

/**
 * A node:http request listener for a web-standard `fetch` handler: the response streams out
 * (server-sent events included), written as `writeOptionsOf(response)` says. A request that cannot
 * be turned into a `Request` gets `malformed()`.
 *
 * The `Request` it hands to `fetch` carries the method, URL and headers only: its body stays in the
 * node stream, unread, for {@link readRequestText} (no web stream is made for it), and
 * {@link clientSignal} gives a signal that aborts when the client goes away (made only when asked for).
 *
 * @example
 * ```ts
 * createServer(nodeListener(async (request) => new Response(await readRequestText(request, 1024) as string), malformed));
 * ```
 */
export function nodeListener(
  fetch: (request: Request) => Promise<Response>,
  malformed: () => Response,
  writeOptionsOf?: (response: Response) => WriteWebResponseOptions | undefined,
): (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void> {
  return async (incoming, outgoing) => {
    const origin: NodeOrigin = { incoming, aborter: undefined, gone: false };
    const onClose = () => {
      if (outgoing.writableFinished) return;
      origin.gone = true;
      origin.aborter?.abort();
    };
    outgoing.on('close', onClose);
    try {
      let request: Request;
      try {
        const secure = (incoming.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
        const url = requestUrl(incoming.url ?? '/', incoming.headers.host, secure ? 'https' : 'http');
        request = new NodeRequest(incoming.method ?? 'GET', url, headersOf(incoming)) as unknown as Request;
      } catch {
        await writeWebResponse(malformed(), outgoing);
        return;
      }
      origins.set(request, origin);
      const response = await fetch(request);
      // The answer to a POST is awaited by its client: its event stream's headers may wait for the first event.
      // Copied, then given the key: a spread followed by a new key is slow on Node 20 (decision 019).
      const options: WriteWebResponseOptions = Object.assign({}, writeOptionsOf?.(response));
      options.holdEventStreamHeaders = incoming.method === 'POST';
      await writeWebResponse(response, outgoing, options);
    } finally {
      outgoing.off('close', onClose);
    }
  };
}

/**
 * A signal that aborts when the client of `request` goes away: for a request made by
 * {@link nodeListener}, when its connection closes before the answer was written; for any other
 * request, its own `signal`.
 *
 * @example
 * ```ts
 * await registry.call(name, args, { signal: clientSignal(request) });
 * ```
 */
export function clientSignal(request: Request): AbortSignal {
  const origin = origins.get(request);
  if (origin === undefined) return request.signal;
  if (origin.aborter === undefined) {
    origin.aborter = new AbortController();
    if (origin.gone) origin.aborter.abort();
  }
  return origin.aborter.signal;
}

/**
 * `request` as one whose own `signal` aborts when its client goes away ({@link clientSignal}), for
 * code that reads `request.signal`. A request not made by {@link nodeListener} is returned as is.
 *
 * @example
 * ```ts
 * const response = await sdkHandler.fetch(withClientSignal(request));
 * ```
 */
export function withClientSignal(request: Request): Request {
  const origin = origins.get(request);
  if (origin === undefined) return request;
  const live = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    signal: clientSignal(request),
  });
  origins.set(live, origin);
  return live;
}

/**
 * The node:http request `request` was made from by {@link nodeListener}, or `undefined` for any other.
 *
 * @example
 * ```ts
 * const identity = identities.get(incomingOf(request) as IncomingMessage);
 * ```
 */
export function incomingOf(request: Request): IncomingMessage | undefined {
  return origins.get(request)?.incoming;
}

/**
 * The body of `request` as text (UTF-8, a leading byte order mark dropped), read until it ends or
 * grows past `maxBytes` (then `'too large'`, once the rest is dropped by {@link discardRequestBody}, for
 * a request made by {@link nodeListener}; any other's rest is left unread); `'not utf-8'` for bytes that
 * are not UTF-8 (never read with U+FFFD in their place). A request made by {@link nodeListener} is
 * read from its node stream, any other from its `body`.
 *
 * @example
 * ```ts
 * const text = await readRequestText(request, 4 * 1024 * 1024);
 * if (text === 'too large') return new Response('Payload Too Large', { status: 413 });
 * ```
 */
export async function readRequestText(request: Request, maxBytes: number): Promise<string | 'too large' | 'not utf-8'> {
  const declared = Number(request.headers.get('content-length'));
  const origin = origins.get(request);
  if (Number.isFinite(declared) && declared > maxBytes) {
    if (origin !== undefined) await discardRequestBody(origin.incoming);
    return 'too large';
  }
  if (origin !== undefined) return readNodeText(origin.incoming, maxBytes);
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      // Not cancelled: on node:http that would reset the socket before the 413 reaches the client.
      reader.releaseLock();
      return 'too large';
    }
    chunks.push(value);
  }
  return textOf(Buffer.concat(chunks, size));
}

/**
 * How much of a refused body {@link discardRequestBody} reads and drops at most: 64 MiB, for 10 seconds.
 *
 * @example
 * ```ts
 * console.log(DISCARDED_BODY_LIMITS.maxBytes); // 67108864
 * ```
 */
export const DISCARDED_BODY_LIMITS = { maxBytes: 64 * 1024 * 1024, maxMs: 10_000 } as const;

/**
 * Read and drop the rest of a request body that will not be used (it is over the size limit), so that
 * the answer sent after it reaches the client: a server that closes the connection while body bytes
 * are still arriving resets it, and a client that reads its answer only once it has sent its whole
 * request (many do) then sees ECONNRESET or EPIPE instead of the answer. Resolves `true` once the body
 * has ended; `false` when the connection closed first, or the body went on past `limits.maxBytes` more
 * bytes or `limits.maxMs` (the caller then answers with `Connection: close` anyway: an endless body
 * never holds the server).
 *
 * @example
 * ```ts
 * await discardRequestBody(incoming);
 * outgoing.writeHead(413, { connection: 'close' }).end();
 * ```
 */
export function discardRequestBody(
  incoming: IncomingMessage,
  limits: { maxBytes: number; maxMs: number } = DISCARDED_BODY_LIMITS,
): Promise<boolean> {
  if (incoming.readableEnded) return Promise.resolve(true);
  if (incoming.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    let dropped = 0;
    let settled = false;
    const finish = (ended: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onGone);
      incoming.off('close', onGone);
      if (!ended) incoming.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      dropped += chunk.byteLength;
      if (dropped > limits.maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onGone = () => finish(false);
    const timer = setTimeout(onGone, limits.maxMs);
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onGone);
    incoming.on('close', onGone);
    incoming.resume();
  });
}

function readNodeText(incoming: IncomingMessage, maxBytes: number): Promise<string | 'too large' | 'not utf-8'> {
  if (incoming.readableEnded) return Promise.resolve('');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) {
        stop();
        discardRequestBody(incoming).then(() => resolve('too large'));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(textOf(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      reject(new Error('The client closed the connection before the request body ended.'));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

function textOf(bytes: Buffer): string | 'not utf-8' {
  if (!isUtf8(bytes)) return 'not utf-8';
  const text = bytes.toString('utf8');
  // As TextDecoder reads it: a byte order mark is not part of the text.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function headersOf(incoming: IncomingMessage): Headers {
  return new NodeHeaders(incoming.headers) as unknown as Headers;
}

/**
 * A node:http request's headers read as a `Headers` (lower-case names, repeated values joined with
 * `, `, `set-cookie` apart), straight from the object node:http parsed: no copy is made, and a
 * request's headers are not changed. HTTP/2 pseudo-headers (`:path`) are left out, as a `Request`
 * cannot carry them.
 */
class NodeHeaders {
  readonly #raw: IncomingHttpHeaders;

  constructor(raw: IncomingHttpHeaders) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    const key = name.toLowerCase();
    if (key.startsWith(':') || !Object.hasOwn(this.#raw, key)) return null;
    const value = this.#raw[key];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  getSetCookie(): string[] {
    const value = this.#raw['set-cookie'];
    return value === undefined ? [] : [...value];
  }

  *entries(): Generator<[string, string]> {
    for (const key of Object.keys(this.#raw).sort()) {
      const value = this.get(key);
      if (value !== null) yield [key, value];
    }
  }

  *keys(): Generator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): Generator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this as unknown as Headers);
  }

  [Symbol.iterator](): Generator<[string, string]> {
    return this.entries();
  }

  append(name: string): never {
    return immutable(name);
  }

  set(name: string): never {
    return immutable(name);
  }

  delete(name: string): never {
    return immutable(name);
  }
}

function immutable(name: string): never {
  throw new TypeError(
    `The headers of a received request cannot be changed (header '${name}'); copy them with new Headers(headers) first.`,
  );
}
