import type { JsonSchema } from '../../core/json-schema.js';

/**
 * A Chat Completions function tool (`tools` of `POST /v1/chat/completions`).
 *
 * @example
 * ```ts
 * const tool: OpenAIChatTool = {
 *   type: 'function',
 *   function: { name: 'get_time', description: 'The current time.', parameters: { type: 'object', properties: {} } },
 * };
 * ```
 */
export interface OpenAIChatTool {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: JsonSchema;
    /** Present when strict mode was asked for: `true`, or `false` for a tool that cannot be strict. */
    strict?: boolean;
  };
}

/**
 * A Responses API function tool (`tools` of `POST /v1/responses`).
 *
 * @example
 * ```ts
 * const tool: OpenAIResponsesTool = {
 *   type: 'function',
 *   name: 'get_time',
 *   description: 'The current time.',
 *   parameters: { type: 'object', properties: {} },
 *   strict: false,
 * };
 * ```
 */
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: JsonSchema;
  /** Always present: the Responses API would otherwise default it to `true`. */
  strict: boolean;
  /** Set by a deferred export: loaded only when the model finds it through tool search. */
  defer_loading?: boolean;
}

/**
 * Options of `toOpenAITools` for the Chat Completions API.
 *
 * @example
 * ```ts
 * toOpenAITools(specs, { api: 'chat', strict: true });
 * ```
 */
export interface OpenAIChatToolsOptions {
  api: 'chat';
  /** Strict mode (Structured Outputs for function arguments); default `false`. */
  strict?: boolean;
}

/**
 * Options of `toOpenAITools` for the Responses API.
 *
 * @example
 * ```ts
 * toOpenAITools(specs, { api: 'responses' }); // every tool carries strict: false
 * ```
 */
export interface OpenAIResponsesToolsOptions {
  api: 'responses';
  /** Strict mode; default `false` (sent explicitly, since the Responses API defaults to `true`). */
  strict?: boolean;
}

/**
 * Options of `toOpenAITools`.
 *
 * @example
 * ```ts
 * const options: OpenAIToolsOptions = process.env.USE_RESPONSES ? { api: 'responses' } : { api: 'chat' };
 * ```
 */
export type OpenAIToolsOptions = OpenAIChatToolsOptions | OpenAIResponsesToolsOptions;
