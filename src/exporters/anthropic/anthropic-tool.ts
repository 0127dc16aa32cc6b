import type { JsonSchema } from '../../core/json-schema.js';

/**
 * The `input_schema` of an Anthropic tool: a JSON Schema object, without composition at its root.
 *
 * @example
 * ```ts
 * const schema: AnthropicInputSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
 * ```
 */
export interface AnthropicInputSchema extends JsonSchema {
  type: 'object';
}

/**
 * A client tool of the Anthropic Messages API (`tools` of `POST /v1/messages`).
 *
 * @example
 * ```ts
 * const tool: AnthropicTool = {
 *   name: 'get_weather',
 *   description: 'Current weather for a city.',
 *   input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
 * };
 * ```
 */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: AnthropicInputSchema;
  /** Set by a deferred export: loaded only when the model finds it through tool search. */
  defer_loading?: boolean;
}
