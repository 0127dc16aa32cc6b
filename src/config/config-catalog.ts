import type { ContentBlock } from '../core/content-block.js';
import { definePrompt, type PromptMessage, type PromptSpec } from '../core/define-prompt.js';
import {
  defineResource,
  defineResourceTemplate,
  type ResourceSpec,
  type ResourceTemplateSpec,
} from '../core/define-resource.js';
import { isPlainObject } from '../core/json-schema.js';
import { ContentCatalog } from '../registry/content-catalog.js';

/**
 * The resource template of a workspace's files, which `toolshed serve` offers on `/mcp` and to each
 * agent that names it in `resources:` (it is not defined in `resources:`).
 */
export const WORKSPACE_FILES_URI_TEMPLATE = 'toolshed://files/{+path}';

/**
 * The prompts, resources and resource templates of a configuration (its `prompts:` and `resources:`),
 * built as `definePrompt` / `defineResource` / `defineResourceTemplate` would, each with the
 * configuration's `origin` in its metadata.
 *
 * @example
 * ```ts
 * const catalog: ConfigCatalog = { prompts: [], resources: [], resourceTemplates: [] };
 * ```
 */
export interface ConfigCatalog {
  prompts: PromptSpec[];
  resources: ResourceSpec[];
  resourceTemplates: ResourceTemplateSpec[];
}

/**
 * Build the `prompts:` and `resources:` of a configuration that passed its JSON Schema. A definition
 * that the schema cannot refuse — a repeated name or URI, a template with another operator than
 * `{name}`, a `complete:` for a variable the template lacks — is reported at its pointer and left out.
 *
 * @example
 * ```ts
 * const catalog = buildConfigCatalog(value, (pointer, message) => console.error(pointer, message));
 * ```
 */
export function buildConfigCatalog(
  value: Record<string, unknown>,
  report: (pointer: string, message: string) => void,
): ConfigCatalog {
  const catalog: ConfigCatalog = { prompts: [], resources: [], resourceTemplates: [] };
  const prompts = Array.isArray(value.prompts) ? value.prompts : [];
  const names = new Set<string>();
  prompts.forEach((entry, index) => {
    if (!isPlainObject(entry)) return;
    const pointer = `/prompts/${index}`;
    const name = entry.name as string;
    if (names.has(name)) {
      report(`${pointer}/name`, `prompt '${name}' is defined twice`);
      return;
    }
    names.add(name);
    const messages = entry.messages as Array<Record<string, unknown>>;
    const unusable = messages.findIndex((message) => given(message, ['text', 'image', 'resource']).length !== 1);
    if (unusable >= 0) {
      const kinds = given(messages[unusable] as Record<string, unknown>, ['text', 'image', 'resource']);
      report(
        `${pointer}/messages/${unusable}`,
        `prompt '${name}': messages[${unusable}] needs exactly one of text, image and resource, got ${kinds.length === 0 ? 'none' : kinds.join(' and ')}`,
      );
      return;
    }
    try {
      catalog.prompts.push(
        definePrompt({
          name,
          ...(typeof entry.title === 'string' ? { title: entry.title } : {}),
          description: entry.description as string,
          arguments: ((entry.arguments as Array<Record<string, unknown>> | undefined) ?? []).map((argument) => ({
            name: argument.name as string,
            ...(typeof argument.title === 'string' ? { title: argument.title } : {}),
            ...(typeof argument.description === 'string' ? { description: argument.description } : {}),
            ...(typeof argument.required === 'boolean' ? { required: argument.required } : {}),
            ...(Array.isArray(argument.values) ? { values: argument.values as string[] } : {}),
          })),
          messages: messages.map(toMessage),
          metadata: { source: 'config', definition: entry },
        }),
      );
    } catch (error) {
      report(pointer, lowerFirst((error as Error).message));
    }
  });

  const resources = Array.isArray(value.resources) ? value.resources : [];
  const uris = new Set<string>();
  resources.forEach((entry, index) => {
    if (!isPlainObject(entry)) return;
    const pointer = `/resources/${index}`;
    for (const pair of [
      ['uri', 'uri_template'],
      ['text', 'blob'],
    ]) {
      const present = given(entry, pair);
      if (present.length !== 1) {
        report(
          pointer,
          `resource '${String(entry.name)}' needs exactly one of ${pair.join(' and ')}, got ${present.length === 0 ? 'none' : present.join(' and ')}`,
        );
        return;
      }
    }
    const key = (entry.uri ?? entry.uri_template) as string;
    if (uris.has(key)) {
      report(pointer, `resource '${key}' is defined twice`);
      return;
    }
    uris.add(key);
    const common = {
      name: entry.name as string,
      ...(typeof entry.title === 'string' ? { title: entry.title } : {}),
      ...(typeof entry.description === 'string' ? { description: entry.description } : {}),
      ...(typeof entry.mime_type === 'string' ? { mimeType: entry.mime_type } : {}),
      metadata: { source: 'config', definition: entry },
    };
    try {
      if (typeof entry.uri === 'string') {
        if (entry.complete !== undefined) {
          report(
            `${pointer}/complete`,
            `resource '${entry.uri}' has no variables to complete; complete: is for uri_template`,
          );
          return;
        }
        catalog.resources.push(
          defineResource({
            ...common,
            uri: entry.uri,
            ...(typeof entry.text === 'string' ? { text: entry.text } : { blob: entry.blob as string }),
            ...(entry.subscribable === true ? { subscribable: true } : {}),
          }),
        );
        return;
      }
      if (typeof entry.text !== 'string') {
        report(
          `${pointer}/blob`,
          `resource template '${key}' needs text (with {{variable}} for its variables), not blob`,
        );
        return;
      }
      const text = entry.text;
      catalog.resourceTemplates.push(
        defineResourceTemplate({
          ...common,
          uriTemplate: key,
          read: (variables) =>
            text.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (whole, variable: string) =>
              Object.hasOwn(variables, variable) ? (variables[variable] as string) : whole,
            ),
          ...(isPlainObject(entry.complete) ? { complete: entry.complete as Record<string, string[]> } : {}),
        }),
      );
    } catch (error) {
      report(pointer, lowerFirst((error as Error).message));
    }
  });
  return catalog;
}

/**
 * A {@link ContentCatalog} holding a configuration's prompts and resources: all of them, or those an
 * agent names in its `prompts:` and `resources:` (none when it names none), as `toolshed mcp --agent`
 * serves them.
 *
 * @example
 * ```ts
 * const catalog = contentCatalogOf(loaded.config.catalog, loaded.agents.find((agent) => agent.id === 'writer'));
 * ```
 */
export function contentCatalogOf(
  catalog: ConfigCatalog,
  agent?: { prompts?: readonly string[]; resources?: readonly string[] },
): ContentCatalog {
  const served = new ContentCatalog();
  for (const prompt of catalog.prompts) {
    if (agent === undefined || agent.prompts?.includes(prompt.name) === true) served.registerPrompt(prompt);
  }
  for (const resource of catalog.resources) {
    if (agent === undefined || agent.resources?.includes(resource.uri) === true) served.registerResource(resource);
  }
  for (const template of catalog.resourceTemplates) {
    if (agent === undefined || agent.resources?.includes(template.uriTemplate) === true) {
      served.registerResourceTemplate(template);
    }
  }
  return served;
}

function toMessage(message: Record<string, unknown>): PromptMessage {
  const role = message.role as PromptMessage['role'];
  let content: ContentBlock;
  if (typeof message.text === 'string') {
    content = { type: 'text', text: message.text };
  } else if (isPlainObject(message.image)) {
    content = { type: 'image', data: message.image.data as string, mimeType: message.image.mime_type as string };
  } else {
    const resource = message.resource as Record<string, unknown>;
    content = {
      type: 'resource',
      resource: {
        uri: resource.uri as string,
        ...(typeof resource.mime_type === 'string' ? { mimeType: resource.mime_type } : {}),
        text: resource.text as string,
      },
    };
  }
  return { role, content };
}

function given(entry: Record<string, unknown>, keys: readonly string[]): string[] {
  return keys.filter((key) => entry[key] !== undefined);
}

/** A definition error as a diagnostic says it: lower-case first letter, no closing period. */
function lowerFirst(text: string): string {
  const trimmed = text.endsWith('.') ? text.slice(0, -1) : text;
  return trimmed.length === 0 ? trimmed : trimmed[0]!.toLowerCase() + trimmed.slice(1);
}
