import type { PromptSpec } from '../core/define-prompt.js';
import type { ResourceContents, ResourceSpec, ResourceTemplateSpec } from '../core/define-resource.js';
import { closestNames } from '../core/did-you-mean.js';
import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';

/**
 * What a {@link ContentCatalog} tells its listeners: the prompts or the resources (and templates)
 * changed, or one resource's contents changed (`updated`, for subscribers).
 *
 * @example
 * ```ts
 * const change: CatalogChange = { type: 'updated', uri: 'docs://status' };
 * ```
 */
export type CatalogChange = { type: 'prompts' } | { type: 'resources' } | { type: 'updated'; uri: string };

/**
 * The prompts, resources and resource templates served beside a registry's tools (over MCP:
 * `prompts/*`, `resources/*`, `completion/complete`). Names and URIs are unique; registering a taken
 * one throws `DUPLICATE_TOOL` unless `allowOverride` is set. Lookups are by own key, so a prompt
 * called `constructor` is just an unknown name.
 *
 * @example
 * ```ts
 * import { ContentCatalog, definePrompt, defineResource } from 'toolshed';
 *
 * const catalog = new ContentCatalog();
 * catalog.registerPrompt(definePrompt({ name: 'greet', description: 'Say hello.', messages: [{ role: 'user', content: { type: 'text', text: 'Hello!' } }] }));
 * catalog.registerResource(defineResource({ uri: 'docs://readme', name: 'readme', text: 'Read me.' }));
 * catalog.prompts().map((prompt) => prompt.name); // ['greet']
 * ```
 */
export class ContentCatalog {
  readonly #prompts = new Map<string, PromptSpec>();
  readonly #resources = new Map<string, ResourceSpec>();
  readonly #templates = new Map<string, ResourceTemplateSpec>();
  readonly #listeners = new Set<(change: CatalogChange) => void>();

  /** Add a prompt (built by `definePrompt`). */
  registerPrompt(prompt: PromptSpec, options: { allowOverride?: boolean } = {}): void {
    if (this.#prompts.has(prompt.name) && options.allowOverride !== true) {
      throw new ToolRegistrationError('DUPLICATE_TOOL', `A prompt named '${prompt.name}' is already registered.`, {
        toolName: prompt.name,
      });
    }
    this.#prompts.set(prompt.name, prompt);
    this.#emit({ type: 'prompts' });
  }

  /** Add a resource (built by `defineResource`). */
  registerResource(resource: ResourceSpec, options: { allowOverride?: boolean } = {}): void {
    if (this.#resources.has(resource.uri) && options.allowOverride !== true) {
      throw new ToolRegistrationError(
        'DUPLICATE_TOOL',
        `A resource with the URI '${resource.uri}' is already registered.`,
        {
          toolName: resource.uri,
        },
      );
    }
    this.#resources.set(resource.uri, resource);
    this.#emit({ type: 'resources' });
  }

  /** Add a resource template (built by `defineResourceTemplate`). */
  registerResourceTemplate(template: ResourceTemplateSpec, options: { allowOverride?: boolean } = {}): void {
    if (this.#templates.has(template.uriTemplate) && options.allowOverride !== true) {
      throw new ToolRegistrationError(
        'DUPLICATE_TOOL',
        `A resource template '${template.uriTemplate}' is already registered.`,
        { toolName: template.uriTemplate },
      );
    }
    this.#templates.set(template.uriTemplate, template);
    this.#emit({ type: 'resources' });
  }

  /** Remove the prompt called `name`; false when there was none. */
  unregisterPrompt(name: string): boolean {
    const removed = this.#prompts.delete(name);
    if (removed) this.#emit({ type: 'prompts' });
    return removed;
  }

  /** Remove the resource at `uri`, or the template whose template text is `uri`; false when there was none. */
  unregisterResource(uri: string): boolean {
    const removed = this.#resources.delete(uri) || this.#templates.delete(uri);
    if (removed) this.#emit({ type: 'resources' });
    return removed;
  }

  /** Remove everything; listeners hear one change of each kind. */
  clear(): void {
    const hadPrompts = this.#prompts.size > 0;
    const hadResources = this.#resources.size + this.#templates.size > 0;
    this.#prompts.clear();
    this.#resources.clear();
    this.#templates.clear();
    if (hadPrompts) this.#emit({ type: 'prompts' });
    if (hadResources) this.#emit({ type: 'resources' });
  }

  /** The prompts, by name. */
  prompts(): PromptSpec[] {
    return [...this.#prompts.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The resources, by URI. */
  resources(): ResourceSpec[] {
    return [...this.#resources.values()].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  }

  /** The resource templates, by template. */
  resourceTemplates(): ResourceTemplateSpec[] {
    return [...this.#templates.values()].sort((a, b) =>
      a.uriTemplate < b.uriTemplate ? -1 : a.uriTemplate > b.uriTemplate ? 1 : 0,
    );
  }

  /** The prompt called `name`; throws a `TypeError` naming the closest names when there is none. */
  getPrompt(name: string): PromptSpec {
    const prompt = this.#prompts.get(name);
    if (prompt !== undefined) return prompt;
    throw new TypeError(unknownMessage('prompt', name, [...this.#prompts.keys()]));
  }

  /** The prompt called `name`, if any. */
  findPrompt(name: string): PromptSpec | undefined {
    return this.#prompts.get(name);
  }

  /** The resource template whose template text is `uriTemplate`, if any. */
  findResourceTemplate(uriTemplate: string): ResourceTemplateSpec | undefined {
    return this.#templates.get(uriTemplate);
  }

  /** The resource at `uri`, or the first template that matches it; `undefined` for neither. */
  findResource(uri: string): ResourceSpec | ResourceTemplateSpec | undefined {
    const resource = this.#resources.get(uri);
    if (resource !== undefined) return resource;
    for (const template of this.resourceTemplates()) {
      if (template.match(uri) !== undefined) return template;
    }
    return undefined;
  }

  /** The contents at `uri`; throws a `TypeError` when no resource or template serves it. */
  async read(uri: string): Promise<ResourceContents[]> {
    const found = this.findResource(uri);
    if (found === undefined) throw new TypeError(unknownMessage('resource', uri, [...this.#resources.keys()]));
    return 'uriTemplate' in found ? found.read(uri) : found.read();
  }

  /** Tell subscribers that the contents at `uri` changed (`notifications/resources/updated`). */
  notifyUpdated(uri: string): void {
    this.#emit({ type: 'updated', uri });
  }

  /** Listen to changes; returns the function that stops listening. */
  on(listener: (change: CatalogChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(change: CatalogChange): void {
    for (const listener of [...this.#listeners]) listener(change);
  }
}

function unknownMessage(kind: 'prompt' | 'resource', name: string, known: string[]): string {
  const shown = name.length > 80 ? `${name.slice(0, 79)}…` : name;
  const suggestions = closestNames(name, known, 3);
  const didYouMean =
    suggestions.length === 0 ? '' : ` Did you mean ${suggestions.map((item) => `'${item}'`).join(' or ')}?`;
  return `No ${kind} '${shown}'.${didYouMean}`;
}
