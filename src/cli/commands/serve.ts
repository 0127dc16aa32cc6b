import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { type Command, InvalidArgumentError } from 'commander';
import { durationMs } from '../../config/duration.js';
import type { McpServerLogEntry } from '../../mcp/import-mcp-server.js';
import type { UpstreamPins } from '../../mcp/upstream-pins.js';
import {
  DEFAULT_MAX_CONCURRENT_CALLS_PER_TOKEN,
  DEFAULT_MAX_CONCURRENT_CALLS_PER_WORKSPACE,
} from '../../server/call-quotas.js';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_TOKEN,
  DEFAULT_MAX_SESSIONS_PER_WORKSPACE,
} from '../../server/mcp-session-limits.js';
import type { ServedConfigSync } from '../../server/served-config.js';
import type { ToolshedStore } from '../../store/index.js';
import { RESOURCE_ID_PATTERN } from '../../store/store-validation.js';
import { addToolsOptions, type CliContext, sandboxNetworkWarning, type ToolsOptions } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { type LoadedTools, loadTools, resolveToolSetup, type ToolSetup } from '../load-registry.js';
import { visible } from '../output.js';
import { openServiceStore } from '../serve/open-service-store.js';
import { servedConfigOf } from '../serve/served-config-of.js';
import { startTracing } from '../serve/start-tracing.js';
import { storeCliError } from '../with-service-store.js';

/** The address `toolshed serve` listens on when `--host` is not given: this machine only. */
export const DEFAULT_HOST = '127.0.0.1';

/** The port `toolshed serve` listens on when `--port` is not given. */
export const DEFAULT_PORT = 4319;

/** What `serve --sandbox-allow-network` says once it listens. */
export const SANDBOX_NETWORK_WARNING = sandboxNetworkWarning('serve');

/** Options of `toolshed serve`. */
export interface ServeCommandOptions extends Omit<ToolsOptions, 'json'> {
  host: string;
  port: number;
  /** The workspace the configuration's tools and agents belong to (default `default`). */
  workspace?: string;
  /** Most MCP sessions open at once, all workspaces together (default 1 000). */
  mcpMaxSessions?: number;
  /** Most MCP sessions one workspace may hold open (default 200). */
  mcpMaxSessionsPerWorkspace?: number;
  /** Most MCP sessions one API token may hold open (default 100). */
  mcpMaxSessionsPerToken?: number;
  /** Milliseconds after which an MCP call's stream still open is closed; its client polls for the rest (default: never). */
  mcpPollAfter?: number;
  /**
   * Calls one sandbox process may run, all of one workspace (default: 1 for Python, a fresh process
   * per call; 100 for JavaScript, a fresh QuickJS runtime per call).
   */
  sandboxRunsPerProcess?: number;
  /** Most tool calls one API token may have running at once (default 32). */
  maxConcurrentCallsPerToken?: number;
  /** Most tool calls one workspace may have running at once (default 64). */
  maxConcurrentCallsPerWorkspace?: number;
  /** How long the call log keeps a call, in milliseconds (over the configuration's `server.call_log.retention`). */
  callLogRetention?: number;
  /** Hosts the MCP endpoint answers beside the local ones (`--mcp-allowed-host`, repeatable). */
  mcpAllowedHost?: string[];
}

/**
 * Add `toolshed serve`: the service over the store in `TOOLSHED_DATABASE_URL` — the REST API at `/api`,
 * MCP over Streamable HTTP at `/mcp` (the token's workspace) and `/mcp/agents/:id` (one agent, from the
 * store or the configuration), `GET /health` and `GET /metrics`. Prints `toolshed serving N tools: MCP
 * at http://HOST:PORT/mcp` on stderr once listening, then the REST API's and the web catalog's
 * addresses (and, on a database made before, how to make an API token), and runs until SIGINT or
 * SIGTERM, which close the MCP sessions and end the run with exit 0.
 *
 * A port in use (or any address that cannot be bound) is one line on stderr and exit 1; a `--port`
 * that is not a whole number from 0 to 65535 is a usage error (exit 2). Port 0 picks a free port.
 * `--mcp-max-sessions-per-token`, `--mcp-max-sessions-per-workspace` and `--mcp-max-sessions` set the
 * MCP session quotas (whole numbers of at least 1, the workspace's at most the total; else exit 2).
 * `--max-concurrent-calls-per-token` and `--max-concurrent-calls-per-workspace` bound the tool calls
 * running at once (REST, MCP and approved calls together); a call past either is answered `RATE_LIMITED`.
 * `--mcp-allowed-host` (repeatable) names Host headers the MCP endpoint accepts beside the local ones,
 * for a server reached through a public name; other hosts get 403 (DNS-rebinding protection).
 * `--call-log-retention` (or the configuration's `server.call_log.retention`) deletes calls older
 * than it from the call log, at start and hourly; the configuration's `server.limits` are the served
 * workspace's call limits.
 * `--mcp-poll-after` closes an MCP call's stream still open after that long (a client of protocol
 * 2025-11-25 or later reconnects with `Last-Event-ID` and gets the rest).
 * `--sandbox-runs-per-process` lets a sandbox process of `execute_python` / `execute_javascript` serve
 * that many calls of one workspace (by default every Python call gets a fresh process);
 * `--sandbox-allow-network` runs the sandboxes without a network namespace (said at start).
 *
 * @example
 * ```ts
 * defineServeCommand(program, context);
 * await program.parseAsync(['serve', '--config', 'examples/toolshed.yaml', '--port', '4319'], { from: 'user' });
 * ```
 */
export function defineServeCommand(program: Command, context: CliContext): Command {
  const command = program
    .command('serve')
    .description('Run the service: REST API at /api, MCP at /mcp and /mcp/agents/:id, GET /health and /metrics.')
    .option('--host <host>', 'the address to listen on; 0.0.0.0 for every interface', DEFAULT_HOST)
    .option('--port <port>', 'the port to listen on, 0 to 65535 (0 picks a free one)', parsePort, DEFAULT_PORT)
    .option(
      '--workspace <id>',
      "the workspace the configuration's tools and agents belong to (created when missing)",
      parseWorkspaceId,
      DEFAULT_WORKSPACE,
    )
    .option(
      '--mcp-max-sessions-per-token <n>',
      'most MCP sessions one API token may hold open; at the limit its least recently used idle one is closed, and with none idle initialize gets 429',
      parseSessionLimit,
      DEFAULT_MAX_SESSIONS_PER_TOKEN,
    )
    .option(
      '--mcp-max-sessions-per-workspace <n>',
      'most MCP sessions one workspace may hold open, all its tokens together (at most --mcp-max-sessions)',
      parseSessionLimit,
      DEFAULT_MAX_SESSIONS_PER_WORKSPACE,
    )
    .option(
      '--mcp-max-sessions <n>',
      'most MCP sessions open at once, all workspaces together; beyond it initialize gets 503',
      parseSessionLimit,
      DEFAULT_MAX_SESSIONS,
    )
    .option(
      '--mcp-allowed-host <host>',
      "a Host header the MCP endpoint accepts beside localhost, such as tools.example.com (any port) or tools.example.com:8443; repeat for several, or '*' behind a proxy that checks hosts itself (DNS-rebinding protection refuses other hosts with 403)",
      collectAllowedHost,
    )
    .option(
      '--mcp-poll-after <duration>',
      "close an MCP call's stream still waiting for its answer after this long, such as 30s or 500ms; the client reconnects with Last-Event-ID and gets the rest (default: streams stay open)",
      parsePollAfter,
    )
    .option(
      '--sandbox-runs-per-process <n>',
      "calls one execute_python / execute_javascript process may run, all of one workspace; above 1 a workspace's calls can see what its earlier calls left (default: 1 for Python, a fresh process per call; 100 for JavaScript, a fresh QuickJS runtime per call)",
      parseSessionLimit,
    )
    .option(
      '--max-concurrent-calls-per-token <n>',
      'most tool calls one API token may have running at once, REST and MCP together; past it a call is answered RATE_LIMITED without running',
      parseSessionLimit,
      DEFAULT_MAX_CONCURRENT_CALLS_PER_TOKEN,
    )
    .option(
      '--max-concurrent-calls-per-workspace <n>',
      'most tool calls one workspace may have running at once, all its tokens together',
      parseSessionLimit,
      DEFAULT_MAX_CONCURRENT_CALLS_PER_WORKSPACE,
    )
    .option(
      '--call-log-retention <duration>',
      "how long the call log keeps a call, such as 30d, 12h or 90m; older calls are deleted at start and hourly (default: the configuration's server.call_log.retention, else kept for ever)",
      parseRetention,
    );
  return addToolsOptions(command, { json: false, sandbox: true })
    .addHelpText(
      'after',
      [
        '',
        'Routes: /api (REST), /mcp and /mcp/agents/:id (MCP, Streamable HTTP), GET /health, GET /metrics; every',
        '/api and /mcp request needs "Authorization: Bearer <token>". The database is TOOLSHED_DATABASE_URL.',
        'Stops on SIGINT or SIGTERM (exit 0). Exit codes: 1 the address cannot be bound or the tools fail to',
        'load; 2 usage error (a bad --port, session or call limit, --call-log-retention, --sandbox-runs-per-process or',
        '--mcp-allowed-host).',
        '',
        'Examples:',
        '  toolshed serve --config examples/toolshed.yaml',
        '  toolshed serve --port 8080 --agent assistant',
        '  toolshed serve --mcp-max-sessions-per-token 20 --mcp-max-sessions-per-workspace 50',
        '  toolshed serve --host 0.0.0.0 --mcp-allowed-host tools.example.com',
      ].join('\n'),
    )
    .action(async (options: ServeCommandOptions) => {
      context.setExitCode(await runServe(options, context));
    });
}

/** The `serve` action: serves until SIGINT or SIGTERM; returns the exit code. */
export async function runServe(options: ServeCommandOptions, { io }: CliContext): Promise<0> {
  const maxSessions = options.mcpMaxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxSessionsPerWorkspace = options.mcpMaxSessionsPerWorkspace ?? DEFAULT_MAX_SESSIONS_PER_WORKSPACE;
  if (maxSessionsPerWorkspace > maxSessions) {
    throw new CliError(
      `error: --mcp-max-sessions-per-workspace (${maxSessionsPerWorkspace}) is above --mcp-max-sessions (${maxSessions}); lower it or raise --mcp-max-sessions.`,
      2,
    );
  }
  // Spans go to an OTLP/HTTP collector when OTEL_EXPORTER_OTLP_ENDPOINT is set; the SDK loads only then.
  const tracing = await startTracing(io.env);
  if (tracing !== undefined) io.stderr.write(`toolshed serve: exporting traces to ${visible(tracing.endpoint)}\n`);
  try {
    return await serveTraced(options, io, maxSessions, maxSessionsPerWorkspace);
  } finally {
    await tracing?.shutdown().catch((error: unknown) => {
      io.stderr.write(
        `toolshed serve: the last traces could not be exported: ${visible(error instanceof Error ? error.message : String(error))}\n`,
      );
    });
  }
}

async function serveTraced(
  options: ServeCommandOptions,
  io: CliContext['io'],
  maxSessions: number,
  maxSessionsPerWorkspace: number,
): Promise<0> {
  const setup = await resolveToolSetup(options, io.cwd);
  const [{ createServer }, { listenHttp, serverUrl }] = await Promise.all([
    import('node:http'),
    import('../serve/listen-http.js'),
  ]);
  // The address is bound before anything is made: a port in use ends the run before the database is
  // opened, so no workspace or token (shown only once) is made for a server that never ran. A request
  // that arrives before the API is ready waits for it.
  let route: ((incoming: IncomingMessage, outgoing: ServerResponse) => void) | undefined;
  const waiting: Array<() => void> = [];
  const server = createServer((incoming, outgoing) => {
    if (route !== undefined) route(incoming, outgoing);
    else waiting.push(() => route?.(incoming, outgoing));
  });
  const address = await listenHttp(server, options.host, options.port);
  try {
    return await serveListening(options, io, maxSessions, maxSessionsPerWorkspace, setup, {
      server,
      base: serverUrl(options.host, address.port),
      route: (next) => {
        route = next;
        for (const request of waiting.splice(0)) request();
      },
    });
  } finally {
    // Closed already when the server ran; this covers a run that ended before it was ready.
    await closeHttp(server);
  }
}

/** The listening HTTP server of {@link serveListening}, and how to hand its requests to the API once ready. */
interface BoundServer {
  server: Server;
  /** The server's URL, `http://HOST:PORT`. */
  base: string;
  route(route: (incoming: IncomingMessage, outgoing: ServerResponse) => void): void;
}

async function serveListening(
  options: ServeCommandOptions,
  io: CliContext['io'],
  maxSessions: number,
  maxSessionsPerWorkspace: number,
  setup: ToolSetup,
  bound: BoundServer,
): Promise<0> {
  // The service: the store (TOOLSHED_DATABASE_URL) behind the REST API and MCP; the configuration's
  // tools and agents become rows of one workspace (--workspace), synced when the server gets ready.
  // It is opened once the tools have loaded (or when an MCP server's tools are pinned while they
  // load), so a configuration that does not load, or an unknown --agent, makes no database.
  let opening: Promise<ToolshedStore> | undefined;
  const openStore = () => {
    opening ??= openServiceStore(io).catch(async (error: unknown) => {
      throw await storeCliError(error);
    });
    return opening;
  };
  const workspaceId = options.workspace ?? DEFAULT_WORKSPACE;
  // The workspace exists (made with its first token on an empty database) before the configuration's
  // MCP servers pin their tools in it; a configuration that does not load makes no workspace or token.
  let bootstrapped: Promise<string | undefined> | undefined;
  const bootstrap = () => {
    bootstrapped ??= openStore().then(async (store) => {
      const hint = await bootstrapWorkspace(store, workspaceId, io);
      if ((await store.workspaces.get(workspaceId)) === undefined) {
        await store.workspaces.create({ id: workspaceId, name: workspaceId });
      }
      return hint;
    });
    return bootstrapped;
  };
  const mcpPins: UpstreamPins = {
    review: async (server, definitions) => {
      await bootstrap();
      return (await openStore()).upstreamPins.review(workspaceId, server, definitions);
    },
  };
  // An MCP server's log messages join toolshed serve's own lines, with the server's name.
  const mcpLog = (server: string, entry: McpServerLogEntry) => {
    io.stderr.write(
      `toolshed serve: MCP server '${visible(server)}' [${visible(entry.level)}]${entry.logger === undefined ? '' : ` ${visible(entry.logger)}`}: ${visible(entry.message)}\n`,
    );
  };
  let tools: LoadedTools;
  let store: ToolshedStore;
  try {
    // The service's built-ins come from the store (their files in the database), never the CLI's.
    tools = await loadTools(setup, io, 'all', { builtins: false, mcpPins, mcpLog });
  } catch (error) {
    await (await opening?.catch(() => undefined))?.close();
    throw error;
  }
  try {
    store = await openStore();
  } catch (error) {
    await tools.close();
    throw error;
  }
  const { server } = bound;
  try {
    const {
      answerClientError,
      createServer: createApiServer,
      reloadServedConfig,
    } = await import('../../server/index.js');
    const report = (error: unknown) => {
      io.stderr.write(`toolshed serve: ${visible(error instanceof Error ? error.message : String(error))}\n`);
    };
    const tokenHint = await bootstrap();
    let served = servedConfigOf(tools, workspaceId, options.tools ?? []);
    const reportSync = (sync: ServedConfigSync) => {
      for (const name of sync.tools.conflicts) {
        report(
          `tool '${name}' of ${served?.origin} is not served: workspace '${workspaceId}' already has a tool of that name that the configuration does not own`,
        );
      }
      for (const id of sync.agents.conflicts) {
        report(
          `agent '${id}' of ${served?.origin} is not served: the id is taken by an agent the configuration does not own`,
        );
      }
      for (const pair of sync.agents.missingTools) {
        const [agent, tool] = pair.split('/');
        report(
          `agent '${agent}' of ${served?.origin}: tool '${tool}' does not exist in workspace '${workspaceId}', so it is not attached`,
        );
      }
    };

    const runs = options.sandboxRunsPerProcess;
    const retentionMs = options.callLogRetention ?? tools.config?.config.server.callLogRetentionMs;
    const api = createApiServer({
      store,
      // A request that fails on the server's side is one JSON line on stderr: route, request id, error.
      logger: { stream: io.stderr },
      ...(served === undefined ? {} : { config: served }),
      // Every tool sees the configuration's environment (.env beside the file), as under `toolshed
      // mcp` and `call`.
      registryOptions: { env: tools.config?.env ?? io.env },
      onConfigSync: (sync) => reportSync(sync),
      builtins: {
        sandbox: {
          ...(runs === undefined ? {} : { maxRunsPerSandbox: runs }),
          ...(options.sandboxAllowNetwork === true ? { allowNetwork: true } : {}),
        },
      },
      // The configuration's MCP servers as loaded now (a SIGHUP reload replaces `tools`).
      upstreams: {
        workspaceId,
        status: () => tools.config?.mcpStatus() ?? [],
        refresh: async (name) => {
          await tools.config?.mcpServers.find((server) => server.name === name)?.refresh();
        },
      },
      calls: {
        maxConcurrentCallsPerToken: options.maxConcurrentCallsPerToken ?? DEFAULT_MAX_CONCURRENT_CALLS_PER_TOKEN,
        maxConcurrentCallsPerWorkspace:
          options.maxConcurrentCallsPerWorkspace ?? DEFAULT_MAX_CONCURRENT_CALLS_PER_WORKSPACE,
      },
      ...(retentionMs === undefined ? {} : { callLog: { retentionMs } }),
      // Read at start: a SIGHUP reload does not change the authorization server.
      ...(tools.config?.config.server.oauth === undefined ? {} : { oauth: tools.config.config.server.oauth }),
      mcp: {
        onError: report,
        maxSessions,
        maxSessionsPerWorkspace,
        maxSessionsPerToken: options.mcpMaxSessionsPerToken ?? DEFAULT_MAX_SESSIONS_PER_TOKEN,
        ...(options.mcpAllowedHost === undefined ? {} : { allowedHosts: options.mcpAllowedHost }),
        ...(options.mcpPollAfter === undefined ? {} : { resumableStreams: { pollAfterMs: options.mcpPollAfter } }),
      },
    });
    await api.ready();
    bound.route((incoming, outgoing) => api.routing(incoming, outgoing));
    server.on('clientError', answerClientError);
    const stopped = waitForStopSignal();
    try {
      const { base } = bound;
      const count = (await store.workspaces.defaultTools(workspaceId))?.tools.length ?? 0;
      const banner = [
        `toolshed serving ${toolCount(count)} in workspace '${visible(workspaceId)}': MCP at ${visible(base)}/mcp`,
      ];
      for (const agent of served?.agents ?? []) {
        if ((await store.agents.get(workspaceId, agent.id))?.source !== 'config') continue;
        const tools = (await store.attachments.listAttachments(workspaceId, agent.id)).tools.length;
        banner.push(
          `  agent ${visible(agent.id)} (${toolCount(tools)}): ${visible(base)}/mcp/agents/${encodeURIComponent(agent.id)}`,
        );
      }
      // One write, so a reader waiting for the first line gets the agents with it.
      io.stderr.write(`${banner.join('\n')}\n`);
      io.stderr.write(
        `toolshed serve: REST API at ${visible(base)}/api\ntoolshed serve: web catalog at ${visible(base)}/\n${tokenHint ?? ''}`,
      );
      if (options.sandboxAllowNetwork === true) io.stderr.write(`${SANDBOX_NETWORK_WARNING}\n`);
      // Reloads and follow-ups run one after another, each syncing what `loaded` serves now.
      let reloading = Promise.resolve();
      const queue = (work: () => Promise<void>) => {
        reloading = reloading.then(work, report);
      };
      const serveLoaded = async (loaded: LoadedTools) => {
        const next = servedConfigOf(loaded, workspaceId, options.tools ?? []);
        if (next === undefined) return undefined;
        const sync = await reloadServedConfig(api, next);
        reportSync(sync);
        served = next;
        return sync;
      };
      // The configuration's registry changes by itself too: an MCP server lists new tools, goes down
      // (its tools marked unavailable) or comes back. Follow it, a change burst at a time.
      let pending: NodeJS.Timeout | undefined;
      const follow = (loaded: LoadedTools) =>
        loaded.all.on('change', () => {
          if (pending !== undefined || loaded !== tools) return;
          pending = setTimeout(() => {
            pending = undefined;
            queue(async () => {
              if (loaded === tools) await serveLoaded(loaded);
            });
          }, FOLLOW_DELAY_MS);
        });
      let unfollow = follow(tools);
      // SIGHUP: read the configuration again and sync it, keeping the one served now if it fails to load.
      const onHangup = () =>
        queue(async () => {
          if (served === undefined) {
            report('SIGHUP received, but no configuration or --tools is served; nothing to reload');
            return;
          }
          let next: LoadedTools;
          try {
            next = await loadTools(await resolveToolSetup(options, io.cwd), io, 'all', {
              builtins: false,
              mcpPins,
              mcpLog,
            });
          } catch (error) {
            report(`SIGHUP: keeping what is served now: ${error instanceof Error ? error.message : String(error)}`);
            return;
          }
          const sync = await serveLoaded(next);
          if (sync === undefined) {
            await next.close();
            return;
          }
          const previous = tools;
          tools = next;
          unfollow();
          unfollow = follow(next);
          await previous.close();
          const { added, updated, removed } = sync.tools;
          io.stderr.write(
            `toolshed serve: reloaded ${visible(served.origin)}: ${added.length} added, ${updated.length} updated, ${removed.length} removed\n`,
          );
        });
      process.on('SIGHUP', onHangup);
      const signal = await stopped.promise.finally(() => {
        process.off('SIGHUP', onHangup);
        unfollow();
        clearTimeout(pending);
      });
      await reloading;
      io.stderr.write(`toolshed serve: ${signal} received, shutting down\n`);
    } finally {
      stopped.dispose();
      await api.close();
      await closeHttp(server);
    }
  } finally {
    await store.close();
    await tools.close();
  }
  return 0;
}

/** Stop listening and end every connection; resolves at once when the server is not listening. */
function closeHttp(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** How long `toolshed serve` waits after a change of the configuration's tools before it syncs them. */
const FOLLOW_DELAY_MS = 50;

/** The workspace `toolshed serve` serves its configuration to when `--workspace` is not given. */
export const DEFAULT_WORKSPACE = 'default';

/**
 * On an empty database, create the served workspace and a token for it, printed once on stderr (only
 * its hash is stored). On a database that has workspaces, the line that says how to make a token
 * (the first one was shown only once), to print once the server listens.
 */
async function bootstrapWorkspace(
  store: ToolshedStore,
  workspaceId: string,
  io: CliContext['io'],
): Promise<string | undefined> {
  const workspaces = await store.workspaces.list();
  if (workspaces.length > 0) {
    const id = workspaces.some((workspace) => workspace.id === workspaceId) ? workspaceId : workspaces[0]?.id;
    return `toolshed serve: an API token is shown only when it is made; make one with 'toolshed token create --workspace ${visible(id ?? workspaceId)}' (with the same TOOLSHED_DATABASE_URL)\n`;
  }
  const workspace = await store.workspaces.create({
    id: workspaceId,
    name: workspaceId === DEFAULT_WORKSPACE ? 'Default' : workspaceId,
  });
  const { token } = await store.tokens.create(workspace.id, { name: 'serve' });
  io.stderr.write(
    `toolshed serve: created workspace '${visible(workspaceId)}'; its API token (shown once): ${token}\n` +
      `  use it as 'Authorization: Bearer <token>' with 'X-Workspace-Id: ${visible(workspaceId)}'\n`,
  );
  return undefined;
}

function toolCount(count: number): string {
  return `${count} tool${count === 1 ? '' : 's'}`;
}

function parseWorkspaceId(value: string): string {
  if (!RESOURCE_ID_PATTERN.test(value)) {
    throw new InvalidArgumentError(
      "Use a workspace id: a letter or digit, then letters, digits, '_', '.' or '-', at most 64 characters.",
    );
  }
  return value;
}

/** Resolves with the first SIGINT or SIGTERM; later ones get Node's default handling. */
function waitForStopSignal(): { promise: Promise<NodeJS.Signals>; dispose(): void } {
  let settle: (signal: NodeJS.Signals) => void = () => {};
  const promise = new Promise<NodeJS.Signals>((resolve) => {
    settle = resolve;
  });
  const dispose = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    dispose();
    settle(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { promise, dispose };
}

function parseSessionLimit(value: string): number {
  const limit = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1)) throw new InvalidArgumentError('Use a whole number of at least 1.');
  return limit;
}

function parsePollAfter(value: string): number {
  const after = durationMs(value);
  if (after === undefined)
    throw new InvalidArgumentError('Use a whole number and a unit: ms, s, m, h or d (such as 30s).');
  return after;
}

function parseRetention(value: string): number {
  const retention = durationMs(value);
  if (retention === undefined) {
    throw new InvalidArgumentError('Use a whole number and a unit: ms, s, m, h or d (such as 30d).');
  }
  return retention;
}

/** A Host header's value: a DNS name or IP address, with an optional port; or `*`. */
const ALLOWED_HOST =
  /^(?:\*|(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?::\d{1,5})?|\[[0-9a-f:.]{2,45}\](?::\d{1,5})?)$/i;

function collectAllowedHost(value: string, previous: string[] | undefined): string[] {
  if (value.length > 260 || !ALLOWED_HOST.test(value)) {
    throw new InvalidArgumentError(
      "Use a host as a Host header names it, such as tools.example.com or tools.example.com:8443 (no scheme or path), or '*'.",
    );
  }
  return [...(previous ?? []), value.toLowerCase()];
}

function parsePort(value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) throw new InvalidArgumentError('Use a whole number from 0 to 65535.');
  return port;
}
