/**
 * The types of Gemini's schema, lowercase as in the function-calling guide (the API also takes `STRING`, …).
 *
 * @example
 * ```ts
 * const type: GeminiType = 'string';
 * ```
 */
export type GeminiType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';

/**
 * A schema in Gemini's subset of OpenAPI 3.0 (the `Schema` object of `functionDeclarations`).
 *
 * @example
 * ```ts
 * const unit: GeminiSchema = { type: 'string', enum: ['c', 'f'], nullable: true };
 * ```
 */
export interface GeminiSchema {
  type?: GeminiType;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  /** String values only. */
  enum?: string[];
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  propertyOrdering?: string[];
  minProperties?: number;
  maxProperties?: number;
  items?: GeminiSchema;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  anyOf?: GeminiSchema[];
  default?: unknown;
  example?: unknown;
}

/**
 * One function of a Gemini tool. A function without arguments has no `parameters`.
 *
 * @example
 * ```ts
 * const declaration: GeminiFunctionDeclaration = {
 *   name: 'get_time',
 *   description: 'The current time.',
 * };
 * ```
 */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  /** The arguments in Gemini's OpenAPI 3.0 subset (the default `schemaMode: 'openapi'`). */
  parameters?: GeminiSchema;
  /** The arguments as JSON Schema (`schemaMode: 'json-schema'`); never set together with `parameters`. */
  parametersJsonSchema?: Record<string, unknown>;
}

/**
 * Options of `toGeminiTools`. `schemaMode: 'openapi'` (the default) converts each schema to Gemini's
 * OpenAPI 3.0 subset in `parameters`; `'json-schema'` sends it as JSON Schema in
 * `parametersJsonSchema`, which the Gemini API accepts beside the OpenAPI subset (the two fields are
 * mutually exclusive) and which expresses what the subset cannot (any-value properties, open maps,
 * `$ref`, tuples).
 *
 * @example
 * ```ts
 * const options: GeminiToolsOptions = { schemaMode: 'json-schema' };
 * ```
 */
export interface GeminiToolsOptions {
  schemaMode?: 'openapi' | 'json-schema';
}

/**
 * A Gemini tool (`tools` of `generateContent`): the function declarations.
 *
 * @example
 * ```ts
 * const config = { tools: toGeminiTools(specs).tools } satisfies { tools: GeminiTool[] };
 * ```
 */
export interface GeminiTool {
  functionDeclarations: GeminiFunctionDeclaration[];
}
