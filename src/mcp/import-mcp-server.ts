import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  InvalidClientError,
  OAuthError,
  UnauthorizedClientError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  ElicitRequestSchema,
  type ElicitResult,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  type Progress,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ContentBlock } from '../core/content-block.js';
import { defineTool } from '../core/define-tool.js';
import { CallerCapabilityError } from '../core/errors/caller-capability-error.js';
import { ToolshedError } from '../core/errors/toolshed-error.js';
import { isPlainObject, type JsonSchema } from '../core/json-schema.js';
import { ToolResult } from '../core/tool-result.js';
import type { SamplingRequest, ToolContext, ToolSpec } from '../core/tool-spec.js';
import { injectTraceContext, SpanKind, withSpan } from '../core/tracing.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { mcpToolName } from './mcp-tool-name.js';
import { changedFields, pinnedDefinition, quarantineMessage, type UpstreamPins } from './upstream-pins.js';

/** An MCP server to import tools from: a command to spawn (stdio) or a Streamable HTTP URL. */
export interface McpServerConfig {
  /** Short name; tools register as `NAME__tool`. */
  name: string;
  command?: string;
  args?: string[];
  /** Extra environment for a spawned server (added to a minimal safe default environment). */
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  /** HTTP headers whose values come from environment variables: `{ Authorization: 'GITHUB_TOKEN' }`. */
  headersEnv?: Record<string, string>;
  /**
   * OAuth 2.0 client credentials for an HTTP server that wants a bearer token (see {@link McpServerOAuth}):
   * the token is fetched before the first request and fetched again when the server answers 401.
   */
  oauth?: McpServerOAuth;
  /**
   * Timeout in milliseconds of the server's `initialize` handshake and of each imported tool's calls
   * (calls default to the registry's timeout, the handshake to 30 s).
   */
  timeoutMs?: number;
}

/**
 * The OAuth 2.0 client credentials grant for an HTTP MCP server. The server names its authorization
 * server in its protected-resource metadata (RFC 9728), whose own metadata (RFC 8414) gives the token
 * endpoint; the credentials are sent there only if that authorization server is `issuer`. The id and
 * the secret come from environment variables, never from the file.
 *
 * @example
 * ```ts
 * const oauth: McpServerOAuth = {
 *   issuer: 'https://auth.example.com',
 *   clientIdEnv: 'CRM_CLIENT_ID',
 *   clientSecretEnv: 'CRM_CLIENT_SECRET',
 *   scope: 'tools:call',
 * };
 * ```
 */
export interface McpServerOAuth {
  /** The authorization server's issuer URL, as its metadata states it. */
  issuer: string;
  /** The variable that holds the client id. */
  clientIdEnv: string;
  /** The variable that holds the client secret. */
  clientSecretEnv: string;
  /** The scopes to ask for, space-separated (default: those the server's metadata lists). */
  scope?: string;
}

/** A live import: the registered names, and ways to refresh or end it. */
export interface McpServerConnection {
  readonly name: string;
  /** Canonical names of the imported tools, sorted. */
  readonly tools: readonly string[];
  /** `up` while connected; `down` while the server is gone (or, with `retryStart`, not up yet) and a try is pending. */
  readonly state: 'up' | 'down' | 'closed';
  /** Why the server is down (with the tail of its stderr), while it is. */
  readonly lastError: string | undefined;
  /** The PID of the spawned server (stdio), while it runs. */
  readonly pid: number | undefined;
  /** When the connection last came up or went down (ISO-8601). */
  readonly since: string;
  /** How many times the server was connected again after it was lost. */
  readonly reconnects: number;
  /** Re-read the server's tool list and update the registry (also done on `list_changed`). */
  refresh(): Promise<void>;
  /** Unregister the tools and disconnect. */
  close(): Promise<void>;
}

/**
 * How an `mcp_servers:` entry is doing, as `/health` and `GET /api/mcp-servers` show it: `up`, `down`
 * (lost, being reconnected) or `failed` (did not come up at start; not retried until a reload).
 *
 * @example
 * ```ts
 * const status: McpServerStatus = { name: 'memory', state: 'up', since: '2026-01-05T10:00:00.000Z', tools: 9, reconnects: 0 };
 * ```
 */
export interface McpServerStatus {
  name: string;
  state: 'up' | 'down' | 'failed';
  /** When it entered that state (ISO-8601). */
  since: string;
  /** Why it is down or failed (secrets redacted). */
  lastError?: string;
  /** How many tools it lists. */
  tools: number;
  /** How many times it was connected again after it was lost. */
  reconnects: number;
}

/** Options of {@link importMcpServer}. */
export interface ImportMcpServerOptions {
  /** Environment for `headersEnv` (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Where a spawned server's stderr goes besides the tail toolshed keeps for its error messages
   * (default `'ignore'`: only kept).
   */
  stderr?: 'inherit' | 'ignore';
  /** A transport to use instead of the one the config describes (tests, custom transports; no reconnection). */
  transport?: Transport;
  /**
   * Reconnect after the server crashes or drops the connection (default true for servers the config
   * describes): waits `initialDelayMs` (default 250), doubling after each failed attempt up to
   * `maxDelayMs` (default 30 000). `false` leaves a lost server down.
   */
  reconnect?: boolean | { initialDelayMs?: number; maxDelayMs?: number };
  /**
   * Keep trying a server that does not come up at first (default false: the import fails). The
   * connection is then returned `down`, with the first attempt's error as its `lastError`, and tried
   * again with the `reconnect` backoff until it comes up; its tools are registered then. Needs
   * `reconnect` (a given `transport` is never tried again).
   */
  retryStart?: boolean;
  /** Told when the server goes down (with why) and when it is back, or up for the first time. */
  onStateChange?: (state: 'up' | 'down', message: string) => void;
  /**
   * Pin each tool's definition when first seen (see {@link UpstreamPins}): a tool whose definition
   * later differs from its pin stays registered but quarantined — `metadata.mcpQuarantine` names what
   * changed, MCP tool lists leave it out, its calls are refused (`DISABLED`) — until the change is
   * approved. Without it nothing is pinned.
   */
  pins?: UpstreamPins;
  /**
   * Told of each log message (`notifications/message`) the server sends, at `info` and above (asked
   * with `logging/setLevel` of a server that declares logging): its level, its logger and its data as
   * text (at most 2 000 characters, the server's secrets redacted). Without it they are dropped.
   */
  onLog?: (entry: McpServerLogEntry) => void;
}

/**
 * A log message an imported MCP server sent, as {@link ImportMcpServerOptions.onLog} gets it.
 *
 * @example
 * ```ts
 * const entry: McpServerLogEntry = { level: 'warning', logger: 'index', message: 'the cache is full' };
 * ```
 */
export interface McpServerLogEntry {
  level: string;
  logger?: string;
  message: string;
}

/** The lowest level of the log messages toolshed asks a server for. */
const UPSTREAM_LOG_LEVEL = 'info';

/** How long a call aborted while its upstream task was being created waits for the task's id, to cancel it. */
const TASK_CREATION_GRACE_MS = 10_000;

/** Default bound of the `initialize` handshake when the entry sets no timeout. */
const DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000;

/**
 * Connect to an MCP server and register its tools in `registry` as `NAME__tool`, with the same
 * dispatch guarantees as local tools: arguments validated against the server's schema, timeouts that
 * cancel the remote request, errors (including a server that dies mid-call) returned as results. The
 * tools stay in sync when the server sends `notifications/tools/list_changed`. Their definitions are
 * served again as they came: schemas with their `$schema`, annotations, and `execution`, `icons` and
 * `_meta` (kept in `metadata.mcpUpstream`).
 *
 * The entry's timeout bounds the `initialize` handshake; a server that does not come up is killed
 * and the error names it and quotes the tail of its stderr. A server lost later is reconnected with
 * backoff; meanwhile its tools stay registered, marked `metadata.mcpUnavailable` (left out of MCP
 * tool lists), and answer `UPSTREAM_UNAVAILABLE` (retryable while a reconnection is pending). An HTTP
 * server is lost when it cannot be reached or forgets the session (HTTP 404), noticed when its event
 * stream drops, not only at the next call.
 *
 * The server's sampling and elicitation requests made during a call go to that call's client
 * (`ctx.sample`, `ctx.elicit`); a client that cannot answer them gets a tool error saying so.
 *
 * @example
 * ```ts
 * const everything = await importMcpServer(registry, {
 *   name: 'everything',
 *   command: 'npx',
 *   args: ['@modelcontextprotocol/server-everything'],
 * });
 * await registry.call('everything__echo', { message: 'hi' });
 * ```
 */
export async function importMcpServer(
  registry: ToolRegistry,
  config: McpServerConfig,
  options: ImportMcpServerOptions = {},
): Promise<McpServerConnection> {
  let client: Client;
  let state: 'up' | 'down' | 'closed' = 'down';
  let lastError: string | undefined;
  let since = new Date().toISOString();
  let reconnects = 0;
  let names: string[] = [];
  let tools: Tool[] = [];
  let retry: NodeJS.Timeout | undefined;
  let current: Upstream | undefined;
  /** Quarantined tools (by their upstream name): the pinned fields their definition changed. */
  let quarantine = new Map<string, string[]>();
  const reconnect = options.transport === undefined ? (options.reconnect ?? true) : false;
  const backoff = typeof reconnect === 'object' ? reconnect : {};
  const initialDelay = backoff.initialDelayMs ?? 250;
  // The server's secrets (its env values, its header values) never reach a message, a log or a client.
  const redact = redactor(secretValues(config, options.env ?? process.env));
  const maxDelay = backoff.maxDelayMs ?? 30_000;

  /** The calls under way, each with what the server asked of its caller that the caller could not give. */
  const inFlight = new Map<ToolContext, { refused?: string }>();

  /**
   * The call a request of the server (sampling, elicitation) belongs to: the one call under way. A
   * request carries no link to the call that caused it, so with several under way it is refused
   * rather than put to a caller it may not belong to.
   */
  const askingCall = (what: string): { context: ToolContext; refusals: { refused?: string } } => {
    const [only] = inFlight;
    if (inFlight.size === 1 && only !== undefined) return { context: only[0], refusals: only[1] };
    throw refusal(
      inFlight.size === 0
        ? `toolshed has no call under way to MCP server '${config.name}' to pass ${what} to.`
        : `toolshed has ${inFlight.size} calls under way to MCP server '${config.name}' and cannot tell which one ${what} belongs to; ask again when one is running.`,
    );
  };

  /** Put a request of the server to the calling client; a caller that cannot answer it is noted, then refused. */
  const askCaller = async <T>(what: string, ask: (context: ToolContext) => Promise<T>): Promise<T> => {
    const { context, refusals } = askingCall(what);
    try {
      return await ask(context);
    } catch (error) {
      if (error instanceof CallerCapabilityError) {
        refusals.refused = what;
        throw refusal(`The client calling '${context.tool}' through toolshed does not support ${what}.`);
      }
      throw error;
    }
  };

  /**
   * A call of a tool the server runs only as a task: the task is created, polled at the interval the
   * server asks for, and its result taken; a call aborted meanwhile (timeout, the caller's
   * cancellation) cancels the server's task with `tasks/cancel`.
   */
  const callAsTask = async (
    params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> },
    options: { signal: AbortSignal; timeout: number; onprogress: (progress: Progress) => void },
  ): Promise<CallToolResult> => {
    let taskId: string | undefined;
    // The stream gets its own signal: aborted at once the task is known, so that a call aborted while
    // the task was being created still cancels it once its id arrives (and gives up after a grace).
    const stop = new AbortController();
    let grace: NodeJS.Timeout | undefined;
    const cancel = () => {
      if (taskId === undefined) {
        grace = setTimeout(() => stop.abort(options.signal.reason), TASK_CREATION_GRACE_MS);
        grace.unref();
        return;
      }
      client.experimental.tasks.cancelTask(taskId).catch(() => undefined);
      stop.abort(options.signal.reason);
    };
    if (options.signal.aborted) stop.abort(options.signal.reason);
    else options.signal.addEventListener('abort', cancel, { once: true });
    try {
      const stream = client.experimental.tasks.callToolStream(params, CallToolResultSchema, {
        ...options,
        signal: stop.signal,
        task: {},
      });
      for await (const message of stream) {
        if (message.type === 'taskCreated') {
          taskId = message.task.taskId;
          if (options.signal.aborted) cancel();
        } else if (message.type === 'result') return message.result as CallToolResult;
        else if (message.type === 'error') throw message.error;
      }
      throw new Error(`MCP server '${config.name}' ended the task of '${params.name}' without a result.`);
    } finally {
      clearTimeout(grace);
      options.signal.removeEventListener('abort', cancel);
    }
  };

  const callRemote = async (toolName: string, args: Record<string, unknown>, context: ToolContext, asTask = false) => {
    if (state !== 'up')
      return unavailable(config.name, context.tool, lastError, reconnect !== false && state === 'down');
    const refusals: { refused?: string } = {};
    inFlight.set(context, refusals);
    let result: CallToolResult;
    try {
      // An MCP client span, child of the tool's; its context goes upstream in `_meta.traceparent`.
      result = await withSpan(
        `tools/call ${toolName}`,
        {
          'mcp.method.name': 'tools/call',
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': toolName,
          'toolshed.mcp.server': config.name,
        },
        async (span) => {
          const meta: Record<string, unknown> = {};
          injectTraceContext(meta);
          const params = {
            name: toolName,
            arguments: args,
            ...(Object.keys(meta).length === 0 ? {} : { _meta: meta }),
          };
          const requestOptions = {
            signal: context.signal,
            // The registry's deadline governs; the SDK's own 60 s default must not cut in first.
            timeout: 2_147_483_647,
            onprogress: (progress: Progress) => context.progress(progress.progress, progress.total, progress.message),
          };
          const answer = asTask
            ? await callAsTask(params, requestOptions)
            : ((await client.callTool(params, undefined, requestOptions)) as CallToolResult);
          if (answer.isError === true) span?.setAttribute('error.type', 'tool_error');
          return answer;
        },
        SpanKind.CLIENT,
      );
    } catch (error) {
      // An HTTP server that went away (or forgot the session) shows only as a failed request.
      if (state === 'up' && config.url !== undefined) {
        const loss = connectionLoss(config.name, error);
        if (loss !== undefined) loseHttp(client, loss);
      }
      if (error instanceof Error) error.message = redact(error.message);
      if (state !== 'up')
        return ToolResult.error(
          'UPSTREAM_UNAVAILABLE',
          `${lastError ?? `MCP server '${config.name}' disconnected`} during the call to '${context.tool}'.`,
          { retryable: reconnect !== false, details: { mcpServer: config.name, unavailable: true } },
        );
      throw error;
    } finally {
      inFlight.delete(context);
    }
    const refused = refusals.refused;
    if (refused !== undefined && result.isError === true) {
      // The server's own message may not say why; the caller is told what it lacks.
      const said = toToolResult(config.name, result, redact);
      const why = said.status === 'error' ? ` It answered: ${said.error.message}` : '';
      return ToolResult.error(
        'EXECUTION_FAILED',
        `MCP server '${config.name}' asked the client for ${refused} during '${context.tool}', and the client calling through toolshed does not support it.${why}`,
        { details: { mcpServer: config.name, unsupported: refused } },
      );
    }
    return toToolResult(config.name, result, redact);
  };

  /** A quarantined tool's call: run it if its change was approved meanwhile, else refuse it naming the change. */
  const callQuarantined = async (tool: Tool, args: Record<string, unknown>, context: ToolContext) => {
    const [review] = (await options.pins?.review(config.name, [pinnedDefinition(tool)])) ?? [];
    if (review !== undefined && review.status !== 'changed') {
      // Approved since it was listed: serve it again (listed over MCP too), then run the call.
      await refresh();
      return callRemote(tool.name, args, context, requiresTask(tool));
    }
    const changed = quarantine.get(tool.name) ?? [];
    return ToolResult.error('DISABLED', quarantineMessage(context.tool, config.name, tool.name, changed), {
      details: { mcpServer: config.name, mcpTool: tool.name, quarantined: true, changed },
    });
  };

  const toSpec = (tool: Tool, down: boolean): ToolSpec => {
    const changed = quarantine.get(tool.name);
    const schema = { ...(tool.inputSchema as JsonSchema) };
    const annotations = tool.annotations ?? {};
    return defineTool({
      name: mcpToolName(config.name, tool.name),
      title: tool.title ?? annotations.title ?? tool.name,
      description: tool.description?.trim() || `${tool.name} (from MCP server ${config.name})`,
      category: 'mcp',
      tags: ['mcp', config.name],
      inputSchema: {
        ...schema,
        type: 'object',
        properties: (schema.properties as Record<string, JsonSchema>) ?? {},
      },
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema as JsonSchema }),
      ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
      ...(taskSupportOf(tool) === undefined ? {} : { execution: { taskSupport: taskSupportOf(tool) } }),
      annotations: {
        ...(annotations.readOnlyHint === undefined ? {} : { readOnly: annotations.readOnlyHint }),
        ...(annotations.destructiveHint === undefined ? {} : { destructive: annotations.destructiveHint }),
        ...(annotations.idempotentHint === undefined ? {} : { idempotent: annotations.idempotentHint }),
        ...(annotations.openWorldHint === undefined ? {} : { openWorld: annotations.openWorldHint }),
      },
      metadata: {
        mcpServer: config.name,
        mcpTool: tool.name,
        ...(down ? { mcpUnavailable: true } : {}),
        ...(changed === undefined ? {} : { mcpQuarantine: { changed } }),
        ...upstreamExtras(tool),
      },
      handler: (args, context) =>
        changed === undefined
          ? callRemote(tool.name, args, context, requiresTask(tool))
          : callQuarantined(tool, args, context),
    });
  };

  /** Register `tools` (as available or not), dropping the names no longer listed. */
  const publish = (down: boolean) => {
    const specs: ToolSpec[] = [];
    const taken = new Set<string>();
    for (const tool of tools) {
      const spec = toSpec(tool, down);
      if (taken.has(spec.name)) continue; // two remote names that map to one canonical name: first wins
      taken.add(spec.name);
      specs.push(spec);
    }
    for (const name of names) if (!taken.has(name)) registry.unregister(name);
    const fresh = specs.filter((spec) => !names.includes(spec.name));
    const known = specs.filter((spec) => names.includes(spec.name));
    if (fresh.length > 0) registry.registerAll(fresh);
    for (const spec of known) registry.register(spec, { allowOverride: true });
    names = specs.map((spec) => spec.name).sort();
  };

  const refresh = async () => {
    if ((client as Client | undefined) === undefined) {
      // Retried from the start (`retryStart`) and not up yet: there is no list to read.
      throw new McpServerUnavailableError(`MCP server '${config.name}' has not come up yet: ${lastError ?? ''}`);
    }
    const listed: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      listed.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined && listed.length < 10_000);
    // With pins, a tool that cannot be pinned (see `isPinnable`) is never served: it could change unseen.
    const servable = options.pins === undefined ? listed : listed.filter(isPinnable);
    quarantine = await review(servable);
    tools = servable;
    publish(state !== 'up');
  };

  /** The tools of `listed` whose definition differs from its pin, with what changed. */
  const review = async (listed: Tool[]) => {
    const changes = new Map<string, string[]>();
    if (options.pins === undefined) return changes;
    const unique = [...new Map(listed.map((tool) => [tool.name, tool])).values()];
    const definitions = unique.map(pinnedDefinition);
    const reviews = await options.pins.review(config.name, definitions);
    const current = new Map(definitions.map((definition) => [definition.tool, definition.definition]));
    for (const each of reviews) {
      if (each.status !== 'changed') continue;
      changes.set(each.tool, changedFields(each.pinned.definition, current.get(each.tool) ?? '{}'));
    }
    return changes;
  };

  const lost = (message: string) => {
    if (state !== 'up') return;
    state = 'down';
    since = new Date().toISOString();
    lastError = redact(message);
    publish(true);
    options.onStateChange?.('down', lastError);
    if (reconnect !== false) schedule(initialDelay);
  };

  /** An HTTP server's connection is gone: mark it lost, and close the old client (and its stream's retries). */
  const loseHttp = (gone: Client, message: string) => {
    if (client !== gone) return;
    lost(message);
    void gone.close().catch(() => undefined);
  };

  /**
   * The HTTP transport reported an error (its GET stream dropped, a reconnection of it failed): ask
   * the server whether it is still there; no answer, or an answer that the session is unknown, is a loss.
   */
  let checking = false;
  const checkHttp = async (asked: Client) => {
    if (checking || client !== asked || state !== 'up') return;
    checking = true;
    try {
      await asked.ping({ timeout: Math.min(config.timeoutMs ?? 10_000, 10_000) });
    } catch (error) {
      if (client === asked && state === 'up') {
        loseHttp(
          asked,
          connectionLoss(config.name, error) ??
            `MCP server '${config.name}' did not answer a ping after its stream failed (${redact((error as Error).message)})`,
        );
      }
    } finally {
      checking = false;
    }
  };

  /** Whether the server has come up once (a server retried from the start is not "back" but up). */
  let cameUp = false;
  const schedule = (delay: number) => {
    retry = setTimeout(() => {
      retry = undefined;
      void start(options.transport).then(
        () => {
          if (state !== 'up') return;
          if (!cameUp) {
            cameUp = true;
            options.onStateChange?.('up', `MCP server '${config.name}' is up`);
            return;
          }
          reconnects++;
          options.onStateChange?.('up', `MCP server '${config.name}' is back`);
        },
        (error: Error) => {
          if (state === 'closed') return;
          lastError = error.message;
          schedule(Math.min(delay * 2, maxDelay));
        },
      );
    }, delay);
    retry.unref();
  };

  /** Connect (spawning the server if need be), list its tools and mark it up; kill it on failure. */
  const start = async (given: Transport | undefined) => {
    const upstream = given === undefined ? startUpstream(config, options) : { transport: given, tail: () => '' };
    // Sampling and elicitation are declared so that the server offers the tools that use them; each
    // request is passed to the client of the call it belongs to, or refused when that client cannot answer.
    const next = new Client(
      { name: 'toolshed', version: '0.1.0' },
      { capabilities: { sampling: {}, elicitation: { form: {} } } },
    );
    next.setRequestHandler(CreateMessageRequestSchema, (request) =>
      askCaller('sampling (sampling/createMessage)', async (context) => {
        const answer = await context.sample(request.params as unknown as SamplingRequest);
        return answer as unknown as CreateMessageResult;
      }),
    );
    next.setRequestHandler(ElicitRequestSchema, (request) => {
      const params = request.params as { mode?: string; message: string; requestedSchema?: JsonSchema };
      if (params.mode !== undefined && params.mode !== 'form')
        throw refusal(`toolshed passes on only form elicitation, not '${params.mode}'.`);
      return askCaller('elicitation (elicitation/create)', async (context) => {
        const answer = await context.elicit(
          params.message,
          params.requestedSchema ?? { type: 'object', properties: {} },
        );
        return answer as ElicitResult;
      });
    });
    // Before connecting: a server may log as soon as it is initialized.
    const onLog = options.onLog;
    if (onLog !== undefined) {
      next.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        const { level, logger, data } = notification.params;
        const text = redact(typeof data === 'string' ? data : (JSON.stringify(data) ?? String(data)));
        onLog({
          level,
          ...(typeof logger === 'string' ? { logger: redact(logger) } : {}),
          message: text.length > 2000 ? `${text.slice(0, 1997)}...` : text,
        });
      });
    }
    const failure = async (what: string, error: unknown) => {
      // A server that did not come up gets no grace period: it is killed, then the transport closed.
      upstream.kill?.();
      await upstream.transport.close().catch(() => undefined);
      const tail = upstream.tail();
      return new McpServerUnavailableError(
        redact(
          `${what} MCP server '${config.name}': ${explain(config, error)}${tail === '' ? '' : `\n--- stderr of '${config.name}' (last lines) ---\n${tail}`}`,
        ),
        // The cause is the SDK's own error, whose message may hold what was redacted above.
        { cause: redactedCause(error, redact) },
      );
    };
    try {
      await next.connect(upstream.transport, { timeout: config.timeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS });
    } catch (error) {
      throw await failure('Could not connect to', error);
    }
    next.onclose = () => {
      if (client !== next) return;
      const tail = upstream.tail();
      lost(
        `MCP server '${config.name}' closed the connection${tail === '' ? '' : ` (stderr: ${tail.split('\n').at(-1)})`}`,
      );
    };
    if (config.url !== undefined && given === undefined) {
      next.onerror = () => void checkHttp(next);
    }
    next.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      try {
        await refresh();
      } catch {
        // A failed refresh keeps the previous tool list; the next notification tries again.
      }
    });
    if (state === 'closed') {
      // Closed while reconnecting.
      await next.close();
      return;
    }
    const previous = { client: client as Client | undefined, upstream: current };
    client = next;
    current = upstream;
    try {
      state = 'up';
      await refresh();
    } catch (error) {
      state = 'down';
      client = previous.client as Client;
      current = previous.upstream;
      throw await failure('Could not list the tools of', error);
    }
    if (onLog !== undefined && next.getServerCapabilities()?.logging !== undefined) {
      // Best effort: a server that refuses the level still sends what it sends.
      await next.setLoggingLevel(UPSTREAM_LOG_LEVEL).catch(() => undefined);
    }
    upstream.clearTail?.();
    lastError = undefined;
    since = new Date().toISOString();
  };

  try {
    await start(options.transport);
    cameUp = true;
  } catch (error) {
    if (options.retryStart !== true || reconnect === false) throw error;
    lastError = (error as Error).message;
    since = new Date().toISOString();
    schedule(initialDelay);
  }

  return {
    name: config.name,
    get tools() {
      return names;
    },
    get state() {
      return state;
    },
    get pid() {
      return state === 'up' ? current?.pid?.() : undefined;
    },
    get lastError() {
      return lastError;
    },
    get since() {
      return since;
    },
    get reconnects() {
      return reconnects;
    },
    refresh,
    async close() {
      if (retry !== undefined) clearTimeout(retry);
      const wasUp = state === 'up';
      state = 'closed';
      since = new Date().toISOString();
      lastError = `MCP server '${config.name}' was closed`;
      for (const name of names) registry.unregister(name);
      names = [];
      if (wasUp) await client.close();
    },
  };
}

/** An upstream tool's `execution.taskSupport`, when it is one MCP defines. */
function taskSupportOf(tool: Tool): 'forbidden' | 'optional' | 'required' | undefined {
  const support = tool.execution?.taskSupport;
  return support === 'forbidden' || support === 'optional' || support === 'required' ? support : undefined;
}

/**
 * Whether the server runs the tool only as a task: toolshed then calls it as one and waits for its
 * result, so that to toolshed's own callers (REST, the CLI, MCP with or without a task) it is a call
 * like any other. A tool with optional task support is called plainly.
 */
function requiresTask(tool: Tool): boolean {
  return taskSupportOf(tool) === 'required';
}

/**
 * What of an upstream tool's definition has no place in a spec but is served again as it came
 * (`execution`, `icons`, `_meta`), as `metadata.mcpUpstream`; the MCP exporter puts it back.
 */
function upstreamExtras(tool: Tool): { mcpUpstream?: Record<string, unknown> } {
  const extras: Record<string, unknown> = {};
  for (const key of ['execution', 'icons', '_meta'] as const) if (tool[key] !== undefined) extras[key] = tool[key];
  return Object.keys(extras).length === 0 ? {} : { mcpUpstream: extras };
}

/**
 * Why a request to an HTTP server shows the connection is gone: the server cannot be reached, or it
 * no longer knows the session (HTTP 404: it restarted); undefined when the server answered otherwise.
 */
function connectionLoss(server: string, error: unknown): string | undefined {
  if (error instanceof TypeError && /fetch failed/i.test(error.message))
    return `MCP server '${server}' cannot be reached (${describeUnreachable(error)})`;
  if (error instanceof StreamableHTTPError && error.code === 404)
    return `MCP server '${server}' lost the session (HTTP 404)`;
  return undefined;
}

/** The network error behind a failed fetch: `ECONNREFUSED`, `ECONNRESET`, ... */
function describeUnreachable(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  // Node's own codes (ECONNREFUSED) say more than undici's (UND_ERR_SOCKET: "other side closed").
  if (typeof cause?.code === 'string' && !cause.code.startsWith('UND_ERR')) return cause.code;
  return typeof cause?.message === 'string' ? cause.message : (error as Error).message;
}

/** Why a connection failed; a refusal of the credentials names the variables they come from, never their values. */
function explain(config: McpServerConfig, error: unknown): string {
  const oauth = config.oauth;
  if (oauth !== undefined) {
    const variables = `${oauth.clientIdEnv} and ${oauth.clientSecretEnv}`;
    if (error instanceof InvalidClientError || error instanceof UnauthorizedClientError)
      return `its authorization server ${oauth.issuer} refused the client credentials (${error.errorCode}); check the values of ${variables}.`;
    if (error instanceof OAuthError)
      return `its authorization server ${oauth.issuer} refused the token request (${error.errorCode}: ${error.message}).`;
    if (error instanceof UnauthorizedError || (error instanceof StreamableHTTPError && error.code === 401))
      return `it refused the request (HTTP 401) even with a token from ${oauth.issuer}: ${error.message}`;
  }
  if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403)) {
    const sources = Object.entries(config.headersEnv ?? {}).map(
      ([header, variable]) => `${variable} (its ${header} header)`,
    );
    return sources.length === 0
      ? `it refused the request (HTTP ${error.code}): it needs credentials; give them with headers_env`
      : `it refused the credentials (HTTP ${error.code}); check the value of ${sources.join(', ')}.`;
  }
  return (error as Error).message;
}

/** The answer of a tool whose server is down: retryable while the server is being reconnected. */
function unavailable(server: string, tool: string, why: string | undefined, reconnecting: boolean): ToolResult {
  const message = `${why ?? `MCP server '${server}' is not connected`}; '${tool}' cannot run`;
  return ToolResult.error(
    'UPSTREAM_UNAVAILABLE',
    reconnecting ? `${message} until it is back (reconnecting).` : `${message}.`,
    {
      retryable: reconnecting,
      details: { mcpServer: server, unavailable: true },
    },
  );
}

/** Thrown by {@link importMcpServer} when the server does not come up: it names the server and quotes the tail of its stderr. */
export class McpServerUnavailableError extends ToolshedError<'MCP_SERVER_UNAVAILABLE'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MCP_SERVER_UNAVAILABLE', message, options);
    this.name = 'McpServerUnavailableError';
  }
}

interface Upstream {
  transport: Transport;
  /** The last lines of the server's stderr (stdio only). */
  tail(): string;
  /** Forget the stderr written so far. */
  clearTail?: () => void;
  /** The spawned process's PID. */
  pid?: () => number | undefined;
  /** SIGKILL the spawned process if it is still alive. */
  kill?: () => void;
}

function startUpstream(config: McpServerConfig, options: ImportMcpServerOptions): Upstream {
  if (config.command !== undefined) {
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      env: { ...getDefaultEnvironment(), ...(config.env ?? {}) },
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      stderr: 'pipe',
    });
    const tail = new StderrTail();
    transport.stderr?.on('data', (chunk: Buffer) => {
      tail.push(chunk);
      if (options.stderr === 'inherit') process.stderr.write(chunk);
    });
    const start = transport.start.bind(transport);
    let pid: number | undefined;
    // Every child is tracked from spawn to exit, so toolshed never leaves one behind.
    transport.start = async () => {
      await start();
      pid = transport.pid ?? undefined;
      if (pid !== undefined) trackChild(pid);
    };
    // Set before the client connects, which chains its own handler after this one.
    transport.onclose = () => {
      if (pid !== undefined) untrackChild(pid);
    };
    return {
      transport,
      tail: () => tail.text(),
      clearTail: () => tail.clear(),
      pid: () => pid,
      kill: () => {
        if (pid === undefined) return;
        killChild(pid);
        untrackChild(pid);
      },
    };
  }
  if (config.url !== undefined) {
    const env = options.env ?? process.env;
    const headers = upstreamHeaders(config, env);
    const authProvider = config.oauth === undefined ? undefined : oauthProvider(config.name, config.oauth, env);
    return {
      transport: new StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers },
        ...(authProvider === undefined ? {} : { authProvider }),
      }),
      tail: () => '',
    };
  }
  throw new Error(`MCP server '${config.name}' needs either a command (stdio) or a url (Streamable HTTP).`);
}

/** The HTTP headers of an upstream entry, read from the environment; a missing variable is an error. */
function upstreamHeaders(
  config: McpServerConfig,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [header, variable] of Object.entries(config.headersEnv ?? {})) {
    const value = env[variable];
    if (value === undefined || value === '') {
      throw new Error(
        `MCP server '${config.name}' needs the environment variable ${variable} for its ${header} header, which is not set.`,
      );
    }
    headers[header] = value;
  }
  return headers;
}

/** The SDK's client credentials provider for an entry's `oauth`; a missing variable is an error. */
function oauthProvider(
  server: string,
  oauth: McpServerOAuth,
  env: Readonly<Record<string, string | undefined>>,
): ClientCredentialsProvider {
  const read = (variable: string, what: string) => {
    const value = env[variable];
    if (value === undefined || value === '')
      throw new Error(
        `MCP server '${server}' needs the environment variable ${variable} for its OAuth ${what}, which is not set.`,
      );
    return value;
  };
  return new ClientCredentialsProvider({
    clientId: read(oauth.clientIdEnv, 'client id'),
    clientSecret: read(oauth.clientSecretEnv, 'client secret'),
    clientName: 'toolshed',
    expectedIssuer: oauth.issuer,
    ...(oauth.scope === undefined ? {} : { scope: oauth.scope }),
  });
}

/** The last 10 lines (at most 2 KB) of a stream. */
class StderrTail {
  private buffer = '';
  push(chunk: Buffer): void {
    this.buffer = (this.buffer + chunk.toString('utf8')).slice(-8192);
  }
  text(): string {
    const lines = this.buffer.trimEnd().split(/\r?\n/).slice(-10).join('\n');
    return lines.length > 2048 ? lines.slice(-2048) : lines;
  }
  /** Forget what was written so far: `text()` is then what comes after (the server's start-up chatter is not why it died). */
  clear(): void {
    this.buffer = '';
  }
}

const children = new Set<number>();

function killChild(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function killAllChildren(): void {
  for (const pid of children) killChild(pid);
  children.clear();
}

/**
 * On SIGINT/SIGTERM with no other handler (toolshed still starting), kill the children, then die of
 * the signal as Node would have; with other handlers, they close the connections themselves.
 */
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killAllChildren();
  releaseProcessHooks();
  process.kill(process.pid, signal);
}

function holdProcessHooks(): void {
  process.on('exit', killAllChildren);
  // First in line: a handler that runs before it may remove itself (toolshed serve's does), and
  // `onSignal` would then take the signal for unhandled and end the process at once.
  process.prependListener('SIGINT', onSignal);
  process.prependListener('SIGTERM', onSignal);
}

function releaseProcessHooks(): void {
  process.off('exit', killAllChildren);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

function trackChild(pid: number): void {
  if (children.size === 0) holdProcessHooks();
  children.add(pid);
}

function untrackChild(pid: number): void {
  if (!children.delete(pid)) return;
  if (children.size === 0) releaseProcessHooks();
}

function toToolResult(server: string, result: CallToolResult, redact: (text: string) => string): ToolResult {
  const content = (result.content ?? []) as ContentBlock[];
  const text = content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
  if (result.isError === true) {
    const shown = redact(text);
    const message = shown.length > 2000 ? `${shown.slice(0, 1997)}...` : shown;
    return ToolResult.error(
      'EXECUTION_FAILED',
      message === '' ? `MCP server '${server}' reported an error without a message.` : message,
      {
        details: { mcpServer: server },
      },
    );
  }
  const structured = result.structuredContent;
  const data = isPlainObject(structured)
    ? structured
    : content.length === 1 && content[0]!.type === 'text'
      ? text
      : undefined;
  if (content.length === 0) return ToolResult.success(data ?? null);
  return ToolResult.content(content, data);
}

/**
 * The JSON-RPC error toolshed answers a server's request with when it cannot pass it on. Its message
 * is set after construction: the SDK's own prefix ("MCP error -32600:") is added again upstream.
 */
function refusal(message: string): McpError {
  const error = new McpError(ErrorCode.InvalidRequest, message);
  error.message = message;
  return error;
}

/** Whether a tool's definition can be pinned: a name of at most 256 characters, a definition of at most 1 MB. */
function isPinnable(tool: Tool): boolean {
  return (
    tool.name.length > 0 &&
    tool.name.length <= 256 &&
    Buffer.byteLength(pinnedDefinition(tool).definition) <= 1024 * 1024
  );
}

/** Shortest value that counts as a secret: shorter ones (`1`, `debug`) would blank out ordinary words. */
const MIN_SECRET_CHARS = 8;

/**
 * The values of an entry that must never be shown: every `env` value and every header value read from
 * `headersEnv` (and the credential after an auth scheme such as `Bearer`), of at least 8 characters.
 */
function secretValues(config: McpServerConfig, env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  const add = (value: string | undefined) => {
    if (value !== undefined && value.length >= MIN_SECRET_CHARS) values.add(value);
  };
  for (const value of Object.values(config.env ?? {})) add(value);
  if (config.oauth !== undefined) add(env[config.oauth.clientSecretEnv]);
  for (const variable of Object.values(config.headersEnv ?? {})) {
    const value = env[variable];
    add(value);
    add(value?.replace(/^\S+\s+/, ''));
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** A function that replaces each of `secrets` in a text with `***`. */
function redactor(secrets: readonly string[]): (text: string) => string {
  if (secrets.length === 0) return (text) => text;
  return (text) => {
    let shown = text;
    for (const secret of secrets) shown = shown.replaceAll(secret, '***');
    return shown;
  };
}

/** An error as a cause that shows nothing `redact` would hide. */
function redactedCause(error: unknown, redact: (text: string) => string): unknown {
  if (!(error instanceof Error)) return error;
  const message = redact(error.message);
  if (message === error.message) return error;
  const copy = new Error(message);
  copy.name = error.name;
  return copy;
}
