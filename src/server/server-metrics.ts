import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ToolResult } from '../core/tool-result.js';
import type { McpServerStatus } from '../mcp/import-mcp-server.js';
import type { SandboxPoolStats } from '../sandbox/sandbox-pool.js';

/**
 * The `tool` label of the calls of every tool that {@link ServerMetricsOptions.namedTool} does not
 * name; parenthesized so that it is never a tool's name.
 */
export const WORKSPACE_TOOL_LABEL = '(workspace)';

/**
 * Options of {@link ServerMetrics}.
 *
 * @example
 * ```ts
 * const options: ServerMetricsOptions = { namedTool: (tool) => ['calculator', 'read_file'].includes(tool) };
 * ```
 */
export interface ServerMetricsOptions {
  /**
   * Whether a tool's calls are labelled with its name: true for the tools the server defines for
   * everyone (built-ins, `--config` tools). The others — tools a workspace created — are counted
   * together under `tool="(workspace)"` ({@link WORKSPACE_TOOL_LABEL}), so the metrics, which are
   * public, never show a workspace's tool ids (and their label sets stay few). Default: every name.
   */
  namedTool?: (tool: string) => boolean;
  /**
   * The served configuration's MCP servers, read at each scrape: `toolshed_mcp_server_up{server}` (1
   * up, 0 down or failed) and `toolshed_mcp_server_reconnects_total{server}`.
   */
  upstreams?: () => readonly McpServerStatus[];
  /**
   * The sandbox pools of the code tools, read at each scrape: `toolshed_sandbox_processes{language,
   * state}` (processes `idle`, `busy` and `starting`) and `toolshed_sandbox_queued_calls{language}`
   * (calls waiting for a process).
   */
  sandboxes?: () => ReadonlyArray<{ readonly language: string; readonly stats: SandboxPoolStats }>;
}

/**
 * The Prometheus metrics of a server: calls, errors and latency per tool, in a registry of its own
 * (so two servers in one process do not clash). Tools that `namedTool` does not name share the label
 * `(workspace)`.
 *
 * @example
 * ```ts
 * const metrics = new ServerMetrics({ namedTool: (tool) => tool === 'read_file' });
 * metrics.observe('read_file', result); // tool="read_file"
 * metrics.observe('acme_crm_lookup', result); // tool="(workspace)"
 * const text = await metrics.render();
 * ```
 */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly #namedTool: (tool: string) => boolean;
  readonly #calls = new Counter({
    name: 'toolshed_tool_calls_total',
    help: 'Tool calls by tool and result status.',
    labelNames: ['tool', 'status'] as const,
    registers: [this.registry],
  });
  readonly #errors = new Counter({
    name: 'toolshed_tool_call_errors_total',
    help: 'Failed tool calls by tool and error code.',
    labelNames: ['tool', 'code'] as const,
    registers: [this.registry],
  });
  readonly #latency = new Histogram({
    name: 'toolshed_tool_call_duration_seconds',
    help: 'Tool call latency by tool.',
    labelNames: ['tool'] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });

  readonly #serverErrors = new Counter({
    name: 'toolshed_http_server_errors_total',
    help: 'Requests answered with a 5xx status, by route pattern and status.',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  });

  // Each label set's child metric, kept: prom-client hashes a label object on every `inc(labels)`,
  // a child increments directly. Bounded by the named tools times the statuses.
  readonly #callsBy = new Map<string, { inc(): void }>();
  readonly #latencyBy = new Map<string, { observe(value: number): void }>();

  constructor(options: ServerMetricsOptions = {}) {
    this.#namedTool = options.namedTool ?? (() => true);
    if (options.sandboxes !== undefined) this.#sandboxGauges(options.sandboxes);
    if (options.upstreams !== undefined) this.#upstreamMetrics(options.upstreams);
  }

  #upstreamMetrics(upstreams: NonNullable<ServerMetricsOptions['upstreams']>): void {
    new Gauge({
      name: 'toolshed_mcp_server_up',
      help: 'Whether each MCP server of the configuration is connected (1) or not (0).',
      labelNames: ['server'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const server of upstreams()) this.set({ server: server.name }, server.state === 'up' ? 1 : 0);
      },
    });
    // A counter catches up with each server's own count at every scrape.
    const counted = new Map<string, number>();
    new Counter({
      name: 'toolshed_mcp_server_reconnects_total',
      help: 'Times each MCP server of the configuration was connected again after it was lost.',
      labelNames: ['server'] as const,
      registers: [this.registry],
      collect() {
        for (const server of upstreams()) {
          const before = counted.get(server.name) ?? 0;
          // A reload starts a server's count again: count on from there.
          const added = server.reconnects >= before ? server.reconnects - before : server.reconnects;
          this.inc({ server: server.name }, added);
          counted.set(server.name, server.reconnects);
        }
      },
    });
  }

  #sandboxGauges(sandboxes: NonNullable<ServerMetricsOptions['sandboxes']>): void {
    new Gauge({
      name: 'toolshed_sandbox_processes',
      help: 'Sandbox processes of each language: idle (ready for a call), busy and starting.',
      labelNames: ['language', 'state'] as const,
      registers: [this.registry],
      collect() {
        for (const { language, stats } of sandboxes()) {
          this.set({ language, state: 'idle' }, stats.idle);
          this.set({ language, state: 'busy' }, stats.busy);
          this.set({ language, state: 'starting' }, stats.starting);
        }
      },
    });
    new Gauge({
      name: 'toolshed_sandbox_queued_calls',
      help: 'Calls of each sandbox language waiting for a process.',
      labelNames: ['language'] as const,
      registers: [this.registry],
      collect() {
        for (const { language, stats } of sandboxes()) this.set({ language }, stats.queued);
      },
    });
  }

  /** Count one call of `name` (a name the workspace has, never arbitrary client text). */
  observe(name: string, result: ToolResult): void {
    const tool = this.#namedTool(name) ? name : WORKSPACE_TOOL_LABEL;
    const key = `${tool}\u0000${result.status}`;
    let calls = this.#callsBy.get(key);
    if (calls === undefined) {
      calls = this.#calls.labels({ tool, status: result.status });
      this.#callsBy.set(key, calls);
    }
    calls.inc();
    if (result.status !== 'success' && result.status !== 'pending_approval') {
      this.#errors.inc({ tool, code: result.error.code });
    }
    let latency = this.#latencyBy.get(tool);
    if (latency === undefined) {
      latency = this.#latency.labels({ tool });
      this.#latencyBy.set(tool, latency);
    }
    latency.observe(result.metadata.durationMs / 1000);
  }

  /**
   * Count one request answered with a 5xx status. `route` is the route's pattern
   * (`POST /api/tools/:toolId/call`, or `(none)`), never a URL with its ids, so the label set stays small.
   *
   * @example
   * ```ts
   * metrics.countServerError('GET /api/agents', 500);
   * // toolshed_http_server_errors_total{route="GET /api/agents",status="500"} 1
   * ```
   */
  countServerError(route: string, status: number): void {
    this.#serverErrors.inc({ route, status: String(status) });
  }

  /** The metrics in the Prometheus text format. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** The content type of {@link render}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
