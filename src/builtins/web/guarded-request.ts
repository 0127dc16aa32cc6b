import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ToolshedError } from '../../core/errors/toolshed-error.js';
import type { CheckedUrl, SsrfGuard } from './ssrf-guard.js';

/** A request for {@link guardedRequest}. */
export interface GuardedRequestOptions {
  url: string;
  method: string;
  /** Lower-case header names; validated by the caller. */
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** Stop reading the (decoded) body after this many bytes and report `truncated`. */
  maxBytes: number;
  /** Redirects to follow, each target checked by the guard (default 5). */
  maxRedirects?: number;
  /** Aborts the request (timeouts, cancellation). */
  signal?: AbortSignal;
  guard: SsrfGuard;
}

/** The final response of {@link guardedRequest}. */
export interface GuardedResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** True when the body was cut at `maxBytes`. */
  truncated: boolean;
  /** Every URL redirected to, in order. */
  redirects: string[];
}

/**
 * A request failed for a reason other than the guard (too many redirects, a broken redirect, bad encoding).
 *
 * @example
 * ```ts
 * try {
 *   await guardedRequest(options);
 * } catch (error) {
 *   if (error instanceof HttpRequestError && error.kind === 'too_many_redirects') console.log(error.message);
 * }
 * ```
 */
export class HttpRequestError extends ToolshedError<'HTTP_REQUEST_FAILED'> {
  readonly kind: 'too_many_redirects' | 'bad_redirect' | 'decoding';

  constructor(kind: 'too_many_redirects' | 'bad_redirect' | 'decoding', message: string) {
    super('HTTP_REQUEST_FAILED', message);
    this.name = 'HttpRequestError';
    this.kind = kind;
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Credentials meant for one origin must not follow a redirect to another (what browsers and fetch do).
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * Send an HTTP(S) request with node:http through an {@link SsrfGuard}: the URL and every redirect target
 * are checked (`checkUrl`), host names resolve through the guard's `lookup` (so the checked address is
 * the connected one), redirects are followed by hand up to `maxRedirects`, and the body is read —
 * decompressing gzip, deflate and brotli — up to `maxBytes`.
 *
 * A fresh connection is used per hop (no keep-alive pool that could outlive a check). A 303, or a 301
 * or 302 answering a POST, turns into a GET without body; `authorization`, `cookie` and
 * `proxy-authorization` are dropped when a redirect changes origin.
 * Throws `UrlBlockedError` from the guard, {@link HttpRequestError}, or the network error.
 *
 * @example
 * ```ts
 * const response = await guardedRequest({
 *   url: 'https://example.com/',
 *   method: 'GET',
 *   headers: { accept: 'text/html' },
 *   maxBytes: 1_000_000,
 *   guard: new SsrfGuard(),
 *   signal: AbortSignal.timeout(10_000),
 * });
 * console.log(response.status, response.body.toString('utf8'));
 * ```
 */
export async function guardedRequest(options: GuardedRequestOptions): Promise<GuardedResponse> {
  const maxRedirects = options.maxRedirects ?? 5;
  let checked = options.guard.checkUrl(options.url);
  let method = options.method.toUpperCase();
  let headers = { ...options.headers };
  let body = options.body;
  const redirects: string[] = [];
  for (;;) {
    const hop = await requestOnce(checked, method, headers, body, options.maxBytes, options.signal);
    if (hop.location === undefined) {
      return { url: checked.url.href, ...hop.response, redirects };
    }
    if (redirects.length >= maxRedirects) {
      throw new HttpRequestError(
        'too_many_redirects',
        `Stopped after ${maxRedirects} redirects (the last one, from '${checked.url.href}', pointed to '${hop.location}').`,
      );
    }
    let target: URL;
    try {
      target = new URL(hop.location, checked.url);
    } catch {
      throw new HttpRequestError(
        'bad_redirect',
        `'${checked.url.href}' redirected to '${hop.location}', which is not a valid URL.`,
      );
    }
    const next = options.guard.checkUrl(target, checked.url.href);
    const status = hop.response.status;
    if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      body = undefined;
      headers = withoutHeaders(headers, ['content-type', 'content-length']);
    }
    if (next.url.origin !== checked.url.origin) headers = withoutHeaders(headers, ORIGIN_BOUND_HEADERS);
    redirects.push(next.url.href);
    checked = next;
  }
}

interface Hop {
  response: Omit<GuardedResponse, 'url' | 'redirects'>;
  location: string | undefined;
}

function requestOnce(
  checked: CheckedUrl,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<Hop> {
  const { url } = checked;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Hop>((resolve, reject) => {
    const request = send(
      {
        protocol: url.protocol,
        hostname: checked.hostname,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        lookup: checked.lookup,
        agent: false,
        ...(signal === undefined ? {} : { signal }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        const base = { status, statusText: response.statusMessage ?? '', headers: response.headers };
        if (REDIRECTS.has(status) && typeof location === 'string' && location !== '') {
          response.destroy();
          resolve({ response: { ...base, body: Buffer.alloc(0), truncated: false }, location });
          return;
        }
        const hasBody = method !== 'HEAD' && status !== 204 && status !== 304;
        readBody(response, hasBody, maxBytes).then(
          ({ body: content, truncated }) =>
            resolve({ response: { ...base, body: content, truncated }, location: undefined }),
          reject,
        );
      },
    );
    request.on('error', reject);
    if (body !== undefined) request.end(body);
    else request.end();
  });
}

async function readBody(
  response: IncomingMessage,
  hasBody: boolean,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  if (!hasBody) {
    response.resume();
    return { body: Buffer.alloc(0), truncated: false };
  }
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  let rawBytes = 0;
  response.on('data', (chunk: Buffer) => {
    rawBytes += chunk.length;
  });
  // pipeline forwards errors (an aborted response, a corrupt stream) to the decoder we read from.
  const stream: Readable = decoder === undefined ? response : pipeline(response, decoder, () => undefined);
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (error) {
    // An empty body labelled gzip is "unexpected end of file" to zlib; it is just empty.
    if (decoder !== undefined && rawBytes === 0 && response.complete) return { body: Buffer.alloc(0), truncated };
    if (decoder !== undefined && response.complete) {
      throw new HttpRequestError(
        'decoding',
        `The response body could not be decoded as ${encoding}: ${(error as Error).message}.`,
      );
    }
    throw error;
  } finally {
    if (truncated || !response.complete) response.destroy();
  }
  return { body: Buffer.concat(chunks, size), truncated };
}

function withoutHeaders(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!names.includes(name)) kept[name] = value;
  return kept;
}
