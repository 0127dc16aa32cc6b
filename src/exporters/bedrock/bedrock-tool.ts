/**
 * One AWS Bedrock Converse API tool, for `toolConfig.tools`: a `toolSpec` with the tool's name (1-64 of
 * `[a-zA-Z0-9_-]`), its description (left out when empty: Bedrock wants at least one character), its
 * input schema as JSON Schema under `inputSchema.json`, and `strict` when asked for.
 *
 * @example
 * ```ts
 * const tool: BedrockTool = {
 *   toolSpec: { name: 'get_weather', description: 'Weather.', inputSchema: { json: { type: 'object', properties: {} } } },
 * };
 * ```
 */
export interface BedrockTool {
  toolSpec: {
    name: string;
    description?: string;
    inputSchema: { json: Record<string, unknown> };
    /** Structured output enforcement of the tool's input ("strict tool use"). */
    strict?: boolean;
  };
}

/**
 * Options of `toBedrockTools`: `strict: true` sets each tool's `strict` flag.
 *
 * @example
 * ```ts
 * const options: BedrockToolsOptions = { strict: true };
 * ```
 */
export interface BedrockToolsOptions {
  strict?: boolean;
}
