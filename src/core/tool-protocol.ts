import { createToolSpec } from './define-tool.js';
import type { JsonSchema } from './json-schema.js';
import type { ToolSpec } from './tool-spec.js';

/**
 * The structural tool protocol: any object with a `name`, a `description`, a JSON Schema `parameters`
 * and an `execute` (sync) or `executeAsync` method registers as a tool, without importing toolshed.
 *
 * @example
 * ```ts
 * class Echo implements ToolProtocol {
 *   name = 'echo';
 *   description = 'Repeat the text back.';
 *   parameters = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
 *   execute(args: Record<string, unknown>) {
 *     return args.text;
 *   }
 * }
 * registry.register(new Echo());
 * ```
 */
export interface ToolProtocol {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  execute?(args: Record<string, unknown>): unknown;
  executeAsync?(args: Record<string, unknown>): Promise<unknown>;
}

/** True for an object that follows the {@link ToolProtocol} (and is not already a spec). */
export function isToolProtocol(value: unknown): value is ToolProtocol {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.name === 'string' &&
    'parameters' in candidate &&
    candidate.handler === undefined &&
    (typeof candidate.execute === 'function' || typeof candidate.executeAsync === 'function')
  );
}

/** The {@link ToolSpec} of a protocol object; its `executeAsync` wins over `execute` when both exist. */
export function fromToolProtocol(tool: ToolProtocol): ToolSpec {
  const run = typeof tool.executeAsync === 'function' ? tool.executeAsync : tool.execute;
  const options: Record<string, unknown> = {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters,
    handler: (args: Record<string, unknown>) => run!.call(tool, args),
  };
  const extra = tool as unknown as Record<string, unknown>;
  for (const key of ['title', 'whenToUse', 'category', 'tags', 'annotations', 'requires', 'timeoutMs', 'metadata']) {
    if (extra[key] !== undefined) options[key] = extra[key];
  }
  return createToolSpec(options);
}
