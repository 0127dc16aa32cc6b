import type { ToolSpec } from '../core/tool-spec.js';
import { type AnthropicTool, type AnthropicToolsOptions, toAnthropicTools } from '../exporters/anthropic/index.js';
import { type BedrockTool, type BedrockToolsOptions, toBedrockTools } from '../exporters/bedrock/index.js';
import { checkExports, type ExportCheckReport } from '../exporters/check-exports.js';
import { type GeminiTool, type GeminiToolsOptions, toGeminiTools } from '../exporters/gemini/index.js';
import { type McpToolEntry, toMcpTools } from '../exporters/mcp/index.js';
import {
  type OpenAIChatTool,
  type OpenAIChatToolsOptions,
  type OpenAIResponsesExportOptions,
  type OpenAIResponsesNamespace,
  type OpenAIResponsesTool,
  type OpenAIResponsesToolParam,
  type OpenAIResponsesToolsOptions,
  type OpenAIToolSearchCall,
  type OpenAIToolSearchOutput,
  toOpenAIResponsesTools,
  toOpenAITools,
} from '../exporters/openai/index.js';
import { type PromptDocsOptions, renderPromptDocs } from '../exporters/prompt-docs/index.js';
import { type DeferLoadingOptions, markDeferred } from '../exporters/shared/defer-loading.js';
import type { ExportResult } from '../exporters/shared/export-result.js';
import { createSearchToolsTool, SEARCH_TOOLS } from '../search/search-tools-tool.js';
import type { ToolRegistry } from './tool-registry.js';

/**
 * A registry's tools in every export format, each cached until the tool set changes (the registry's
 * `version` moves). The registry's `toOpenAITools`, `toAnthropicTools`, ... delegate here.
 *
 * @example
 * ```ts
 * const exports = new RegistryExports(registry);
 * exports.toAnthropicTools().tools; // the same array until a tool is registered or removed
 * ```
 */
export class RegistryExports {
  readonly #registry: ToolRegistry;
  readonly #cache = new Map<string, { version: number; value: unknown }>();

  constructor(registry: ToolRegistry) {
    this.#registry = registry;
  }

  /** OpenAI function-calling form (Chat Completions, or `api: 'responses'`), optionally strict. */
  toOpenAITools(
    options: OpenAIChatToolsOptions | (OpenAIResponsesToolsOptions & DeferLoadingOptions),
  ): ExportResult<OpenAIChatTool> | ExportResult<OpenAIResponsesTool> {
    const defer = 'deferLoading' in options ? options.deferLoading : undefined;
    const keep = this.#deferredKeep(defer);
    return this.#cached(`openai:${options.api ?? 'chat'}:${options.strict === true}:${deferKey(keep)}`, () => {
      if (options.api !== 'responses') return toOpenAITools(this.#tools(), options as OpenAIChatToolsOptions);
      const exported = toOpenAITools(this.#tools(), { api: 'responses', strict: options.strict === true });
      return keep === undefined ? exported : { ...exported, tools: markDeferred(exported.tools, keep) };
    });
  }

  /** The Responses API form with namespaces and tool search (see `toOpenAIResponsesTools`). */
  toOpenAIResponsesTools(options: OpenAIResponsesExportOptions): ExportResult<OpenAIResponsesToolParam> {
    return this.#cached(`openai-responses:${responsesKey(options)}`, () =>
      toOpenAIResponsesTools(this.#tools(), options),
    );
  }

  /**
   * Answer a client-executed `tool_search_call`: the registry's best matches for its `query`, in the
   * form `toOpenAIResponsesTools(options)` gives them (namespaced, deferred). A call without a usable
   * query loads no tools.
   */
  answerOpenAIToolSearch(call: OpenAIToolSearchCall, options: OpenAIResponsesExportOptions): OpenAIToolSearchOutput {
    const output: OpenAIToolSearchOutput = {
      type: 'tool_search_output',
      call_id: typeof call?.call_id === 'string' ? call.call_id : '',
      execution: 'client',
      status: 'completed',
      tools: [],
    };
    const { query, limit } = toolSearchArguments(call?.arguments);
    if (query === undefined) return output;
    const found = new Set(this.#registry.search(query, { limit }).map((hit) => hit.name));
    if (found.size === 0) return output;
    // Registered names are canonical, which every provider accepts: the wire name is the name.
    const isFound = (name: string) => found.has(name);
    for (const tool of this.toOpenAIResponsesTools({ ...options, deferLoading: options.deferLoading ?? true }).tools) {
      if (tool.type === 'function' && isFound(tool.name)) output.tools.push(tool);
      if (tool.type === 'namespace') {
        const inside = tool.tools.filter((inner) => isFound(inner.name));
        if (inside.length > 0) output.tools.push({ ...tool, tools: inside } satisfies OpenAIResponsesNamespace);
      }
    }
    return output;
  }

  /** Anthropic's `{name, description, input_schema}` form, optionally with `defer_loading`. */
  toAnthropicTools(options: DeferLoadingOptions & AnthropicToolsOptions): ExportResult<AnthropicTool> {
    const keep = this.#deferredKeep(options.deferLoading);
    const strict = options.strict === true;
    return this.#cached(`anthropic:${strict}:${deferKey(keep)}`, () => {
      const exported = toAnthropicTools(this.#tools(), { strict });
      return keep === undefined ? exported : { ...exported, tools: markDeferred(exported.tools, keep) };
    });
  }

  /** Gemini `functionDeclarations`, in Gemini's OpenAPI subset or (`schemaMode: 'json-schema'`) JSON Schema. */
  toGeminiTools(options: GeminiToolsOptions): ExportResult<GeminiTool> {
    const mode = options.schemaMode ?? 'openapi';
    return this.#cached(`gemini:${mode}`, () => toGeminiTools(this.#tools(), { schemaMode: mode }));
  }

  /** AWS Bedrock Converse `toolSpec`s, each with `strict` when asked. */
  toBedrockTools(options: BedrockToolsOptions): ExportResult<BedrockTool> {
    const strict = options.strict === true;
    return this.#cached(`bedrock:${strict}`, () => toBedrockTools(this.#tools(), { strict }));
  }

  /** MCP `tools/list` entries. */
  toMcpTools(): ExportResult<McpToolEntry> {
    return this.#cached('mcp', () => toMcpTools(this.#tools()));
  }

  /** The system-prompt block describing the tools (SPEC §5.2). */
  renderPromptDocs(options: PromptDocsOptions): string {
    return this.#cached(`prompt:${JSON.stringify(options)}`, () => renderPromptDocs(this.#tools(), options));
  }

  /** Every tool compiled for every export target, with what was rewritten or left out. */
  check(): ExportCheckReport {
    return this.#cached('check', () => checkExports(this.#tools()));
  }

  #tools(): ToolSpec[] {
    return this.#registry.tools();
  }

  #cached<T>(key: string, build: () => T): T {
    const version = this.#registry.version;
    const cached = this.#cache.get(key);
    if (cached !== undefined && cached.version === version) return cached.value as T;
    const value = build();
    this.#cache.set(key, { version, value });
    return value;
  }

  // The names a deferred export keeps loaded; registers search_tools, without which nothing deferred
  // could ever be found.
  #deferredKeep(defer: DeferLoadingOptions['deferLoading']): ReadonlySet<string> | undefined {
    if (defer === undefined || defer === false) return undefined;
    if (!this.#registry.has(SEARCH_TOOLS)) this.#registry.register(createSearchToolsTool(this.#registry));
    return new Set([SEARCH_TOOLS, ...(defer === true ? [] : defer.alwaysLoaded)]);
  }
}

function responsesKey(options: OpenAIResponsesExportOptions): string {
  const defer = options.deferLoading;
  return JSON.stringify([
    options.strict === true,
    options.namespaces ?? false,
    defer === undefined || defer === false ? false : defer === true ? true : [...defer.alwaysLoaded].sort(),
    options.toolSearch ?? null,
  ]);
}

const DEFAULT_TOOL_SEARCH_LIMIT = 5;
const MAX_TOOL_SEARCH_LIMIT = 25;

// The query and limit of a tool search call's arguments (an object or its JSON text), read leniently:
// a limit out of range is clamped, a query that is not a non-empty string is no query.
function toolSearchArguments(raw: unknown): { query: string | undefined; limit: number } {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
  }
  const args = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const query = typeof args.query === 'string' && args.query.trim() !== '' ? args.query : undefined;
  const limit =
    typeof args.limit === 'number' && Number.isFinite(args.limit)
      ? Math.min(MAX_TOOL_SEARCH_LIMIT, Math.max(1, Math.floor(args.limit)))
      : DEFAULT_TOOL_SEARCH_LIMIT;
  return { query, limit };
}

function deferKey(keep: ReadonlySet<string> | undefined): string {
  return keep === undefined ? '' : `defer:${[...keep].sort().join(',')}`;
}
