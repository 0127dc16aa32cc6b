import { READ_TOOL_OUTPUT } from '../../registry/read-tool-output.js';
import type { ServedConfig, ServedToolSource } from '../../server/served-config.js';
import type { LoadedTools } from '../load-registry.js';

/**
 * What `toolshed serve` serves to `workspaceId` from the tools it loaded: the configuration's tools
 * (or the `--tools` paths') with their sources, the built-ins the configuration names, its agents
 * (only the `--agent` one when given), and the MCP servers that did not come up (their rows stay).
 * The configuration's file tools are kept only when it names a `workspace:` folder; otherwise the
 * workspace's files live in the database, as for every other workspace. `undefined` when there is
 * neither a configuration nor `--tools` paths.
 *
 * @example
 * ```ts
 * const served = servedConfigOf(tools, 'default', ['tools/search.yaml']);
 * ```
 */
export function servedConfigOf(
  tools: LoadedTools,
  workspaceId: string,
  toolPaths: readonly string[],
): ServedConfig | undefined {
  const config = tools.config;
  if (config === undefined) {
    if (toolPaths.length === 0) return undefined;
    return {
      workspaceId,
      origin: toolPaths.join(', '),
      tools: tools.registry
        .tools()
        .filter((spec) => spec.name !== READ_TOOL_OUTPUT)
        .map((spec) => ({ spec, source: 'config' as const })),
      agents: [],
    };
  }
  const served: Array<ServedConfig['tools'][number]> = [];
  const builtins: string[] = [];
  // The file's `defaults:` go with each tool, as `toolshed mcp` and `toolshed call` apply them; the
  // output reader is left out (every view has its own; it is not a tool of the configuration).
  for (const spec of config.specs(tools.registry)) {
    const source = sourceName(config.sourceOf(spec.name));
    if (source === 'builtin') {
      builtins.push(spec.name);
      // Without a `workspace:` folder the workspace's files are the database's, like any workspace's.
      if (spec.category === 'filesystem' && !config.config.workspaceSet) continue;
    }
    served.push({ spec, source });
  }
  const agents = tools.agent === undefined ? config.agents : [tools.agent];
  return {
    workspaceId,
    origin: tools.configLabel ?? config.config.file,
    tools: served,
    builtins,
    agents: agents.map((agent) => ({
      id: agent.id,
      ...(agent.name === undefined ? {} : { name: agent.name }),
      ...(agent.description === undefined ? {} : { description: agent.description }),
      ...(agent.prompt === undefined ? {} : { prompt: agent.prompt }),
      tools: agent.tools,
      config: agent.config,
      ...(agent.prompts === undefined ? {} : { prompts: agent.prompts }),
      ...(agent.resources === undefined ? {} : { resources: agent.resources }),
    })),
    catalog: config.config.catalog,
    keepSources: config.mcpFailures.map((failure) => `mcp:${failure.name}`),
    limits: config.config.server.limits,
  };
}

function sourceName(source: ReturnType<NonNullable<LoadedTools['config']>['sourceOf']>): ServedToolSource {
  if (source === 'builtin' || source === 'module') return source;
  if (source?.startsWith('mcp:')) return source as `mcp:${string}`;
  // YAML definitions, `custom_tools` REST tools and `--tools` paths.
  return 'config';
}
