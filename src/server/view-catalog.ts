import type { FileBackend } from '../builtins/filesystem/file-backend.js';
import { WORKSPACE_FILES_URI_TEMPLATE } from '../config/config-catalog.js';
import { definePrompt, type PromptSpec } from '../core/define-prompt.js';
import {
  defineResourceTemplate,
  type ResourceContents,
  type ResourceSpec,
  type ResourceTemplateSpec,
} from '../core/define-resource.js';
import { INVALID_PARAMS, requestError } from '../mcp/mcp-request-error.js';
import type { ContentCatalog } from '../registry/content-catalog.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import type { ServedConfig } from './served-config.js';

/** The name of the prompt every MCP endpoint of the service offers: its tools' system-prompt docs. */
export const SYSTEM_PROMPT_NAME = 'system_prompt';

/** The resource template of the workspace's files (its file store, what the file built-ins see). */
const FILES_URI_TEMPLATE = WORKSPACE_FILES_URI_TEMPLATE;

/** The largest file `resources/read` returns (bigger ones are refused, naming the size). */
const MAX_FILE_BYTES = 5 * 1024 * 1024;

/**
 * Make `catalog` hold what one MCP endpoint of the service serves besides tools: the served
 * configuration's prompts and resources when it is for `workspaceId` — all of them on the workspace's
 * `/mcp`, those an agent names (`prompts:`, `resources:`) on `/mcp/agents/:agentId` — and the
 * workspace's files as the template `toolshed://files/{+path}` (on `/mcp`; an agent's endpoint when it
 * names that template in `resources:`), and the `system_prompt` prompt, the system-prompt docs of the endpoint's tools (after the configuration
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
  files?: FileBackend,
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
  if (files !== undefined && wantsResource(FILES_URI_TEMPLATE) && !resources.has(FILES_URI_TEMPLATE)) {
    const current = catalog.findResourceTemplate(FILES_URI_TEMPLATE);
    resources.set(FILES_URI_TEMPLATE, current?.metadata?.source === 'files' ? current : filesTemplate(files));
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

/** `toolshed://files/{+path}`: a file of the workspace's file store, text when it is UTF-8, else a blob. */
function filesTemplate(files: FileBackend): ResourceTemplateSpec {
  return defineResourceTemplate({
    uriTemplate: FILES_URI_TEMPLATE,
    name: 'files',
    title: 'Workspace files',
    description: "A file of the workspace's file store (what read_file sees), by its path.",
    metadata: { source: 'files' },
    read: async ({ path }, uri): Promise<ResourceContents[]> => {
      const target = `/${(path ?? '').replace(/^\/+/, '')}`;
      let entry: Awaited<ReturnType<FileBackend['stat']>>;
      try {
        entry = await files.stat(target);
      } catch (error) {
        // A path the file store refuses ('..', a NUL byte, too long) is the request's fault.
        throw requestError(INVALID_PARAMS, error instanceof Error ? error.message : String(error));
      }
      if (entry === undefined || entry.type !== 'file') {
        throw requestError(
          INVALID_PARAMS,
          `No file '${target.length > 80 ? `${target.slice(0, 79)}…` : target}' in the workspace.`,
        );
      }
      if (entry.size > MAX_FILE_BYTES) {
        throw requestError(
          INVALID_PARAMS,
          `The file '${target}' is ${entry.size} bytes; resources/read returns at most ${MAX_FILE_BYTES}.`,
        );
      }
      const bytes = await files.read(target, { maxBytes: MAX_FILE_BYTES });
      const mimeType = mimeTypeOf(target);
      try {
        return [{ uri, mimeType, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) }];
      } catch {
        return [
          {
            uri,
            mimeType: mimeType === 'text/plain' ? 'application/octet-stream' : mimeType,
            blob: Buffer.from(bytes).toString('base64'),
          },
        ];
      }
    },
    complete: {
      path: async (typed) => {
        const prefix = `/${typed.replace(/^\/+/, '')}`;
        const found: string[] = [];
        for await (const entry of files.walk('/')) {
          if (entry.type === 'file' && entry.path.startsWith(prefix)) found.push(entry.path.slice(1));
          if (found.length === 100) break;
        }
        return found;
      },
    },
  });
}

const MIME_TYPES: Record<string, string> = {
  md: 'text/markdown',
  json: 'application/json',
  csv: 'text/csv',
  html: 'text/html',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  pdf: 'application/pdf',
};

function mimeTypeOf(path: string): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return (
    (extension !== undefined && Object.hasOwn(MIME_TYPES, extension) ? MIME_TYPES[extension] : undefined) ??
    'text/plain'
  );
}
