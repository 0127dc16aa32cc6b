import { exportEach } from '../shared/export-each.js';
import type { ExportResult } from '../shared/export-result.js';
import type { ToolSource } from '../shared/tool-source.js';
import type { BedrockTool, BedrockToolsOptions } from './bedrock-tool.js';

/**
 * Export tools for the AWS Bedrock Converse API: `{toolSpec: {name, description, inputSchema: {json}}}`
 * entries, for `toolConfig: {tools}` of `Converse`/`ConverseStream`. The input schema passes through as
 * JSON Schema; an empty description is left out (Bedrock wants at least one character); with
 * `{strict: true}` each tool gets `strict: true`. Names that are not valid Bedrock names get a wire name
 * (`createWireNameMap` maps them back). Never throws: malformed tools are left out with a warning.
 *
 * @example
 * ```ts
 * const { tools } = toBedrockTools(registry);
 * const response = await bedrock.send(new ConverseCommand({ modelId, messages, toolConfig: { tools } }));
 * for (const block of response.output?.message?.content ?? []) {
 *   if (block.toolUse) await registry.call(block.toolUse.name, block.toolUse.input);
 * }
 * ```
 */
export function toBedrockTools(specs: ToolSource, options: BedrockToolsOptions = {}): ExportResult<BedrockTool> {
  return exportEach(specs, 'bedrock', (input) => {
    const toolSpec: BedrockTool['toolSpec'] = { name: input.name, inputSchema: { json: input.inputSchema } };
    if (input.description !== '') toolSpec.description = input.description;
    if (options.strict === true) toolSpec.strict = true;
    return { toolSpec };
  });
}
