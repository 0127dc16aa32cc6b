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
  /** Present when strict tool use was asked for: `true`, or `false` for a tool that cannot be strict. */
  strict?: boolean;
  /** The tool's input examples that are valid against `input_schema`, when it has any. */
  input_examples?: Array<Record<string, unknown>>;
}

/**
 * Options of `toAnthropicTools`.
 *
 * @example
 * ```ts
 * toAnthropicTools(specs, { strict: true });
 * ```
 */
export interface AnthropicToolsOptions {
  /**
   * Strict tool use (inputs constrained to the schema): each schema rewritten into the subset it
   * accepts, `strict: true` on each tool that fits it and the request's limits, `strict: false` with a
   * warning on the others. Default `false`.
   */
  strict?: boolean;
}
