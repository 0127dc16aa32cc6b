import { stat } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { ConfigError, formatDiagnostic } from '../config/config-diagnostic.js';
import type { LoadedConfig } from '../config/load-config.js';
import type { AgentConfig, ConfigOptions, MoreBuiltins } from '../config/validate-config.js';
import { ToolshedError } from '../core/errors/toolshed-error.js';
import type { McpServerLogEntry } from '../mcp/import-mcp-server.js';
import type { UpstreamPins } from '../mcp/upstream-pins.js';

type LoadToolsMcpLog = (server: string, entry: McpServerLogEntry) => void;

import type { ToolSpec } from '../core/tool-spec.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { ToolsOptions } from './cli-context.js';
import { CliError } from './cli-error.js';
import { emailBuiltins } from './email-builtins.js';
import { environmentVariable } from './environment-variable.js';
import { type CliIo, visible } from './output.js';

/** The configuration file a run reads when `--config` is not given and the file exists. */
export const DEFAULT_CONFIG_FILE = 'toolshed.yaml';

/** A `--tools` path that exists, and whether it is one definition file or a folder of them. */
export interface ToolSource {
  /** The path as the user gave it (shown in messages). */
  path: string;
  /** The path resolved against the working folder. */
  absolutePath: string;
  kind: 'file' | 'directory';
}

/**
 * Check the `--tools` paths without loading anything. With no paths, `./tools` is used when that
 * folder exists, and otherwise there are no sources (an empty registry). The same path given twice
 * is loaded once.
 *
 * Throws {@link CliError} (exit 1) for a path that does not exist or is neither a file nor a folder.
 *
 * @example
 * ```ts
 * await resolveToolSources(['tools/search.yaml', 'more-tools'], process.cwd());
 * // [{ path: 'tools/search.yaml', kind: 'file', ... }, { path: 'more-tools', kind: 'directory', ... }]
 * ```
 */
export async function resolveToolSources(paths: readonly string[], cwd: string): Promise<ToolSource[]> {
  if (paths.length === 0) {
    const absolutePath = resolve(cwd, 'tools');
    const info = await stat(absolutePath).catch(() => undefined);
    return info?.isDirectory() === true ? [{ path: 'tools', absolutePath, kind: 'directory' }] : [];
  }
  const sources: ToolSource[] = [];
  const seen = new Set<string>();
  for (const path of paths) {
    const absolutePath = resolve(cwd, path);
    if (seen.has(absolutePath)) continue;
    seen.add(absolutePath);
    let kind: ToolSource['kind'];
    try {
      const info = await stat(absolutePath);
      if (info.isDirectory()) kind = 'directory';
      else if (info.isFile()) kind = 'file';
      else throw new CliError(`error: --tools path '${visible(path)}' is neither a file nor a folder.`);
    } catch (error) {
      if (error instanceof CliError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        throw new CliError(
          `error: --tools path '${visible(path)}' does not exist; pass a YAML definition file or a folder of *.yaml files.`,
        );
      }
      throw new CliError(`error: --tools path '${visible(path)}' cannot be read: ${(error as Error).message}`);
    }
    sources.push({ path, absolutePath, kind });
  }
  return sources;
}

/**
 * A registry holding the tools of `sources` (a fresh one, or `into` when given), loaded in order: a folder with
 * `loadYamlDirectory` (its `*.yaml` files, all or nothing), a file with `loadYamlFile`.
 *
 * The registry module (and with it Ajv) is imported here, on first use, so verbs that never load
 * tools, and `--help`, start without it. Load errors propagate as the registry's
 * `ToolRegistrationError`, whose message starts with `file:line:col:`, except a name defined already
 * (by `into`, which `intoLabel` names in the message, or an earlier source): a {@link CliError} saying
 * so, since the registry's message names a library option.
 *
 * @example
 * ```ts
 * const registry = await loadRegistry(await resolveToolSources(['./tools'], process.cwd()));
 * registry.list(); // ['add_numbers', 'echo']
 * ```
 */
export async function loadRegistry(
  sources: readonly ToolSource[],
  into?: ToolRegistry,
  intoLabel = 'the configuration',
): Promise<ToolRegistry> {
  let registry = into;
  if (registry === undefined) {
    const { ToolRegistry } = await import('../registry/tool-registry.js');
    registry = new ToolRegistry();
  }
  const configured = new Set(into?.list() ?? []);
  for (const source of sources) {
    try {
      if (source.kind === 'directory') await registry.loadYamlDirectory(source.absolutePath);
      else await registry.loadYamlFile(source.absolutePath);
    } catch (error) {
      throw await twiceInWords(error, (name) => (configured.has(name) ? intoLabel : 'an earlier --tools path'));
    }
  }
  return registry;
}

/**
 * A load error whose tools are taken already, reworded for the command line: the registry's message
 * names `allowOverride`, an option of the library a CLI user cannot pass. `definedBy` says where the
 * first definition of a name came from.
 */
async function twiceInWords(error: unknown, definedBy: (name: string) => string): Promise<unknown> {
  const { ToolRegistrationError } = await import('../core/errors/tool-registration-error.js');
  if (!ToolRegistrationError.isInstance(error)) return error;
  const taken = (each: InstanceType<typeof ToolRegistrationError>) =>
    each.code === 'DUPLICATE_TOOL' && each.toolName !== undefined && each.message.includes('allowOverride');
  const reworded = (each: InstanceType<typeof ToolRegistrationError>) =>
    `${each.file === undefined ? '' : `${each.file}: `}tool '${each.toolName}' is defined twice: ${definedBy(each.toolName ?? '')} defines it too; load each definition once, or rename one of the tools.`;
  if (taken(error)) return new CliError(reworded(error));
  const nested = error.errors.filter(taken);
  if (nested.length === 0) return error;
  let message = error.message;
  for (const each of nested) message = message.replace(each.message, reworded(each));
  return new CliError(message);
}

/** Where a run's tools come from, checked but not loaded: a configuration file, `--tools` paths, an agent. */
export interface ToolSetup {
  /** The configuration file, resolved; absent when there is none. */
  configFile: string | undefined;
  /** The `--tools` paths (or the default `./tools` when there is neither `--tools` nor a configuration). */
  sources: ToolSource[];
  /** `--agent ID`. */
  agent: string | undefined;
  /** `--sandbox-allow-network`: the configuration's code built-ins run without a network namespace. */
  sandboxAllowNetwork: boolean;
}

/**
 * Decide where tools come from without loading anything: `--config FILE` (or `./toolshed.yaml` when it
 * exists) and the `--tools` paths, which combine. Without a configuration and without `--tools`,
 * `./tools` is used when that folder exists; with a configuration it is not (the file names its tools).
 * With none of them, {@link loadTools} gives the built-in tools.
 *
 * Throws {@link CliError} (exit 1) for a `--tools` path that does not exist, and for `--agent` without
 * a configuration.
 *
 * @example
 * ```ts
 * const setup = await resolveToolSetup({ config: 'examples/toolshed.yaml', agent: 'assistant' }, process.cwd());
 * ```
 */
export async function resolveToolSetup(options: ToolsOptions, cwd: string): Promise<ToolSetup> {
  let configFile: string | undefined;
  if (options.config !== undefined) configFile = resolve(cwd, options.config);
  else {
    const candidate = resolve(cwd, DEFAULT_CONFIG_FILE);
    const info = await stat(candidate).catch(() => undefined);
    if (info?.isFile() === true) configFile = candidate;
  }
  const paths = options.tools ?? [];
  const sources = configFile !== undefined && paths.length === 0 ? [] : await resolveToolSources(paths, cwd);
  if (options.agent !== undefined && configFile === undefined) {
    throw new CliError(
      `error: --agent '${visible(options.agent)}' needs a configuration that defines agents; pass --config FILE or create ./${DEFAULT_CONFIG_FILE}.`,
    );
  }
  return { configFile, sources, agent: options.agent, sandboxAllowNetwork: options.sandboxAllowNetwork === true };
}

/** The tools of a run, loaded: what the verb works on, and the whole set behind it. */
export interface LoadedTools {
  /** The tools the verb works on: the agent's view with `--agent`, else every tool. */
  registry: ToolRegistry;
  /** Every tool: the configuration's and the `--tools` paths'. */
  all: ToolRegistry;
  /** The loaded configuration, when there is one (its agents, per-agent views, MCP connections). */
  config: LoadedConfig | undefined;
  /** The agent `--agent` chose. */
  agent: AgentConfig | undefined;
  /** The configuration file as shown in messages (relative to the working folder when inside it). */
  configLabel: string | undefined;
  /** Disconnect the MCP servers the configuration started; safe to call more than once. */
  close(): Promise<void>;
}

/**
 * The tools a command may call, for which it prints missing-credential warnings: `'all'` (`mcp`,
 * `serve`), some names (`call`), or none (`[]`: `list`, `describe`, `export` and the other verbs that
 * only read definitions).
 */
export type ToolsCalled = 'all' | readonly string[];

/**
 * Load the tools of a {@link ToolSetup}: the configuration through `loadConfig` (its warnings go to
 * stderr, a missing credential only for a tool in `calls`; its errors become a {@link CliError} listing
 * each diagnostic as `file:line:col: ...`, exit 1), then the `--tools` paths into the same registry,
 * then the `--agent` view. With neither a configuration nor `--tools` paths, the built-in tools a
 * workspace of `serve` has (code and email tools included), file tools rooted at the working folder
 * (said in a note on stderr), unless `builtins` is false (`serve`, whose store holds the service's own
 * built-ins, its files in the database). `mcpPins` pins the
 * definitions of the `mcp_servers:` tools (`serve`: in its database), quarantining changed ones;
 * without it, when `TOOLSHED_DATABASE_URL` is set, they are pinned in that database (workspace
 * `default`), which `toolshed mcp-servers changes|approve` reads, opened only if the configuration
 * imports a server; `mcpLog` hears the log messages they send. With `retryMcpStart` (`toolshed mcp`),
 * a server that does not come up is tried again until it does, and its tools are added then. The email
 * tools a configuration names search the corpus of the service database, opened by their first call
 * ({@link emailBuiltins}).
 *
 * The config module (and with it the registry, the built-ins and the MCP client it imports) loads
 * here, inside the verb's action. Call `close()` when done: configured MCP servers are child
 * processes or open connections.
 *
 * @example
 * ```ts
 * const tools = await loadTools(await resolveToolSetup(options, io.cwd), io);
 * try {
 *   console.log(tools.registry.list());
 * } finally {
 *   await tools.close();
 * }
 * ```
 */
export async function loadTools(
  setup: ToolSetup,
  io: CliIo,
  calls: ToolsCalled = 'all',
  {
    builtins = true,
    mcpPins,
    mcpLog,
    retryMcpStart = false,
  }: {
    builtins?: boolean;
    mcpPins?: UpstreamPins;
    mcpLog?: (server: string, entry: McpServerLogEntry) => void;
    retryMcpStart?: boolean;
  } = {},
): Promise<LoadedTools> {
  if (setup.configFile === undefined) {
    const { registry, close } =
      setup.sources.length === 0 && builtins
        ? await builtinRegistry(io, setup.sandboxAllowNetwork)
        : { registry: await loadRegistry(setup.sources), close: async () => {} };
    return { registry, all: registry, config: undefined, agent: undefined, configLabel: undefined, close };
  }
  const configLabel = displayPath(setup.configFile, io.cwd);
  const database = mcpPins === undefined ? servicePins(io) : undefined;
  const emails = emailBuiltins(io);
  const closeStores = async () => {
    try {
      await database?.close();
    } finally {
      await emails.close();
    }
  };
  let config: LoadedConfig;
  try {
    config = await loadConfigOrExplain(setup.configFile, configLabel, io, {
      mcpPins: mcpPins ?? database?.pins,
      mcpLog,
      retryMcpStart,
      moreBuiltins: emails.builtins,
      sandbox: setup.sandboxAllowNetwork ? { allowNetwork: true } : {},
    });
  } catch (error) {
    await closeStores();
    throw error;
  }
  const closeAll = async () => {
    try {
      await config.close();
    } finally {
      await closeStores();
    }
  };
  try {
    for (const diagnostic of config.diagnostics) {
      // A missing credential matters only to a command that may call its tool.
      if (diagnostic.tool !== undefined && calls !== 'all' && !calls.includes(diagnostic.tool)) continue;
      io.stderr.write(`${visible(formatDiagnostic(diagnostic))}\n`);
    }
    for (const failure of config.mcpFailures) {
      const until = failure.retrying === true ? ' until it comes up (trying again)' : '';
      io.stderr.write(`warning: going on without MCP server '${failure.name}'${until}: ${visible(failure.message)}\n`);
    }
    await loadRegistry(setup.sources, config.registry, configLabel);
    let agent: AgentConfig | undefined;
    let registry = config.registry;
    if (setup.agent !== undefined) {
      agent = await findAgent(config, setup.agent, configLabel);
      registry = config.agent(agent.id);
    }
    return { registry, all: config.registry, config, agent, configLabel, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** The workspace whose pins the CLI verbs use: the one `toolshed serve` serves by default. */
const PINS_WORKSPACE = 'default';

/**
 * Pins in the service database when `TOOLSHED_DATABASE_URL` is set (see {@link loadTools}): the store is
 * opened at the first review, brought up to date and given the `default` workspace if it lacks it.
 */
function servicePins(io: CliIo): { pins: UpstreamPins; close(): Promise<void> } | undefined {
  if (environmentVariable(io.env, 'TOOLSHED_DATABASE_URL') === undefined) return undefined;
  let opening: Promise<import('../store/index.js').ToolshedStore> | undefined;
  const open = async () => {
    const [{ createStore, StoreConflictError }, { prepareServiceStore, serviceDatabaseUrl }, { storeCliError }] =
      await Promise.all([
        import('../store/index.js'),
        import('./serve/open-service-store.js'),
        import('./with-service-store.js'),
      ]);
    try {
      const store = await createStore(serviceDatabaseUrl(io));
      try {
        await prepareServiceStore(store);
        if ((await store.workspaces.get(PINS_WORKSPACE)) === undefined) {
          // Another process started at the same moment may create it first: that row serves as well.
          await store.workspaces.create({ id: PINS_WORKSPACE, name: PINS_WORKSPACE }).catch((error: unknown) => {
            if (!StoreConflictError.isInstance(error)) throw error;
          });
        }
      } catch (error) {
        await store.close();
        throw error;
      }
      return store;
    } catch (error) {
      throw await storeCliError(error);
    }
  };
  return {
    pins: {
      review: async (server, definitions) => {
        opening ??= open();
        return (await opening).upstreamPins.review(PINS_WORKSPACE, server, definitions);
      },
    },
    close: async () => {
      if (opening === undefined) return;
      const store = await opening.catch(() => undefined);
      await store?.close();
    },
  };
}

/**
 * What a "not found" adds when no configuration was loaded: where the rest of the tools would come from.
 *
 * @example
 * ```ts
 * `Tool 'word_count' not found. ${NO_CONFIGURATION_HINT}`;
 * ```
 */
export const NO_CONFIGURATION_HINT = `No configuration was loaded: pass --config FILE (a toolshed.yaml) or --tools PATH, or create ./${DEFAULT_CONFIG_FILE}.`;

/** The note a run with neither a configuration nor `--tools` prints on stderr: it works on the built-ins. */
export function builtinsNote(cwd: string): string {
  return `note: no configuration or --tools: using the built-in tools; the file tools work in ${cwd}.`;
}

/**
 * The built-in tools a workspace of `toolshed serve` has, with {@link builtinsNote} on stderr: the file
 * tools rooted at the working folder, the web tools, `calculator`, `execute_python` and
 * `execute_javascript` (their sandbox started by the first call; `allowNetwork` is
 * `--sandbox-allow-network`) and the email tools over the service database's corpus
 * ({@link emailBuiltins}, opened by the first call). `close()` closes that database.
 */
async function builtinRegistry(
  io: CliIo,
  allowNetwork: boolean,
): Promise<{ registry: ToolRegistry; close(): Promise<void> }> {
  const emails = emailBuiltins(io);
  const [{ ToolRegistry }, { createBuiltins }, sandbox, emailTools] = await Promise.all([
    import('../registry/tool-registry.js'),
    import('../builtins/create-builtins.js'),
    import('../sandbox/index.js'),
    emails.builtins.create(),
  ]);
  const sandboxOptions = allowNetwork ? { allowNetwork: true } : {};
  const registry = new ToolRegistry();
  registry.registerAll([
    ...createBuiltins({ files: { root: io.cwd } }),
    sandbox.createExecutePythonTool(sandboxOptions) as ToolSpec,
    sandbox.createExecuteJavascriptTool(sandboxOptions) as ToolSpec,
    ...emailTools,
  ]);
  io.stderr.write(`${visible(builtinsNote(io.cwd))}\n`);
  return { registry, close: () => emails.close() };
}

/**
 * Run `action` over the tools of `options` and disconnect configured MCP servers afterwards, whatever
 * happens. A tool name the action cannot find (`TOOL_NOT_FOUND`) becomes a {@link CliError} that also
 * says, when no configuration was loaded, how to load one ({@link NO_CONFIGURATION_HINT}).
 *
 * @example
 * ```ts
 * const names = await withTools(options, io, (tools) => tools.registry.list());
 * ```
 */
export async function withTools<T>(
  options: ToolsOptions,
  io: CliIo,
  action: (tools: LoadedTools) => T | Promise<T>,
  calls: ToolsCalled = [],
): Promise<T> {
  const tools = await loadTools(await resolveToolSetup(options, io.cwd), io, calls);
  try {
    return await action(tools);
  } catch (error) {
    if (tools.config === undefined && ToolshedError.isInstance(error) && error.code === 'TOOL_NOT_FOUND') {
      throw new CliError(`${error.message} ${NO_CONFIGURATION_HINT}`);
    }
    throw error;
  } finally {
    await tools.close();
  }
}

/**
 * The agent `id` of a configuration; an unknown id is a {@link CliError} (exit 1) naming the closest
 * ids and every agent.
 *
 * @example
 * ```ts
 * const agent = await findAgent(loaded, 'asistant', 'toolshed.yaml');
 * // CliError: error: agent 'asistant' not found in toolshed.yaml. Did you mean 'assistant'? Agents: assistant.
 * ```
 */
export async function findAgent(config: LoadedConfig, id: string, configLabel: string): Promise<AgentConfig> {
  // Own ids only: an agent called `constructor` is just an unknown id.
  const agent = config.agents.find((candidate) => candidate.id === id);
  if (agent !== undefined) return agent;
  const ids = config.agents.map((candidate) => candidate.id);
  const { closestNames } = await import('../core/did-you-mean.js');
  const suggestions = closestNames(id, ids, 3);
  const didYouMean =
    suggestions.length === 0 ? '' : ` Did you mean ${suggestions.map((name) => `'${name}'`).join(' or ')}?`;
  throw new CliError(
    `error: agent '${visible(id)}' not found in ${visible(configLabel)}.${didYouMean} Agents: ${ids.length === 0 ? 'none' : ids.join(', ')}.`,
  );
}

/** A path as shown in messages: relative to `cwd` when inside it, else absolute. */
export function displayPath(path: string, cwd: string): string {
  const shown = relative(cwd, path);
  return shown === '' || shown.startsWith('..') ? path : shown;
}

async function loadConfigOrExplain(
  file: string,
  label: string,
  io: CliIo,
  {
    mcpPins,
    mcpLog,
    retryMcpStart,
    moreBuiltins,
    sandbox,
  }: {
    mcpPins?: UpstreamPins | undefined;
    mcpLog?: LoadToolsMcpLog | undefined;
    retryMcpStart: boolean;
    moreBuiltins: MoreBuiltins;
    sandbox: ConfigOptions['sandbox'];
  },
): Promise<LoadedConfig> {
  const { loadConfig } = await import('../config/load-config.js');
  try {
    return await loadConfig(file, {
      env: io.env,
      moreBuiltins,
      sandbox,
      ...(mcpPins === undefined ? {} : { mcpPins }),
      ...(mcpLog === undefined ? {} : { onMcpLog: mcpLog }),
      retryMcpStart,
      onMcpStateChange: (_server, state, message) =>
        io.stderr.write(
          `${state === 'down' ? 'warning: ' : ''}${visible(message)}${state === 'down' ? '; reconnecting' : ''}\n`,
        ),
    });
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new CliError(error.diagnostics.map((diagnostic) => visible(formatDiagnostic(diagnostic))).join('\n'));
    }
    // An MCP server that does not start is a problem of the configuration, not of toolshed (as is
    // any other failure that is neither a registry error nor a system error with its own code).
    const unavailable = ToolshedError.isInstance(error) && error.code === 'MCP_SERVER_UNAVAILABLE';
    if (unavailable || (error instanceof Error && !('code' in error))) {
      throw new CliError(`error: cannot load ${visible(label)}: ${visible(error.message)}`);
    }
    throw error;
  }
}
