import { validateHeaderName, validateHeaderValue } from 'node:http';
import { z } from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolResult } from '../../core/tool-result.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { guardedRequest, HttpRequestError } from './guarded-request.js';
import { type HostResolver, SsrfGuard } from './ssrf-guard.js';
import { UrlBlockedError } from './url-blocked-error.js';

/** Options of {@link createFetchUrlTool}. */
export interface FetchUrlOptions {
  /** Let the tool reach loopback, private and link-local addresses (default false: SSRF protection). */
  allowPrivateNetwork?: boolean;
  /** Hosts exempt from the address check (`'127.0.0.1:8080'`); redirects from them are still checked. */
  allowHosts?: readonly string[];
  /** Host name resolver (default: the system's). */
  resolveHost?: HostResolver;
  /** Redirects followed per call (default 5). */
  maxRedirects?: number;
  /** Default of the `max_bytes` argument (default 1 MB). */
  defaultMaxBytes?: number;
  /** Largest `max_bytes` a call may ask for (default 10 MB). */
  maxBytesLimit?: number;
  /** Largest request body, in bytes (default 1 MB). */
  maxRequestBytes?: number;
  /** `User-Agent` sent when the call sets none. */
  userAgent?: string;
}

/** The arguments of `fetch_url`, after defaults. */
export type FetchUrlArgs = {
  url: string;
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  headers?: Record<string, string> | undefined;
  body?: string | undefined;
  timeout: number;
  max_bytes: number;
};

// Headers node:http computes itself or that would let a caller smuggle a second request or change the target.
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-connection',
]);

const TEXT_TYPE =
  /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|ecmascript|x-www-form-urlencoded|yaml|x-yaml|csv|graphql|ld\+json|x-ndjson|rss\+xml|atom\+xml)\b|image\/svg\+xml)/i;

/**
 * The `fetch_url` tool: an HTTP(S) request to a URL the model chooses, behind the {@link SsrfGuard}.
 *
 * Uses node:http/https with the guard's `lookup`, so only public internet addresses are reached
 * (unless `allowPrivateNetwork`): loopback, private, link-local (cloud metadata), carrier-grade NAT,
 * multicast and unspecified addresses are refused in every spelling, before connecting, and every
 * redirect (at most `maxRedirects`, 5) is checked again. Only `http:` and `https:` URLs are fetched.
 * The `timeout` argument (seconds, at most 60) bounds the whole call; the body is cut at `max_bytes`
 * (flagged `truncated`). Text comes back decoded by its charset, anything else as base64.
 *
 * Returns `{url, status, status_text, ok, headers, content_type, content, bytes, truncated}`, plus
 * `encoding: 'base64'` for binary bodies and `redirects` when there were some. An HTTP error status is
 * a successful call (read `status`); a refused URL is `INVALID_ARGUMENTS`; a timeout is `TIMEOUT`.
 *
 * @example
 * ```ts
 * registry.register(createFetchUrlTool());
 * await registry.call('fetch_url', { url: 'https://example.com/', timeout: 10 });
 * await registry.call('fetch_url', { url: 'http://169.254.169.254/latest/meta-data' }); // INVALID_ARGUMENTS
 * ```
 */
export function createFetchUrlTool(options: FetchUrlOptions = {}): ToolSpec<FetchUrlArgs> {
  const guard = new SsrfGuard({
    allowPrivateNetwork: options.allowPrivateNetwork === true,
    ...(options.allowHosts === undefined ? {} : { allowHosts: options.allowHosts }),
    ...(options.resolveHost === undefined ? {} : { resolve: options.resolveHost }),
  });
  const maxBytesLimit = options.maxBytesLimit ?? 10_000_000;
  const defaultMaxBytes = Math.min(options.defaultMaxBytes ?? 1_000_000, maxBytesLimit);
  const maxRequestBytes = options.maxRequestBytes ?? 1_000_000;
  const userAgent = options.userAgent ?? 'toolshed-fetch/0.1 (+https://github.com/toolshed)';

  return defineTool({
    name: 'fetch_url',
    title: 'Fetch URL',
    description: `Fetch a web page or API response over HTTP(S) and return its status, headers and body text (binary bodies as base64). Supports GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS with custom headers and a text body; follows up to ${options.maxRedirects ?? 5} redirects. Only public internet addresses can be reached; the body is cut at max_bytes.`,
    whenToUse:
      'To read a specific URL: a page found by a web search, documentation, or a public JSON API. Search first (serper_search or duckduckgo_search) when you do not know the URL.',
    category: 'web',
    tags: ['http', 'https', 'url', 'fetch', 'download', 'web', 'api', 'request'],
    // Methods other than GET can change remote state.
    annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
    cli: 'fetch',
    // Above the largest `timeout` argument, so the tool's own clearer timeout fires first.
    timeoutMs: 65_000,
    input: z.strictObject({
      url: z.string().min(1).max(8192).describe('The http:// or https:// URL to fetch.'),
      method: z
        .enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
        .default('GET')
        .describe('HTTP method (default GET).'),
      headers: z
        .record(z.string(), z.string())
        .optional()
        .describe('Request headers as name-value pairs, e.g. {"Accept": "application/json"}.'),
      body: z
        .string()
        .optional()
        .describe('Request body text (for POST, PUT, PATCH); set a Content-Type header to match.'),
      timeout: z
        .number()
        .positive()
        .max(60)
        .default(30)
        .describe('Seconds to wait for the whole request, redirects included (default 30, at most 60).'),
      max_bytes: z
        .int()
        .min(1)
        .max(maxBytesLimit)
        .default(defaultMaxBytes)
        .describe(`Cut the response body after this many bytes (default ${defaultMaxBytes}).`),
    }),
    handler: async (args, context) => {
      const headers = checkHeaders(args.headers);
      if (typeof headers === 'string') return ToolResult.error('INVALID_ARGUMENTS', headers);
      if (args.body !== undefined && (args.method === 'GET' || args.method === 'HEAD')) {
        return ToolResult.error('INVALID_ARGUMENTS', `A ${args.method} request cannot have a body.`, {
          hint: "Use method 'POST' (or PUT/PATCH) to send a body.",
        });
      }
      const body = args.body === undefined ? undefined : Buffer.from(args.body, 'utf8');
      if (body !== undefined && body.length > maxRequestBytes) {
        return ToolResult.error(
          'INVALID_ARGUMENTS',
          `The request body is ${body.length} bytes, over the limit of ${maxRequestBytes} bytes.`,
        );
      }
      headers['user-agent'] ??= userAgent;
      headers.accept ??= '*/*';
      headers['accept-encoding'] ??= 'gzip, deflate, br';
      if (body !== undefined) headers['content-type'] ??= 'text/plain; charset=utf-8';

      const deadline = AbortSignal.timeout(Math.round(args.timeout * 1000));
      const signal = AbortSignal.any([context.signal, deadline]);
      try {
        const response = await guardedRequest({
          url: args.url,
          method: args.method,
          headers,
          ...(body === undefined ? {} : { body }),
          maxBytes: args.max_bytes,
          ...(options.maxRedirects === undefined ? {} : { maxRedirects: options.maxRedirects }),
          signal,
          guard,
        });
        const contentType = headerText(response.headers['content-type']);
        const isText = contentType === '' ? !response.body.subarray(0, 1024).includes(0) : TEXT_TYPE.test(contentType);
        const data: Record<string, unknown> = {
          url: response.url,
          status: response.status,
          status_text: response.statusText,
          ok: response.status >= 200 && response.status < 300,
          headers: flattenHeaders(response.headers),
          content_type: contentType,
          content: isText ? decodeText(response.body, contentType) : response.body.toString('base64'),
          bytes: response.body.length,
          truncated: response.truncated,
        };
        if (!isText) data.encoding = 'base64';
        if (response.redirects.length > 0) data.redirects = response.redirects;
        return data;
      } catch (error) {
        if (UrlBlockedError.isInstance(error)) {
          return ToolResult.error('INVALID_ARGUMENTS', error.message, {
            hint: 'fetch_url only reaches public http(s) addresses on the internet.',
            details: { reason: error.reason, ...(error.address === undefined ? {} : { address: error.address }) },
          });
        }
        if (deadline.aborted && !context.signal.aborted) {
          return ToolResult.error('TIMEOUT', `Fetching '${args.url}' did not finish within ${args.timeout} s.`, {
            hint: 'Try again, or pass a larger timeout (at most 60 s).',
          });
        }
        if (error instanceof HttpRequestError) return ToolResult.error('EXECUTION_FAILED', error.message);
        return ToolResult.error('EXECUTION_FAILED', networkMessage(args.url, error), {
          retryable: isTransient(error),
        });
      }
    },
  });
}

/** Lower-cased, validated headers, or the message explaining what is wrong with them. */
function checkHeaders(input: Record<string, string> | undefined): Record<string, string> | string {
  const headers: Record<string, string> = {};
  if (input === undefined) return headers;
  const entries = Object.entries(input);
  if (entries.length > 50) return `Too many headers (${entries.length}); send at most 50.`;
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    try {
      validateHeaderName(name);
    } catch {
      return `The header name '${name}' is not a valid HTTP header name.`;
    }
    if (FORBIDDEN_HEADERS.has(lower)) {
      return `The header '${name}' cannot be set; it is computed from the URL and body.`;
    }
    try {
      validateHeaderValue(name, value);
    } catch {
      return `The value of header '${name}' contains characters not allowed in HTTP headers (such as line breaks).`;
    }
    if (value.length > 8192) return `The value of header '${name}' is longer than 8192 characters.`;
    headers[lower] = value;
  }
  return headers;
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = headerText(value);
  return flat;
}

function decodeText(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function networkMessage(url: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Could not fetch '${url}': the host name was not found.`;
    case 'ECONNREFUSED':
      return `Could not fetch '${url}': the server refused the connection.`;
    case 'ECONNRESET':
    case 'EPIPE':
      return `Could not fetch '${url}': the connection was reset.`;
    case 'ETIMEDOUT':
      return `Could not fetch '${url}': the connection timed out.`;
    default:
      if (typeof code === 'string' && /CERT|SSL|TLS/.test(code)) {
        return `Could not fetch '${url}': the TLS certificate was not accepted (${code}).`;
      }
      return `Could not fetch '${url}': ${(error as Error)?.message ?? String(error)}.`;
  }
}

function isTransient(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === 'EAI_AGAIN' || code === 'EPIPE';
}
