import { DynamicStructuredTool } from '@langchain/core/tools';
import type { CallOptions } from '../../core/dispatch.js';
import { toModelText } from '../../core/tool-result.js';
import type { ToolRegistry } from '../../registry/tool-registry.js';

/** Options of {@link toLangChainTools}. */
export interface LangChainToolsOptions {
  /** Only these tools (default: all of the registry's). */
  names?: readonly string[];
  /** Context handed to every call (per-agent config, progress and log channels). */
  context?: CallOptions['context'];
}

/**
 * The registry's tools as LangChain.js `DynamicStructuredTool`s. Each executes through
 * `registry.call` — validation, timeouts, cancellation (LangChain's `signal`) and errors as results
 * included — and returns the text a model reads (`toModelText`), so a failed call is an observation
 * the agent can act on, not an exception that ends the run.
 *
 * @example
 * ```ts
 * import { toLangChainTools } from 'toolshed/langchain';
 *
 * const tools = toLangChainTools(registry);
 * const agent = createReactAgent({ llm, tools });
 * ```
 */
export function toLangChainTools(registry: ToolRegistry, options: LangChainToolsOptions = {}): DynamicStructuredTool[] {
  const names = options.names ?? registry.list();
  return names.map((name) => {
    const spec = registry.get(name);
    return new DynamicStructuredTool({
      name: spec.name,
      description: spec.description,
      // LangChain annotates the schema object it is given; the spec's own is frozen.
      schema: structuredClone(spec.inputSchema) as Record<string, unknown>,
      func: async (input: unknown, _runManager, config) => {
        const callOptions: CallOptions = {};
        if (config?.signal !== undefined) callOptions.signal = config.signal;
        if (options.context !== undefined) callOptions.context = options.context;
        const toolCallId = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id;
        if (typeof toolCallId === 'string') callOptions.toolCallId = toolCallId;
        return toModelText(await registry.call(name, input, callOptions));
      },
    });
  });
}
