import { defineTool } from '../../core/define-tool.js';
import { ToolshedError } from '../../core/errors/toolshed-error.js';
import { isPlainObject, type JsonSchema } from '../../core/json-schema.js';
import { ToolResult } from '../../core/tool-result.js';
import type { ToolAnnotations, ToolContext, ToolSpec } from '../../core/tool-spec.js';
import { injectTraceContext, SpanKind, SpanStatusCode, withSpan } from '../../core/tracing.js';
import { guardedRequest } from './guarded-request.js';
import { authSecretName, authVariable, type RestToolConfig, restToolRequirements } from './rest-tool-config.js';
import { SecretRedactor } from './secret-redactor.js';
import { SsrfGuard, type SsrfGuardOptions } from './ssrf-guard.js';

/**
 * The secrets of the workspace a REST tool belongs to (a tool created through the service API).
 *
 * @example
 * ```ts
 * const secrets: WorkspaceSecrets = { workspaceId: 'acme', reveal: (name) => store.secrets.reveal('acme', name) };
 * ```
 */
export interface WorkspaceSecrets {
  /** The workspace, named in the message about a missing secret. */
  workspaceId: string;
  /** The value of the workspace's secret `name`, or `undefined` when it has none. May throw (no key). */
  reveal(name: string): Promise<string | undefined>;
}

/** Options of {@link createRestTool}. */
export interface RestToolOptions {
  /** Overrides for the SSRF guard (tests inject a resolver or exempt a loopback fake). */
  guard?: SsrfGuardOptions;
  /**
   * Makes the tool a workspace's (created through the service API): `auth.secret` is looked up here at
   * call time, and what only the operator may grant is not honoured — `token_env`/`value_env` (the
   * server's environment) fail the call, `allow_private_network` is ignored, and the tool requires
   * no environment variable. Without it the tool is the operator's (a config file): auth reads the
   * environment and `auth.secret` fails the call.
   */
  workspaceSecrets?: WorkspaceSecrets;
}

const DEFAULT_TIMEOUT_SECONDS = 10;
const DEFAULT_MAX_RESPONSE_BYTES = 5_000_000;

/**
 * The hints of a REST tool: those its definition sets (`annotations`, snake_case), read-only by
 * default for a `GET` (the default method) and open-world by default.
 *
 * @example
 * ```ts
 * restToolAnnotations({ method: 'POST', annotations: { idempotent: true } });
 * // { readOnly: false, idempotent: true, openWorld: true }
 * ```
 */
export function restToolAnnotations(config: Pick<RestToolConfig, 'method' | 'annotations'>): ToolAnnotations {
  const annotations = config.annotations ?? {};
  return {
    readOnly: annotations.read_only ?? (config.method ?? 'GET') === 'GET',
    ...(annotations.destructive === undefined ? {} : { destructive: annotations.destructive }),
    ...(annotations.idempotent === undefined ? {} : { idempotent: annotations.idempotent }),
    openWorld: annotations.open_world ?? true,
  };
}

/**
 * A tool that calls an HTTP API, from a `custom_tools:` entry (SPEC §5.3) or a workspace REST tool.
 * The arguments fill the request templates (`"{query}"` keeps the argument's type; `"q={query}"`
 * interpolates; `{name}` in the endpoint path is URL-encoded); without templates, GET and DELETE send
 * the arguments as the query string and other methods as a JSON body.
 *
 * The auth value is read at call time — from the environment (`token_env`/`value_env`), or for a
 * workspace tool from its workspace's secrets (`secret`, see {@link RestToolOptions.workspaceSecrets}) —
 * sent only to the endpoint's origin, and removed from everything the call returns: JSON bodies
 * (strings, keys, nested arrays), text bodies, error messages, hints, details and HTTP error snippets;
 * for bearer auth the whole `Bearer <value>` too. Private, loopback and link-local targets are refused
 * (also after DNS resolution and on every redirect) unless an operator's tool sets
 * `allow_private_network`.
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
  const workspace = options.workspaceSecrets;
  const guard = new SsrfGuard({
    allowPrivateNetwork: workspace === undefined && config.allow_private_network === true,
    ...options.guard,
  });
  return defineTool({
    name: config.id,
    ...(config.title === undefined ? {} : { title: config.title }),
    description: config.description,
    ...(config.when_to_use === undefined ? {} : { whenToUse: config.when_to_use }),
    ...(config.input_examples === undefined ? {} : { inputExamples: config.input_examples }),
    category: config.category ?? 'api',
    tags: ['rest', ...(config.tags ?? [])],
    inputSchema: config.parameters as JsonSchema,
    timeoutMs: (config.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    // A workspace tool never learns whether the server has a variable set.
    requires: { env: workspace === undefined ? restToolRequirements(config) : [] },
    annotations: restToolAnnotations(config),
    ...(config.requires_approval === undefined ? {} : { requiresApproval: config.requires_approval }),
    ...(config.execution?.task_support === undefined
      ? {}
      : { execution: { taskSupport: config.execution.task_support } }),
    ...(config.cli === undefined ? {} : { cli: config.cli }),
    metadata: { restEndpoint: config.endpoint, restMethod: method },
    handler: async (args, context) => {
      const secret = await authValueOf(config, context, workspace);
      if (ToolResult.isToolResult(secret)) return secret;
      if (secret === undefined) return callApi(config, method, guard, args, context, undefined);
      const redactor = new SecretRedactor(secret, { bearer: config.auth?.type === 'bearer' });
      try {
        return redactor.output(await callApi(config, method, guard, args, context, secret));
      } catch (error) {
        // A message of a failed request may quote the URL (a query secret) or what the server sent.
        throw new RestToolError(redactor.text(error instanceof Error ? error.message : String(error)));
      }
    },
  });
}

/** A REST call that failed before an answer came back (refused target, network error). */
export class RestToolError extends ToolshedError<'REST_REQUEST_FAILED'> {
  constructor(message: string) {
    super('REST_REQUEST_FAILED', message);
    this.name = 'RestToolError';
  }
}

/**
 * The auth value for one call: `undefined` without auth, the value, or the failure to return when it
 * cannot be had (a missing workspace secret, a source the tool may not use).
 */
async function authValueOf(
  config: RestToolConfig,
  context: ToolContext,
  workspace: WorkspaceSecrets | undefined,
): Promise<string | undefined | ToolResult> {
  const auth = config.auth;
  if (auth === undefined) return undefined;
  const variable = authVariable(auth);
  const secretName = authSecretName(auth);
  if (workspace === undefined) {
    if (variable !== undefined) return context.env[variable];
    return ToolResult.error(
      'MISSING_CREDENTIALS',
      `Tool '${config.id}' names the workspace secret '${String(secretName)}', but it is not a workspace tool; workspace secrets exist only for tools created through the service API.`,
      {
        hint: 'In a configuration file, read the value from the environment with token_env (value_env for header and query auth).',
      },
    );
  }
  if (secretName === undefined) {
    return ToolResult.error(
      'MISSING_CREDENTIALS',
      `Tool '${config.id}' reads the server environment variable '${String(variable)}', which only operator config files may use.`,
      {
        hint: `Store the value as a workspace secret with PUT /api/secrets/${String(variable)}, then create the tool again with auth.secret: ${String(variable)}.`,
      },
    );
  }
  let value: string | undefined;
  try {
    value = await workspace.reveal(secretName);
  } catch (error) {
    return ToolResult.error(
      'EXECUTION_FAILED',
      `Tool '${config.id}' cannot read its secret '${secretName}': ${error instanceof Error ? error.message : String(error)}`,
      { hint: 'This is a problem of the server, not of the arguments; tell its operator.' },
    );
  }
  if (value === undefined) {
    return ToolResult.error(
      'MISSING_CREDENTIALS',
      `Tool '${config.id}' needs the workspace secret '${secretName}', which is not set in workspace '${workspace.workspaceId}'.`,
      {
        hint: `Store it with PUT /api/secrets/${secretName} and the body {"value": "..."} (or 'toolshed secret set ${secretName} --workspace ${workspace.workspaceId} --value-stdin'), then call again.`,
        details: { secret: secretName },
      },
    );
  }
  return value;
}

async function callApi(
  config: RestToolConfig,
  method: string,
  guard: SsrfGuard,
  args: Record<string, unknown>,
  context: ToolContext,
  secret: string | undefined,
): Promise<unknown> {
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
    // An HTTP client span, child of the tool's; its URL leaves out the query, which may hold the secret.
    response = await withSpan(
      method,
      {
        'http.request.method': method,
        'url.full': `${url.origin}${url.pathname}`,
        'server.address': url.hostname,
        'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
      },
      async (span) => {
        injectTraceContext(headers);
        const answer = await guardedRequest({
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
        span?.setAttribute('http.response.status_code', answer.status);
        if (answer.status >= 400) {
          span?.setAttribute('error.type', String(answer.status));
          span?.setStatus({ code: SpanStatusCode.ERROR });
        }
        return answer;
      },
      SpanKind.CLIENT,
    );
  } catch (error) {
    if (context.signal.aborted) throw error;
    throw new RestToolError(
      `${config.id}: request to ${originOf(config.endpoint)} failed: ${(error as Error).message}`,
    );
  }

  const text = response.body.toString('utf8');
  if (response.status >= 400) {
    // The caller removes the secret from the snippet; cutting here first could keep a piece of it.
    const snippet = snippetOf(text, secret);
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
  return data;
}

/**
 * The first 300 characters of an error body on one line, with the secret taken out before the text is
 * cut, so no piece of it survives the cut.
 */
function snippetOf(text: string, secret: string | undefined): string {
  const redacted = secret === undefined ? text : new SecretRedactor(secret, { bearer: true }).text(text);
  return redacted.replace(/\s+/g, ' ').trim().slice(0, 300);
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
