import type { JSONSchema7 } from '@ai-sdk/provider';
import { jsonSchema, type Tool, tool } from 'ai';
import type { CallOptions } from '../../core/dispatch.js';
import { toModelText } from '../../core/tool-result.js';
import type { ToolRegistry } from '../../registry/tool-registry.js';

/** Options of {@link toAiSdkTools}. */
export interface AiSdkToolsOptions {
  /** Only these tools (default: all of the registry's). */
  names?: readonly string[];
  /** Context handed to every call (per-agent config, progress and log channels). */
  context?: CallOptions['context'];
}

/**
 * The registry's tools for the Vercel AI SDK (`generateText({ tools })`), keyed by name. Each executes
 * through `registry.call` with the SDK's `abortSignal` and tool-call id; a success returns the tool's
 * data, a failure returns the text a model reads (`Error [CODE]: ...`), so the model can correct
 * itself instead of the generation failing.
 *
 * @example
 * ```ts
 * import { generateText } from 'ai';
 * import { toAiSdkTools } from 'toolshed/ai-sdk';
 *
 * const { text } = await generateText({ model, tools: toAiSdkTools(registry), prompt: 'What is 2 + 2?' });
 * ```
 */
export function toAiSdkTools(registry: ToolRegistry, options: AiSdkToolsOptions = {}): Record<string, Tool> {
  const tools: Record<string, Tool> = {};
  for (const name of options.names ?? registry.list()) {
    const spec = registry.get(name);
    tools[name] = tool({
      description: spec.description,
      // registry.call validates; the SDK only needs the schema to show the model.
      inputSchema: jsonSchema(spec.inputSchema as JSONSchema7),
      execute: async (input: unknown, { abortSignal, toolCallId }) => {
        const callOptions: CallOptions = { toolCallId };
        if (abortSignal !== undefined) callOptions.signal = abortSignal;
        if (options.context !== undefined) callOptions.context = options.context;
        const result = await registry.call(name, input, callOptions);
        return result.status === 'success' && result.data !== undefined ? result.data : toModelText(result);
      },
    });
  }
  return tools;
}
