import { definePrompt, type PromptSpec } from '../core/define-prompt.js';
import type { ResourceSpec, ResourceTemplateSpec } from '../core/define-resource.js';
import type { ContentCatalog } from '../registry/content-catalog.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { ServedConfig } from './served-config.js';

/** The name of the prompt every MCP endpoint of the service offers: its tools' system-prompt docs. */
export const SYSTEM_PROMPT_NAME = 'system_prompt';

/**
 * Make `catalog` hold what one MCP endpoint of the service serves besides tools: the served
 * configuration's prompts and resources when it is for `workspaceId` — all of them on the workspace's
 * `/mcp`, those an agent names (`prompts:`, `resources:`) on `/mcp/agents/:agentId` — and the
 * `system_prompt` prompt, the system-prompt docs of the endpoint's tools (after the configuration
 * agent's own `prompt`), rendered from `registry` when asked so it follows attachments. Entries that did not
 * change stay; a resource whose contents changed (a reloaded configuration) tells its subscribers.
 *
 * @example
 * ```ts
 * await syncViewCatalog(view.catalog, context.registries.config, 'default', 'support-bot', view.registry);
 * ```
 */
export async function syncViewCatalog(
  catalog: ContentCatalog,
  served: ServedConfig | undefined,
  workspaceId: string,
  agentId: string | undefined,
  registry: ToolRegistry,
): Promise<void> {
  const own = served?.workspaceId === workspaceId ? served : undefined;
  const agent = agentId === undefined ? undefined : own?.agents.find((candidate) => candidate.id === agentId);
  const wantsPrompt = (name: string) => agentId === undefined || agent?.prompts?.includes(name) === true;
  const wantsResource = (uri: string) => agentId === undefined || agent?.resources?.includes(uri) === true;

  const prompts = new Map<string, PromptSpec>();
  for (const prompt of own?.catalog?.prompts ?? []) if (wantsPrompt(prompt.name)) prompts.set(prompt.name, prompt);
  if (!prompts.has(SYSTEM_PROMPT_NAME)) prompts.set(SYSTEM_PROMPT_NAME, systemPrompt(registry, agentId, agent?.prompt));
  for (const prompt of catalog.prompts()) {
    if (!prompts.has(prompt.name)) catalog.unregisterPrompt(prompt.name);
  }
  for (const [name, prompt] of prompts) {
    const current = catalog.findPrompt(name);
    if (current !== undefined && samePrompt(current, prompt)) continue;
    catalog.registerPrompt(prompt, { allowOverride: true });
  }

  const resources = new Map<string, ResourceSpec | ResourceTemplateSpec>();
  for (const resource of own?.catalog?.resources ?? [])
    if (wantsResource(resource.uri)) resources.set(resource.uri, resource);
  for (const template of own?.catalog?.resourceTemplates ?? []) {
    if (wantsResource(template.uriTemplate)) resources.set(template.uriTemplate, template);
  }
  const present = new Map<string, ResourceSpec | ResourceTemplateSpec>([
    ...catalog.resources().map((resource) => [resource.uri, resource] as const),
    ...catalog.resourceTemplates().map((template) => [template.uriTemplate, template] as const),
  ]);
  for (const key of present.keys()) if (!resources.has(key)) catalog.unregisterResource(key);
  for (const [key, wanted] of resources) {
    const current = present.get(key);
    if (current === wanted) continue;
    if ('uriTemplate' in wanted) {
      catalog.registerResourceTemplate(wanted, { allowOverride: true });
      continue;
    }
    const before = current === undefined || 'uriTemplate' in current ? undefined : await contentsOf(current);
    catalog.registerResource(wanted, { allowOverride: true });
    if (before !== undefined && before !== (await contentsOf(wanted))) catalog.notifyUpdated(key);
  }
}

function systemPrompt(
  registry: ToolRegistry,
  agentId: string | undefined,
  agentPrompt: string | undefined,
): PromptSpec {
  return definePrompt({
    name: SYSTEM_PROMPT_NAME,
    title: 'System prompt',
    description:
      agentId === undefined
        ? "The system-prompt docs of this workspace's tools: what each does and when to use it."
        : `The system prompt of agent '${agentId}': its instructions and the docs of its tools.`,
    messages: () => {
      const docs = registry.renderPromptDocs();
      const text = agentPrompt === undefined || agentPrompt.trim() === '' ? docs : `${agentPrompt.trim()}\n\n${docs}`;
      return [{ role: 'user', content: { type: 'text', text } }];
    },
    metadata: { source: 'builtin', agentPrompt: agentPrompt ?? null },
  });
}

function samePrompt(current: PromptSpec, wanted: PromptSpec): boolean {
  if (current === wanted) return true;
  // The generated system prompt is rebuilt on every sync: the same one unless the agent's prompt changed.
  return (
    current.name === SYSTEM_PROMPT_NAME &&
    current.metadata?.source === 'builtin' &&
    wanted.metadata?.source === 'builtin' &&
    current.metadata?.agentPrompt === wanted.metadata?.agentPrompt &&
    current.description === wanted.description
  );
}

async function contentsOf(resource: ResourceSpec): Promise<string> {
  try {
    return JSON.stringify(await resource.read());
  } catch {
    return '';
  }
}
