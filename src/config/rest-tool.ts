import { guardedRequest } from '../builtins/web/guarded-request.js';
import { SsrfGuard, type SsrfGuardOptions } from '../builtins/web/ssrf-guard.js';
import { defineTool } from '../core/define-tool.js';
import { isPlainObject, type JsonSchema } from '../core/json-schema.js';
import { ToolResult } from '../core/tool-result.js';
import type { ToolContext, ToolSpec } from '../core/tool-spec.js';
import { type RestToolConfig, restToolRequirements } from './rest-tool-config.js';

/** Options of {@link createRestTool}. */
export interface RestToolOptions {
  /** Overrides for the SSRF guard (tests inject a resolver or exempt a loopback fake). */
  guard?: SsrfGuardOptions;
}

const DEFAULT_TIMEOUT_SECONDS = 10;
const DEFAULT_MAX_RESPONSE_BYTES = 5_000_000;

/**
 * A tool that calls an HTTP API, from a `custom_tools:` entry (SPEC §5.3). The arguments fill the
 * request templates (`"{query}"` keeps the argument's type; `"q={query}"` interpolates; `{name}` in the
 * endpoint path is URL-encoded); without templates, GET and DELETE send the arguments as the query
 * string and other methods as a JSON body. The secret is read from the environment at call time, sent
 * only to the endpoint's origin, and never appears in a result or error. Private, loopback and
 * link-local targets are refused (also after DNS resolution and on every redirect) unless
 * `allow_private_network` is set.
 *
 * @example
 * ```ts
 * const search = createRestTool({
 *   id: 'company_search',
 *   type: 'rest_api',
 *   description: 'Search the company knowledge base.',
 *   endpoint: 'https://api.example.com/search',
 *   method: 'POST',
 *   auth: { type: 'bearer', token_env: 'COMPANY_API_TOKEN' },
 *   parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
 *   request: { body: { query: '{query}' } },
 *   response: { path: 'data.results' },
 * });
 * ```
 */
export function createRestTool(config: RestToolConfig, options: RestToolOptions = {}): ToolSpec {
  const method = config.method ?? 'GET';
  const guard = new SsrfGuard({ allowPrivateNetwork: config.allow_private_network === true, ...options.guard });
  const annotations = config.annotations ?? {};
  return defineTool({
    name: config.id,
    ...(config.title === undefined ? {} : { title: config.title }),
    description: config.description,
    ...(config.when_to_use === undefined ? {} : { whenToUse: config.when_to_use }),
    category: config.category ?? 'api',
    tags: ['rest', ...(config.tags ?? [])],
    inputSchema: config.parameters as JsonSchema,
    timeoutMs: (config.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    requires: { env: restToolRequirements(config) },
    annotations: {
      readOnly: annotations.read_only ?? method === 'GET',
      ...(annotations.destructive === undefined ? {} : { destructive: annotations.destructive }),
      ...(annotations.idempotent === undefined ? {} : { idempotent: annotations.idempotent }),
      openWorld: annotations.open_world ?? true,
    },
    ...(config.requires_approval === undefined ? {} : { requiresApproval: config.requires_approval }),
    ...(config.cli === undefined ? {} : { cli: config.cli }),
    metadata: { restEndpoint: config.endpoint, restMethod: method },
    handler: (args, context) => callApi(config, method, guard, args, context),
  });
}

async function callApi(
  config: RestToolConfig,
  method: string,
  guard: SsrfGuard,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<unknown> {
  const secret = config.auth === undefined ? undefined : secretOf(config, context);
  const redact = (text: string) =>
    secret === undefined || secret === '' ? text : text.split(secret).join('[redacted]');
  const url = new URL(fillPath(config.endpoint, args));
  const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5' };
  for (const [name, template] of Object.entries(config.request?.headers ?? {})) {
    const value = render(template, args);
    if (value !== undefined) headers[name.toLowerCase()] = String(value);
  }
  let body: string | undefined;
  const sendsBody = method !== 'GET' && method !== 'DELETE';
  if (config.request?.query !== undefined) {
    for (const [name, template] of Object.entries(config.request.query)) {
      const value = render(template, args);
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
  } else if (!sendsBody) {
    for (const [name, value] of Object.entries(args)) {
      if (value !== undefined) url.searchParams.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
  }
  if (sendsBody) {
    const payload = config.request?.body === undefined ? args : render(config.request.body, args);
    body = JSON.stringify(payload ?? {});
    headers['content-type'] = 'application/json';
  }
  if (config.auth !== undefined && secret !== undefined) {
    if (config.auth.type === 'bearer') headers.authorization = `Bearer ${secret}`;
    else if (config.auth.type === 'header') headers[config.auth.name.toLowerCase()] = secret;
    else url.searchParams.set(config.auth.name, secret);
  }

  let response: Awaited<ReturnType<typeof guardedRequest>>;
  try {
    response = await guardedRequest({
      url: url.href,
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      maxBytes: config.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      // A custom auth header would follow a redirect to another origin; such APIs get none.
      maxRedirects: config.auth?.type === 'header' ? 0 : 5,
      signal: context.signal,
      guard,
    });
  } catch (error) {
    if (context.signal.aborted) throw error;
    throw new RestToolError(
      redact(`${config.id}: request to ${originOf(config.endpoint)} failed: ${(error as Error).message}`),
    );
  }

  const text = response.body.toString('utf8');
  if (response.status >= 400) {
    const snippet = redact(text.replace(/\s+/g, ' ').trim().slice(0, 300));
    const message = `The API answered ${response.status} ${response.statusText}${snippet === '' ? '' : `: ${snippet}`}`;
    if (response.status === 429)
      return ToolResult.error('RATE_LIMITED', message, { hint: 'Wait a little, then try again.' });
    return ToolResult.error('EXECUTION_FAILED', message, {
      retryable: response.status >= 500,
      details: { status: response.status },
    });
  }
  if (response.truncated) {
    return ToolResult.error(
      'OUTPUT_TOO_LARGE',
      `The API answered with more than ${config.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES} bytes.`,
      { hint: 'Ask for less: narrow the query or request a smaller page.' },
    );
  }
  const type = String(response.headers['content-type'] ?? '');
  let data: unknown = text;
  if (type.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (config.response?.path !== undefined && config.response.path !== '') {
    const picked = pick(data, config.response.path);
    if (picked === undefined) {
      return ToolResult.error('EXECUTION_FAILED', `The API response has no '${config.response.path}'.`, {
        details: { status: response.status },
      });
    }
    data = picked;
  }
  return typeof data === 'string' ? redact(data) : data;
}

/** A REST call that failed before an answer came back (refused target, network error). */
export class RestToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestToolError';
  }
}

function secretOf(config: RestToolConfig, context: ToolContext): string | undefined {
  const auth = config.auth;
  if (auth === undefined) return undefined;
  return context.env[auth.type === 'bearer' ? auth.token_env : auth.value_env];
}

/**
 * Fill a request template from the arguments: a string that is exactly `{name}` becomes the argument
 * itself (numbers stay numbers), other strings interpolate, objects and arrays recurse; a template
 * naming an absent argument is left out.
 */
function render(template: unknown, args: Record<string, unknown>): unknown {
  if (typeof template === 'string') {
    const whole = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(template);
    if (whole !== null) return Object.hasOwn(args, whole[1]!) ? args[whole[1]!] : undefined;
    return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
      if (!Object.hasOwn(args, name)) return '';
      const value = args[name];
      return typeof value === 'string' ? value : JSON.stringify(value);
    });
  }
  if (Array.isArray(template)) return template.map((item) => render(item, args)).filter((item) => item !== undefined);
  if (isPlainObject(template)) {
    const result: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(template)) {
      const rendered = render(value, args);
      if (rendered !== undefined) result[key] = rendered;
    }
    return result;
  }
  return template;
}

function fillPath(endpoint: string, args: Record<string, unknown>): string {
  return endpoint.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (match: string, name: string) =>
    Object.hasOwn(args, name) ? encodeURIComponent(String(args[name])) : match,
  );
}

function pick(data: unknown, path: string): unknown {
  let current = data;
  for (const part of path.split('.').flatMap((segment) => segment.split(/\[(\d+)\]/).filter((piece) => piece !== ''))) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return endpoint;
  }
}
