import type { JsonSchema } from '../../core/json-schema.js';
import type { DeferLoadingOptions } from '../shared/defer-loading.js';
import { exportEach } from '../shared/export-each.js';
import type { ExportResult, ExportWarning } from '../shared/export-result.js';
import type { ToolSource } from '../shared/tool-source.js';
import { toOpenAISchema } from './openai-schema.js';
import type { OpenAIResponsesTool } from './openai-tool.js';

/**
 * A Responses API namespace: function tools grouped under one name the model sees first (it searches a
 * namespace's tools only when it needs them). A call to one of its tools names the function in `name`
 * and the namespace in `namespace`.
 *
 * @example
 * ```ts
 * const billing: OpenAIResponsesNamespace = {
 *   type: 'namespace',
 *   name: 'billing',
 *   description: 'Invoices and refunds.',
 *   tools: [{ type: 'function', name: 'refund_payment', description: 'Refund a payment.', parameters: { type: 'object', properties: {} }, strict: false }],
 * };
 * ```
 */
export interface OpenAIResponsesNamespace {
  type: 'namespace';
  name: string;
  description: string;
  tools: OpenAIResponsesTool[];
}

/**
 * The Responses API's tool-search tool. Hosted (`{type: 'tool_search'}`): OpenAI searches the deferred
 * tools itself. Client (`execution: 'client'`): the model sends a `tool_search_call` with these
 * `parameters`, and the application answers with a `tool_search_output` listing the tools to load
 * (`registry.answerOpenAIToolSearch` does it with the registry's search).
 *
 * @example
 * ```ts
 * const hosted: OpenAIToolSearchTool = { type: 'tool_search' };
 * ```
 */
export interface OpenAIToolSearchTool {
  type: 'tool_search';
  execution?: 'client';
  description?: string;
  parameters?: JsonSchema;
}

/**
 * One entry of the Responses API's `tools`, as {@link toOpenAIResponsesTools} exports them.
 *
 * @example
 * ```ts
 * const names = tools.map((tool: OpenAIResponsesToolParam) => (tool.type === 'tool_search' ? 'tool_search' : tool.name));
 * ```
 */
export type OpenAIResponsesToolParam = OpenAIResponsesTool | OpenAIResponsesNamespace | OpenAIToolSearchTool;

/**
 * Options of {@link toOpenAIResponsesTools}.
 *
 * @example
 * ```ts
 * const options: OpenAIResponsesExportOptions = {
 *   namespaces: { descriptions: { billing: 'Invoices and refunds.' } },
 *   deferLoading: { alwaysLoaded: ['send_email'] },
 *   toolSearch: 'client',
 * };
 * ```
 */
export interface OpenAIResponsesExportOptions extends DeferLoadingOptions {
  /** Strict mode; default `false` (sent explicitly, since the Responses API defaults to `true`). */
  strict?: boolean;
  /**
   * Group the tools into namespaces, one per `category`. Each namespace's description is taken from
   * `descriptions` (keyed by category) or written from its category and tool names.
   */
  namespaces?: boolean | { descriptions?: Readonly<Record<string, string>> };
  /**
   * How the model finds deferred tools: `'hosted'` (the default when `deferLoading` is set) adds
   * `{type: 'tool_search'}`; `'client'` adds a client-executed tool search whose calls the application
   * answers (see `registry.answerOpenAIToolSearch`).
   */
  toolSearch?: 'hosted' | 'client';
}

/** The parameters of the client-executed tool search toolshed declares. */
export const OPENAI_CLIENT_TOOL_SEARCH_PARAMETERS: Readonly<JsonSchema> = Object.freeze<JsonSchema>({
  type: 'object',
  properties: {
    query: { type: 'string', description: 'What the tools should do, in a few words.' },
    limit: { type: 'integer', minimum: 1, maximum: 25, description: 'How many tools to load (default 5).' },
  },
  required: ['query'],
  additionalProperties: false,
});

const CLIENT_TOOL_SEARCH_DESCRIPTION =
  'Find and load more tools by describing what they should do. Use it when no loaded tool fits the task.';
const NAMESPACE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
// A generated namespace description names at most this many of its tools.
const NAMED_IN_DESCRIPTION = 12;

/**
 * Export tools for the OpenAI Responses API with its newer features: namespaces (tools grouped by
 * category) and tool search (deferred tools loaded when the model searches for them, by OpenAI or by
 * the application).
 *
 * Function tools are those of `toOpenAITools(specs, {api: 'responses'})`. With `deferLoading`, every
 * function tool but the `alwaysLoaded` ones carries `defer_loading: true` (inside a namespace, the
 * functions do, never the namespace), and a `tool_search` tool is added. Namespace names follow
 * OpenAI's name rule: a category with other characters is rewritten (`'web search'` → `web_search`)
 * with a warning. Never throws for a malformed tool: it is left out with a warning.
 *
 * @example
 * ```ts
 * const { tools } = toOpenAIResponsesTools(registry, { namespaces: true, deferLoading: true });
 * const response = await openai.responses.create({ model: 'gpt-5.4', input, tools });
 * for (const item of response.output) {
 *   if (item.type === 'function_call') await registry.call(item.name, JSON.parse(item.arguments));
 * }
 * ```
 */
export function toOpenAIResponsesTools(
  specs: ToolSource,
  options: OpenAIResponsesExportOptions = {},
): ExportResult<OpenAIResponsesToolParam> {
  const strict = options.strict === true;
  const categories = new Map<string, string>();
  const exported = exportEach(specs, 'openai', (input, issues): OpenAIResponsesTool => {
    const schema = toOpenAISchema(input.inputSchema, { strict }, issues);
    categories.set(input.name, typeof input.spec.category === 'string' ? input.spec.category : 'general');
    return {
      type: 'function',
      name: input.name,
      description: input.description,
      parameters: schema.parameters,
      strict: schema.strict,
    };
  });
  const warnings: ExportWarning[] = [...exported.warnings];
  const deferred = deferredNames(exported.tools, options.deferLoading);
  const functions = exported.tools.map((tool) =>
    deferred.has(tool.name) ? { ...tool, defer_loading: true as const } : tool,
  );

  const tools: OpenAIResponsesToolParam[] =
    options.namespaces === undefined || options.namespaces === false
      ? functions
      : groupIntoNamespaces(functions, categories, options.namespaces, warnings);
  const search = options.toolSearch ?? (deferred.size > 0 ? 'hosted' : undefined);
  if (search === 'hosted') tools.push({ type: 'tool_search' });
  if (search === 'client') {
    tools.push({
      type: 'tool_search',
      execution: 'client',
      description: CLIENT_TOOL_SEARCH_DESCRIPTION,
      parameters: OPENAI_CLIENT_TOOL_SEARCH_PARAMETERS,
    });
  }
  return { tools, warnings };
}

/**
 * The name a category takes as a namespace: OpenAI's name rule (1–64 letters, digits, `_`, `-`), other
 * characters turned into `_`.
 *
 * @example
 * ```ts
 * namespaceName('web search'); // 'web_search'
 * ```
 */
export function namespaceName(category: string): string {
  const cleaned = category.replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, 64);
  return cleaned === '' || /^_+$/.test(cleaned) ? 'general' : cleaned;
}

function deferredNames(
  tools: readonly OpenAIResponsesTool[],
  defer: OpenAIResponsesExportOptions['deferLoading'],
): ReadonlySet<string> {
  if (defer === undefined || defer === false) return new Set();
  const keep = new Set(defer === true ? [] : defer.alwaysLoaded);
  return new Set(tools.map((tool) => tool.name).filter((name) => !keep.has(name)));
}

function groupIntoNamespaces(
  functions: readonly OpenAIResponsesTool[],
  categories: ReadonlyMap<string, string>,
  option: true | { descriptions?: Readonly<Record<string, string>> },
  warnings: ExportWarning[],
): OpenAIResponsesNamespace[] {
  const descriptions = option === true ? {} : (option.descriptions ?? {});
  const byName = new Map<string, { category: string; tools: OpenAIResponsesTool[] }>();
  for (const tool of functions) {
    const category = categories.get(tool.name) ?? 'general';
    const name = namespaceName(category);
    if (name !== category && !NAMESPACE_NAME.test(category)) {
      warnings.push({
        tool: tool.name,
        target: 'openai',
        kind: 'rewritten',
        message: `Category '${category}' is not a valid namespace name (1-64 letters, digits, '_' or '-'); the tool is in namespace '${name}'.`,
      });
    }
    const group = byName.get(name) ?? { category, tools: [] };
    group.tools.push(tool);
    byName.set(name, group);
  }
  return [...byName].map(([name, group]) => {
    const given = descriptions[group.category] ?? descriptions[name];
    return {
      type: 'namespace',
      name,
      description: typeof given === 'string' && given.trim() !== '' ? given : describeNamespace(group),
      tools: group.tools,
    };
  });
}

function describeNamespace(group: { category: string; tools: readonly OpenAIResponsesTool[] }): string {
  const names = group.tools.slice(0, NAMED_IN_DESCRIPTION).map((tool) => tool.name);
  const more = group.tools.length - names.length;
  return `Tools of the ${group.category} category: ${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}.`;
}

/**
 * A client-executed `tool_search_call` output item of the Responses API: the model asks for tools.
 *
 * @example
 * ```ts
 * const call: OpenAIToolSearchCall = { type: 'tool_search_call', call_id: 'ts_1', execution: 'client', arguments: { query: 'refund a payment' } };
 * ```
 */
export interface OpenAIToolSearchCall {
  type: 'tool_search_call';
  call_id: string;
  execution?: string;
  /** The search's arguments: an object, or its JSON text. */
  arguments?: unknown;
}

/**
 * The answer to an {@link OpenAIToolSearchCall}, sent back as an input item: the tools to load.
 *
 * @example
 * ```ts
 * const output: OpenAIToolSearchOutput = { type: 'tool_search_output', call_id: 'ts_1', execution: 'client', status: 'completed', tools: [] };
 * ```
 */
export interface OpenAIToolSearchOutput {
  type: 'tool_search_output';
  call_id: string;
  execution: 'client';
  status: 'completed';
  tools: Array<OpenAIResponsesTool | OpenAIResponsesNamespace>;
}
