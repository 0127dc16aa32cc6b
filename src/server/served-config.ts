import type { PromptSpec } from '../core/define-prompt.js';
import type { ResourceSpec, ResourceTemplateSpec } from '../core/define-resource.js';
import type { ToolSpec } from '../core/tool-spec.js';
import type {
  AgentSyncResult,
  CallLimitInput,
  McpCatalogSyncInput,
  McpCatalogSyncResult,
  ToolSyncResult,
  ToolshedStore,
} from '../store/index.js';

/** The source of a tool a configuration defines, as its row records it (`builtin` ones are not rows of their own). */
export type ServedToolSource = 'builtin' | 'config' | 'module' | `mcp:${string}`;

/**
 * A configuration as the service serves it to one workspace: its tools (each with its handler and
 * source), the built-ins that workspace has, its agents, and where it was read from.
 *
 * @example
 * ```ts
 * const served: ServedConfig = {
 *   workspaceId: 'default',
 *   origin: 'toolshed.yaml',
 *   tools: [{ spec: wordCount, source: 'config' }],
 *   builtins: ['read_file', 'calculator'],
 *   agents: [{ id: 'assistant', tools: ['read_file', 'word_count'], config: {} }],
 * };
 * ```
 */
export interface ServedConfig {
  /** The workspace the configuration's tools and agents belong to. */
  readonly workspaceId: string;
  /** The configuration file as messages show it ("defined in toolshed.yaml"). */
  readonly origin: string;
  /**
   * The configuration's tools with their handlers. A `builtin` one replaces the service's handler of
   * that name in this workspace (a file tool confined to the configuration's `workspace:` folder);
   * the others become rows of the workspace.
   */
  readonly tools: ReadonlyArray<{ readonly spec: ToolSpec; readonly source: ServedToolSource }>;
  /** The built-ins the workspace has; every other built-in is hidden there. Omit for all of them. */
  readonly builtins?: readonly string[];
  readonly agents: ReadonlyArray<{
    readonly id: string;
    readonly name?: string;
    readonly description?: string;
    /** The agent's system prompt (`prompt:`), put before its tools' docs in its `system_prompt` prompt. */
    readonly prompt?: string;
    readonly tools: readonly string[];
    /** Per-tool config, handed to handlers as `ctx.config`. */
    readonly config: Readonly<Record<string, Record<string, unknown>>>;
    /** The prompts of `catalog` the agent's MCP endpoint serves (by name); none when absent. */
    readonly prompts?: readonly string[];
    /** The resources and templates of `catalog` the agent's MCP endpoint serves (by URI); none when absent. */
    readonly resources?: readonly string[];
  }>;
  /** The configuration's prompts, resources and resource templates, served over MCP in its workspace. */
  readonly catalog?: {
    readonly prompts: readonly PromptSpec[];
    readonly resources: readonly ResourceSpec[];
    readonly resourceTemplates: readonly ResourceTemplateSpec[];
  };
  /** Sources whose rows stay although they list no tools now (MCP servers that did not come up). */
  readonly keepSources?: readonly string[];
  /** The configuration's call limits (`server.limits`) for this workspace; a stored limit of the same scope and target wins. */
  readonly limits?: readonly CallLimitInput[];
}

/** What {@link syncServedConfig} changed. */
export interface ServedConfigSync {
  tools: ToolSyncResult;
  agents: AgentSyncResult;
  /** The `mcp_catalog` rows (prompts, resources, templates) added, updated and removed, as `kind:key`. */
  catalog: McpCatalogSyncResult;
}

/**
 * Make the store match a served configuration: its tools become rows of its workspace (added,
 * updated, and pruned when gone, never touching rows of other sources), the built-ins it leaves out
 * are hidden there, and its agents become `config` agents with exactly their tools attached. Creates
 * the workspace when it does not exist yet.
 *
 * @example
 * ```ts
 * const { tools } = await syncServedConfig(store, served);
 * tools.removed; // ['old_tool']
 * ```
 */
export async function syncServedConfig(store: ToolshedStore, served: ServedConfig): Promise<ServedConfigSync> {
  if ((await store.workspaces.get(served.workspaceId)) === undefined) {
    await store.workspaces.create({ id: served.workspaceId, name: served.workspaceId });
  }
  const tools = await store.tools.sync(served.workspaceId, {
    origin: served.origin,
    tools: served.tools.flatMap(({ spec, source }) => (source === 'builtin' ? [] : [{ ...spec, source }])),
    ...(served.builtins === undefined ? {} : { builtins: served.builtins }),
    ...(served.keepSources === undefined ? {} : { keepSources: served.keepSources }),
  });
  const agents = await store.agents.sync(served.workspaceId, {
    origin: served.origin,
    agents: served.agents.map((agent) => ({
      id: agent.id,
      ...(agent.name === undefined ? {} : { name: agent.name }),
      ...(agent.description === undefined ? {} : { description: agent.description }),
      tools: agent.tools.map((toolId) => ({
        toolId,
        config: Object.hasOwn(agent.config, toolId) ? (agent.config[toolId] ?? null) : null,
      })),
    })),
  });
  const catalog = await store.mcpCatalog.sync(served.workspaceId, {
    origin: served.origin,
    entries: catalogEntriesOf(served),
  });
  return { tools, agents, catalog };
}

/** The `mcp_catalog` rows of a served configuration: its prompts, resources and templates, with the agents that name each. */
function catalogEntriesOf(served: ServedConfig): McpCatalogSyncInput['entries'] {
  const catalog = served.catalog;
  if (catalog === undefined) return [];
  const naming = (pick: (agent: ServedConfig['agents'][number]) => readonly string[] | undefined, key: string) =>
    served.agents.filter((agent) => pick(agent)?.includes(key) === true).map((agent) => agent.id);
  // A configuration's entries keep the definition as written; one defined in code keeps its listing.
  const definitionOf = (metadata: Readonly<Record<string, unknown>> | undefined, listing: Record<string, unknown>) => {
    const definition = metadata?.definition;
    return definition !== null && typeof definition === 'object' ? (definition as Record<string, unknown>) : listing;
  };
  return [
    ...catalog.prompts.map((prompt) => ({
      kind: 'prompt' as const,
      key: prompt.name,
      name: prompt.name,
      description: prompt.description,
      definition: definitionOf(prompt.metadata, {
        name: prompt.name,
        description: prompt.description,
        arguments: prompt.arguments,
      }),
      agents: naming((agent) => agent.prompts, prompt.name),
    })),
    ...catalog.resources.map((resource) => ({
      kind: 'resource' as const,
      key: resource.uri,
      name: resource.name,
      ...(resource.description === undefined ? {} : { description: resource.description }),
      definition: definitionOf(resource.metadata, {
        uri: resource.uri,
        name: resource.name,
        ...(resource.mimeType === undefined ? {} : { mime_type: resource.mimeType }),
      }),
      agents: naming((agent) => agent.resources, resource.uri),
    })),
    ...catalog.resourceTemplates.map((template) => ({
      kind: 'resource_template' as const,
      key: template.uriTemplate,
      name: template.name,
      ...(template.description === undefined ? {} : { description: template.description }),
      definition: definitionOf(template.metadata, {
        uri_template: template.uriTemplate,
        name: template.name,
        ...(template.mimeType === undefined ? {} : { mime_type: template.mimeType }),
      }),
      agents: naming((agent) => agent.resources, template.uriTemplate),
    })),
  ];
}
