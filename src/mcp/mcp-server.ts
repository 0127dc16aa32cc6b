import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallContextOptions } from '../core/call-context.js';
import type { ToolResult } from '../core/tool-result.js';
import type { ElicitationResult, LogLevel, SamplingResult } from '../core/tool-spec.js';
import { inTraceContext } from '../core/tracing.js';
import { ContentCatalog } from '../registry/content-catalog.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { answerToolCall, unpreparedCallResult } from './answer-tool-call.js';
import { serveCatalog } from './mcp-catalog-handlers.js';
import { pageOf } from './mcp-cursor.js';
import type { McpTaskStore } from './mcp-task-store.js';
import {
  type McpTaskOptions,
  resolveTaskOptions,
  runLocally,
  taskTtl,
  toMcpTask,
  toSdkTaskStore,
} from './mcp-tasks.js';
import { listMcpTools } from './mcp-tool-list.js';
import { createMemoryTaskStore } from './memory-task-store.js';
import { DEFAULT_PAGE_SIZE, LOG_LEVELS, servedCapabilities, serverInfoOf } from './served-server.js';

/**
 * What a call gets from the server's configuration: per-agent config, environment, agent id.
 *
 * @example
 * ```ts
 * const context: McpCallContext = { agentId: 'support-bot', config: { mailbox: 'support@example.com' } };
 * ```
 */
export type McpCallContext = Pick<CallContextOptions, 'config' | 'env' | 'agentId'>;

/**
 * Settings of {@link createMcpServer}.
 *
 * @example
 * ```ts
 * const options: McpServerOptions = {
 *   name: 'support-tools',
 *   logLevel: 'warning',
 *   context: (tool) => ({ config: toolConfig[tool] ?? {} }),
 *   onError: (error) => console.error(error),
 * };
 * ```
 */
export interface McpServerOptions {
  /** The server name reported in `initialize` (default `toolshed`). */
  name?: string;
  /** The server version reported in `initialize` (default: toolshed's version). */
  version?: string;
  /** Instructions for the client's model, sent in the `initialize` result. */
  instructions?: string;
  /**
   * The least severe tool log level forwarded as `notifications/message` until the client sends
   * `logging/setLevel` (default `info`).
   */
  logLevel?: LogLevel;
  /** Context for each call (agent config, env), fixed or per tool name. */
  context?: McpCallContext | ((tool: string) => McpCallContext | undefined);
  /** How long a tool's elicitation or sampling request may wait for the client (default: the SDK's 60 s). */
  clientRequestTimeoutMs?: number;
  /** Told about problems that do not fail a request: a tool left out of the listing, a lost notification. */
  onError?: (error: unknown) => void;
  /**
   * Told about every finished `tools/call` before its result is sent (a call log, metrics), with the
   * arguments the client sent. A callback that throws or rejects goes to `onError`; the client still
   * gets the result. What a promise it returns settles to is not read.
   */
  onCallResult?: (tool: string, result: ToolResult, args: unknown) => void | Promise<unknown>;
  /**
   * Asked before each `tools/call` runs (a quota), inside the call's span and after the registry's
   * hooks' `before`: return a result to answer with instead of running the tool, or a function that is
   * called once the call has finished, or nothing (or a promise of one of these). A call answered this
   * way passes the hooks' `after` and reaches `onCallResult` like any other.
   */
  admitCall?: (tool: string) => ToolResult | (() => void) | undefined | Promise<ToolResult | (() => void) | undefined>;
  /**
   * The prompts, resources and resource templates to serve beside the tools (default: none). A change
   * of the catalog sends `notifications/prompts/list_changed` or `notifications/resources/list_changed`;
   * `catalog.notifyUpdated(uri)` sends `notifications/resources/updated` to sessions subscribed to it.
   */
  catalog?: ContentCatalog;
  /**
   * Most items in one page of `tools/list`, `prompts/list`, `resources/list` and
   * `resources/templates/list` (default 200); longer lists carry a `nextCursor`.
   */
  pageSize?: number;
  /**
   * MCP tasks (the tasks extension of MCP 2025-11-25), on by default: a `tools/call` with a `task`
   * param for a tool whose `execution.taskSupport` is `optional` or `required` returns a task at once
   * and runs the call in the background, through the same door as any call; `tasks/get`,
   * `tasks/result`, `tasks/list` and `tasks/cancel` answer from `tasks.store` (default: this
   * server's own memory). `false` declares no tasks capability.
   */
  tasks?: McpTaskOptions | false;
}

type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * An MCP server (the SDK's low-level `Server`) that serves a registry's tools.
 *
 * - `tools/list` comes straight from the registry: name, title, description, the raw JSON Schema
 *   2020-12 input schema (`$defs`, `additionalProperties` and all), the output schema when it is an
 *   object schema, and annotations as MCP hints; the result's `_meta.tools_hash` is a content hash of
 *   the listing.
 * - `tools/call` runs `registry.call` with the request's abort signal. The tool's `ctx.progress`
 *   becomes `notifications/progress` (when the request carried a `progressToken`), `ctx.log` becomes
 *   `notifications/message` (filtered by `logging/setLevel`), and `ctx.elicit` / `ctx.sample` send
 *   `elicitation/create` / `sampling/createMessage` to the client when it declared the capability. All
 *   of them travel on the call's own stream. Failures are `isError: true` results, never JSON-RPC errors.
 * - A change of the registry's tool set sends `notifications/tools/list_changed`.
 * - `tools/list` is paged (`pageSize`, default 200) with `nextCursor`; a cursor it did not hand out is
 *   `-32602`. A result cut by an output budget also carries a `resource_link` to
 *   `toolshed://tool-outputs/<handle>`, which `resources/read` answers with the whole output.
 * - The `catalog`'s prompts, resources and resource templates are served with `prompts/*`,
 *   `resources/*` (subscriptions included) and `completion/complete`.
 *
 * - A tool whose `execution.taskSupport` is `optional` or `required` runs as an MCP task when the
 *   `tools/call` carries a `task` param (see `tasks`): the answer is the task, the call runs on in the
 *   background through the same door (validation, timeout, hooks, `onCallResult`), and `tasks/get`,
 *   `tasks/result`, `tasks/list` and `tasks/cancel` answer from the task store. A task for a tool
 *   that does not support one, and a plain call of a tool that requires one, are `-32601`. A call
 *   running as a task cannot elicit or sample (the request it came with is answered already).
 *
 * Capabilities: `tools` (with `listChanged`), `logging`, `prompts`, `resources` (with `subscribe`),
 * `completions` and `tasks` (unless `tasks: false`). One server serves one connection: connect
 * it to a transport (stdio, Streamable HTTP, in-memory) with `server.connect(transport)`. The server
 * listens to the registry from the client's `initialized` notification until it closes; to hook
 * `oninitialized` or `onclose` yourself, wrap the existing callback rather than replace it.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * import { createMcpServer } from 'toolshed/mcp';
 *
 * const server = createMcpServer(registry, { name: 'my-tools' });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(registry: ToolRegistry, options: McpServerOptions = {}): Server {
  // The low-level Server, not McpServer: McpServer wants zod shapes and rebuilds the schemas from them,
  // while the registry already holds the exact JSON Schema (2020-12, $defs and all) to list.
  const taskSettings = options.tasks === false ? undefined : resolveTaskOptions(options.tasks ?? {});
  const taskStore: McpTaskStore | undefined =
    options.tasks === false ? undefined : (options.tasks?.store ?? createMemoryTaskStore());
  const server = new Server(serverInfoOf(options), {
    capabilities: {
      ...servedCapabilities(),
      ...(taskStore === undefined ? {} : { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }),
    },
    ...(taskStore === undefined || taskSettings === undefined
      ? {}
      : {
          taskStore: toSdkTaskStore(taskStore, taskSettings.pollIntervalMs),
          defaultTaskPollInterval: taskSettings.pollIntervalMs,
        }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    // A directory load registers many tools in one tick: tell the client once.
    debouncedNotificationMethods: [
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
    ],
  });
  const report = options.onError ?? (() => {});
  let logLevel: LogLevel = options.logLevel ?? 'info';
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
    throw new TypeError(`pageSize must be a whole number of at least 1, got ${String(pageSize)}.`);
  }
  const catalog = options.catalog ?? new ContentCatalog();
  const served = serveCatalog(server, registry, catalog, { pageSize, report });

  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    logLevel = request.params.level;
    return {};
  });

  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const listing = listMcpTools(registry);
    const page = pageOf('tools', listing.tools, request.params?.cursor, pageSize);
    if (request.params?.cursor === undefined) for (const skipped of listing.skipped) report(skipped.error);
    return {
      tools: page.items,
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      _meta: { tools_hash: listing.toolsHash },
    };
  });

  const callTool = async (params: CallToolRequest['params'], extra: CallExtra) => {
    const admitCall = options.admitCall;
    if (admitCall === undefined) return runTool(params, extra, undefined);
    // Asked inside the call's door (its span, the hooks): a refusal is the call's result and is
    // reported to `onCallResult` like any other.
    let release: (() => void) | undefined;
    const admit = async () => {
      const admission = await admitCall(params.name);
      if (typeof admission === 'function') {
        release = admission;
        return undefined;
      }
      return admission;
    };
    try {
      return await runTool(params, extra, admit);
    } finally {
      release?.();
    }
  };

  const runTool = async (
    params: CallToolRequest['params'],
    extra: CallExtra,
    admit: (() => Promise<ToolResult | undefined>) | undefined,
  ) => {
    const name = params.name;
    // Notifications are sent without blocking the tool, but must reach the client before the result.
    const sending: Promise<void>[] = [];
    const send = (notification: ServerNotification) => {
      sending.push(extra.sendNotification(notification).catch(report));
    };
    const base = typeof options.context === 'function' ? options.context(name) : options.context;
    // Object.assign, not a spread: on Node 20 new keys on a spread copy take V8's slow path (decision 019).
    const context: CallContextOptions = Object.assign({}, base);
    const progressToken = params._meta?.progressToken;
    if (progressToken !== undefined) {
      context.onProgress = (event) => send({ method: 'notifications/progress', params: { progressToken, ...event } });
    }
    context.onLog = (level, data) => {
      if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(logLevel)) return;
      send({ method: 'notifications/message', params: { level, logger: name, data } });
    };
    // The tool's own signal (aborted on its timeout and on the client's cancellation) ends a pending
    // elicitation or sampling request with the call.
    const requestOptions = (signal: AbortSignal) => ({
      signal,
      ...(options.clientRequestTimeoutMs === undefined ? {} : { timeout: options.clientRequestTimeoutMs }),
    });
    // A task runs on after its request was answered: no stream is left to put a question to the client on.
    const capabilities = extra.taskId === RUNNING_AS_TASK ? undefined : server.getClientCapabilities();
    if (capabilities?.elicitation !== undefined) {
      context.elicit = async (message, requestedSchema, { signal }) => {
        // The schema is the tool's own; the client validates it against what elicitation allows.
        const elicitation = {
          method: 'elicitation/create',
          params: { message, requestedSchema },
        } as unknown as ServerRequest;
        const answer = await extra.sendRequest(elicitation, ElicitResultSchema, requestOptions(signal));
        const result: ElicitationResult = { action: answer.action };
        if (answer.content !== undefined) result.content = answer.content;
        return result;
      };
    }
    if (capabilities?.sampling !== undefined) {
      context.sample = async (sampling, { signal }) => {
        const createMessage = {
          method: 'sampling/createMessage',
          params: sampling,
        } as unknown as ServerRequest;
        const answer = await extra.sendRequest(createMessage, CreateMessageResultSchema, requestOptions(signal));
        return answer as SamplingResult;
      };
    }
    const toolCallId =
      extra.sessionId === undefined ? String(extra.requestId) : `${extra.sessionId}:${String(extra.requestId)}`;
    // Trace context from the request's `_meta` (MCP), else from the HTTP request's headers.
    const meta = params._meta as Record<string, unknown> | undefined;
    const carrier = meta !== undefined && typeof meta.traceparent === 'string' ? meta : extra.requestInfo?.headers;
    const result = await inTraceContext(carrier, () =>
      registry.call(name, params.arguments ?? {}, {
        signal: extra.signal,
        toolCallId,
        context,
        ...(admit === undefined ? {} : { admit }),
      }),
    );
    await Promise.all(sending);
    return answerToolCall(registry, name, params.arguments ?? {}, result, options.onCallResult, report);
  };

  const answerCall = async (params: CallToolRequest['params'], extra: CallExtra): Promise<CallToolResult> => {
    try {
      // toolshed's content blocks are the SDK's, less strictly typed (an embedded resource's text or blob).
      return (await callTool(params, extra)) as CallToolResult;
    } catch (error) {
      // Only a throwing `context` option gets here (`registry.call` never throws); still a result.
      return unpreparedCallResult(params.name, error) as CallToolResult;
    }
  };

  /** Start the call as a task: stored `working` at once, run in the background, its end stored. */
  const startTask = async (
    store: McpTaskStore,
    settings: { defaultTtlMs: number; maxTtlMs: number; pollIntervalMs: number },
    params: CallToolRequest['params'],
    extra: CallExtra,
  ) => {
    const task = await store.create({
      tool: params.name,
      ttlMs: taskTtl(params.task?.ttl, settings),
      pollIntervalMs: settings.pollIntervalMs,
    });
    const controller = new AbortController();
    const ranHere = runLocally(task.id, controller);
    const held = store.hold?.(task.id, () => controller.abort(new Error('The task was cancelled.')));
    // The request is answered before the call ends: the call gets the task's signal, and its progress
    // and log notifications go out on the session's own stream (dropped once the session is gone).
    const taskExtra: CallExtra = {
      ...extra,
      signal: controller.signal,
      taskId: RUNNING_AS_TASK,
      sendNotification: async (notification) => {
        if (server.transport !== undefined) await server.notification(notification).catch(() => undefined);
      },
    };
    const { task: _task, ...callParams } = params;
    void (async () => {
      try {
        const answer = await answerCall(callParams, taskExtra);
        const failed = answer.isError === true;
        const outcome = {
          status: failed ? ('failed' as const) : ('completed' as const),
          statusMessage: failed ? firstText(answer) : null,
          result: answer as unknown as Record<string, unknown>,
        };
        try {
          await store.finish(task.id, outcome);
        } catch (error) {
          // A result the store cannot keep (too large): the task still ends, saying why — with no
          // result at all if even the message is refused, `tasks/result` then builds it from the status.
          const reason = error instanceof Error ? error.message : String(error);
          const message = `The result of '${params.name}' could not be kept: ${reason.slice(0, 300)}`;
          const failed = { status: 'failed' as const, statusMessage: message };
          try {
            await store.finish(task.id, { ...failed, result: errorResult(message) });
          } catch {
            await store.finish(task.id, { ...failed, result: null });
          }
        }
        const ended = await store.get(task.id);
        if (ended !== undefined && server.transport !== undefined) {
          await server
            .notification({ method: 'notifications/tasks/status', params: toMcpTask(ended) })
            .catch(() => undefined);
        }
      } catch (error) {
        report(error);
      } finally {
        held?.();
        ranHere();
      }
    })();
    const immediate = `The call to '${params.name}' runs as task ${task.id}; its result comes with tasks/result.`;
    return { task: toMcpTask(task), _meta: { 'io.modelcontextprotocol/model-immediate-response': immediate } };
  };

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const params = request.params;
    if (taskStore !== undefined && taskSettings !== undefined) {
      const support = taskSupportOf(registry, params.name);
      if (params.task !== undefined) {
        if (support !== 'optional' && support !== 'required') {
          throw new McpError(
            ErrorCode.MethodNotFound,
            support === undefined
              ? `Tool '${params.name}' not found, so it cannot run as a task; tools/list names the tools.`
              : `Tool '${params.name}' does not run as a task (its execution.taskSupport is 'forbidden'); call it without params.task.`,
          );
        }
        // The SDK's own answer type for a task-augmented call, which its request type does not know.
        return (await startTask(taskStore, taskSettings, params, extra)) as unknown as CallToolResult;
      }
      if (support === 'required') {
        throw new McpError(
          ErrorCode.MethodNotFound,
          `Tool '${params.name}' runs only as a task (its execution.taskSupport is 'required'); call it with params.task, e.g. { "task": {} }.`,
        );
      }
    }
    return answerCall(params, extra);
  });

  // Listen only once a client is there to tell, so a server that never connects leaks no listener.
  let stopListening: (() => void) | undefined;
  const previousOnInitialized = server.oninitialized;
  server.oninitialized = () => {
    if (stopListening === undefined) {
      const stopTools = registry.on('change', () => {
        if (server.transport !== undefined) server.sendToolListChanged().catch(report);
      });
      const stopCatalog = catalog.on((change) => {
        if (server.transport === undefined) return;
        if (change.type === 'prompts') server.sendPromptListChanged().catch(report);
        else if (change.type === 'resources') server.sendResourceListChanged().catch(report);
        else served.onUpdated(change.uri);
      });
      stopListening = () => {
        stopTools();
        stopCatalog();
      };
    }
    previousOnInitialized?.();
  };
  const previousOnClose = server.onclose;
  server.onclose = () => {
    stopListening?.();
    stopListening = undefined;
    previousOnClose?.();
  };
  const connect = server.connect.bind(server);
  server.connect = (transport) => {
    withoutErrorPrefix(transport);
    return connect(transport);
  };
  return server;
}

/**
 * Make `transport` send each error answer without the "MCP error <code>: " its message starts with when
 * the SDK's own handlers (the task methods: `tasks/get`, `tasks/result`, `tasks/cancel`) throw an
 * `McpError`: the client's `McpError` adds that prefix again, and the person or model reading it saw
 * it twice.
 */
function withoutErrorPrefix(transport: Transport): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (!('error' in message) || 'method' in message) return send(message, options);
    const { error } = message;
    const prefix = `MCP error ${error.code}: `;
    if (typeof error.message !== 'string' || !error.message.startsWith(prefix)) return send(message, options);
    const unprefixed = Object.assign({}, error, { message: error.message.slice(prefix.length) });
    return send(Object.assign({}, message, { error: unprefixed }), options);
  };
}

/** Marks a call's `extra` as that of a task run in the background (no client requests, no request stream). */
const RUNNING_AS_TASK = '\u0000task';

/** A tool's `execution.taskSupport` (`forbidden` when it declares none); `undefined` for an unknown tool. */
function taskSupportOf(registry: ToolRegistry, name: string): 'forbidden' | 'optional' | 'required' | undefined {
  if (!registry.has(name)) return undefined;
  let support: string | undefined;
  try {
    support = registry.get(name).execution?.taskSupport;
  } catch {
    // A lazily registered tool whose factory throws: the call itself says why.
    return 'forbidden';
  }
  return support === 'optional' || support === 'required' ? support : 'forbidden';
}

/** A tool error as a `tools/call` result. */
function errorResult(message: string): Record<string, unknown> {
  return {
    content: [{ type: 'text', text: `Error [EXECUTION_FAILED]: ${message}` }],
    isError: true,
    _meta: { error_code: 'EXECUTION_FAILED', retryable: false },
  };
}

/** The first text block of a result, cut to a status message. */
function firstText(result: CallToolResult): string | null {
  const block = result.content.find((item) => item.type === 'text');
  if (block === undefined || block.type !== 'text') return null;
  return block.text.length > 500 ? `${block.text.slice(0, 499)}…` : block.text;
}
