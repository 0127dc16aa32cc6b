import { createRestTool, type RestToolOptions } from '../builtins/web/rest-tool.js';
import { defineTool } from '../core/define-tool.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type { McpServerConnection, McpServerLogEntry, McpServerStatus } from '../mcp/import-mcp-server.js';
import type { UpstreamPins } from '../mcp/upstream-pins.js';
import { READ_TOOL_OUTPUT } from '../registry/read-tool-output.js';
import { ToolRegistry, type ToolRegistryOptions } from '../registry/tool-registry.js';
import { type ConfigDiagnostic, ConfigError } from './config-diagnostic.js';
import {
  type AgentConfig,
  type CatalogEntry,
  type ConfigOptions,
  type ToolshedConfig,
  validateConfig,
} from './validate-config.js';

/** A configuration turned into a live registry. */
export interface LoadedConfig {
  config: ToolshedConfig;
  /** Every tool the configuration enables. */
  registry: ToolRegistry;
  /** Warnings (errors make `loadConfig` throw). */
  diagnostics: ConfigDiagnostic[];
  agents: AgentConfig[];
  /** The tools of one agent, with its per-tool config as `ctx.config`; throws for an unknown id. */
  agent(id: string): ToolRegistry;
  /** The `mcp_servers` connections that came up (each reconnects by itself if its server is lost). */
  mcpServers: McpServerConnection[];
  /**
   * The `mcp_servers` that did not come up, each with the error naming it (and the tail of its
   * stderr); `retrying` when it is being tried again (`retryMcpStart`), and is then in `mcpServers` too.
   */
  mcpFailures: Array<{ name: string; message: string; retrying?: boolean }>;
  /** Each `mcp_servers` entry's state now, in the file's order (`failed`: it did not come up). */
  mcpStatus(): McpServerStatus[];
  /** The environment the tools see: the process environment over `.env` beside the file. */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * The tools of `view` (default: every tool) as specs that carry the file's `defaults:` — a tool's
   * own `timeout`, `max_output_chars` and `extra_args` first, else the file's — so they mean the same
   * in a registry built without those defaults (the service's workspace registries). Leaves out
   * `read_tool_output`, which reads the outputs of the registry that cut them: the receiving registry
   * brings its own.
   */
  specs(view?: ToolRegistry): ToolSpec[];
  /**
   * Where each tool of `registry` comes from: a definition file, a module, a built-in, a `custom_tools`
   * REST tool, or `mcp:<server>` for an imported tool (as its server lists it now).
   */
  sourceOf(name: string): CatalogEntry['source'] | `mcp:${string}` | undefined;
  /** Disconnect MCP servers. */
  close(): Promise<void>;
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions extends ConfigOptions {
  /** Settings for the registry (the file's `defaults:` fill what is not set here). */
  registryOptions?: ToolRegistryOptions;
  /** Connect to `mcp_servers` and import their tools (default true). */
  connectMcp?: boolean;
  /**
   * Keep trying an `mcp_servers` entry that does not come up at first, with the backoff of a lost one,
   * and import its tools once it does (default false: it is left out; `toolshed mcp` sets it, having no
   * reload that could try it again).
   */
  retryMcpStart?: boolean;
  /** Told when an `mcp_servers` connection is lost and when it is back (`toolshed serve` logs it). */
  onMcpStateChange?: (server: string, state: 'up' | 'down', message: string) => void;
  /**
   * Pin the definitions of the `mcp_servers:` tools there: a tool whose definition changed since it
   * was pinned is quarantined until approved (`toolshed serve` keeps the pins in its database).
   */
  mcpPins?: UpstreamPins;
  /** Told of the log messages the `mcp_servers` send (at `info` and above); without it they are dropped. */
  onMcpLog?: (server: string, entry: McpServerLogEntry) => void;
  /** Options for REST tools (tests exempt a loopback fake from the SSRF guard). */
  restTools?: RestToolOptions;
}

/**
 * Build a registry from `toolshed.yaml` (SPEC §5.1): tool definition files and modules, the built-ins
 * it enables (also those agents name), REST tools from `custom_tools`, and the tools of `mcp_servers`.
 * Throws {@link ConfigError} listing every error when the file does not validate; a tool whose
 * credentials are missing still loads and fails only its own calls with `MISSING_CREDENTIALS`.
 *
 * @example
 * ```ts
 * const loaded = await loadConfig('toolshed.yaml');
 * const research = loaded.agent('research');
 * await research.call('serper_search', { query: 'toolshed' });
 * await loaded.close();
 * ```
 */
export async function loadConfig(path: string, options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const check = await validateConfig(path, options);
  const errors = check.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  if (errors.length > 0 || check.config === undefined) throw new ConfigError(check.diagnostics);
  const config = check.config;
  const registry = new ToolRegistry({
    env: check.env,
    ...(config.defaults.timeoutMs === undefined ? {} : { defaultTimeoutMs: config.defaults.timeoutMs }),
    ...(config.defaults.maxOutputChars === undefined ? {} : { maxOutputChars: config.defaults.maxOutputChars }),
    ...(config.defaults.extraArgs === undefined ? {} : { extraArgs: config.defaults.extraArgs }),
    ...options.registryOptions,
  });
  const specs: ToolSpec[] = [];
  for (const entry of check.catalog.values()) if (entry.spec !== undefined) specs.push(entry.spec);
  for (const tool of config.customTools) specs.push(createRestTool(tool, options.restTools));
  registry.registerAll(specs);

  const connections: McpServerConnection[] = [];
  const mcpFailures: LoadedConfig['mcpFailures'] = [];
  const loadedAt = new Date().toISOString();
  if (options.connectMcp !== false && config.mcpServers.length > 0) {
    // The MCP client loads only for configurations that use it.
    const { importMcpServer } = await import('../mcp/import-mcp-server.js');
    // All at once, and one that does not come up never keeps the others from serving.
    const settled = await Promise.allSettled(
      config.mcpServers.map((server) =>
        importMcpServer(
          registry,
          { ...server, cwd: server.cwd ?? config.baseDir },
          {
            env: check.env,
            ...(options.retryMcpStart === true ? { retryStart: true } : {}),
            ...(options.mcpPins === undefined ? {} : { pins: options.mcpPins }),
            ...(options.onMcpLog === undefined
              ? {}
              : { onLog: (entry: McpServerLogEntry) => options.onMcpLog?.(server.name, entry) }),
            ...(options.onMcpStateChange === undefined
              ? {}
              : { onStateChange: (state, message) => options.onMcpStateChange?.(server.name, state, message) }),
          },
        ),
      ),
    );
    settled.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled') {
        connections.push(outcome.value);
        // Not up after the import: it did not come up, and is being tried again.
        if (outcome.value.state !== 'up') {
          const { name, lastError } = outcome.value;
          mcpFailures.push({ name, message: lastError ?? `MCP server '${name}' did not come up`, retrying: true });
        }
      } else mcpFailures.push({ name: config.mcpServers[index]!.name, message: (outcome.reason as Error).message });
    });
  }

  const views = new Map<string, ToolRegistry>();
  return {
    config,
    registry,
    diagnostics: check.diagnostics,
    agents: config.agents,
    mcpServers: connections,
    mcpFailures,
    mcpStatus() {
      return config.mcpServers.flatMap((server): McpServerStatus[] => {
        const connection = connections.find((each) => each.name === server.name);
        if (connection !== undefined) {
          return [
            {
              name: server.name,
              state: connection.state === 'up' ? 'up' : 'down',
              since: connection.since,
              ...(connection.lastError === undefined ? {} : { lastError: connection.lastError }),
              tools: connection.tools.length,
              reconnects: connection.reconnects,
            },
          ];
        }
        const failure = mcpFailures.find((each) => each.name === server.name);
        if (failure === undefined) return [];
        return [
          { name: server.name, state: 'failed', since: loadedAt, lastError: failure.message, tools: 0, reconnects: 0 },
        ];
      });
    },
    env: check.env,
    specs(view = registry) {
      return view
        .tools()
        .flatMap((spec) => (spec.name === READ_TOOL_OUTPUT ? [] : [withConfigDefaults(spec, config.defaults)]));
    },
    sourceOf(name) {
      const entry = check.catalog.get(name);
      if (entry !== undefined) return entry.source;
      if (config.customTools.some((tool) => tool.id === name)) return 'custom_tool';
      const connection = connections.find((each) => each.tools.includes(name));
      return connection === undefined ? undefined : `mcp:${connection.name}`;
    },
    agent(id: string) {
      const known = views.get(id);
      if (known !== undefined) return known;
      const agent = config.agents.find((candidate) => candidate.id === id);
      if (agent === undefined) {
        const ids = config.agents.map((candidate) => candidate.id);
        throw new Error(`No agent '${id}' in ${config.file}. Agents: ${ids.length > 0 ? ids.join(', ') : 'none'}.`);
      }
      const view = registry.subset(agent.tools, { strict: false, config: agent.config });
      // Keep the view in step with the registry: an MCP server may add or drop a listed tool later.
      const listed = new Set(agent.tools);
      registry.on('change', (change) => {
        for (const name of change.type === 'clear' ? view.list() : change.names) {
          if (!listed.has(name)) continue;
          if (registry.has(name)) view.register(registry.get(name), { allowOverride: true });
          else view.unregister(name);
        }
      });
      views.set(id, view);
      return view;
    },
    async close() {
      await Promise.allSettled(connections.map((connection) => connection.close()));
    },
  };
}

/**
 * `spec` with the configuration's `defaults:` filled in where the tool sets none of its own: the
 * timeout, the output budget and what to do with undeclared arguments.
 *
 * @example
 * ```ts
 * withConfigDefaults(spec, { timeoutMs: 2000 }).timeoutMs; // 2000 unless the tool sets a timeout
 * ```
 */
function withConfigDefaults(spec: ToolSpec, defaults: ToolshedConfig['defaults']): ToolSpec {
  const timeoutMs = spec.timeoutMs ?? defaults.timeoutMs;
  const maxOutputChars = spec.maxOutputChars ?? defaults.maxOutputChars;
  const extraArgs = spec.extraArgs ?? defaults.extraArgs;
  if (timeoutMs === spec.timeoutMs && maxOutputChars === spec.maxOutputChars && extraArgs === spec.extraArgs) {
    return spec;
  }
  return defineTool({
    ...spec,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(maxOutputChars === undefined ? {} : { maxOutputChars }),
    ...(extraArgs === undefined ? {} : { extraArgs }),
  });
}
