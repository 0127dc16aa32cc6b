import { exportEach } from '../shared/export-each.js';
import type { ExportResult } from '../shared/export-result.js';
import type { ToolSource } from '../shared/tool-source.js';
import { toGeminiSchema } from './gemini-schema.js';
import type { GeminiFunctionDeclaration, GeminiTool } from './gemini-tool.js';

/**
 * Export tools as one Gemini tool: `[{functionDeclarations: [{name, description, parameters}]}]`
 * (an empty list when no tool could be exported), ready for `config.tools` of `generateContent`.
 *
 * Each input schema is converted to Gemini's OpenAPI 3.0 subset (see `toGeminiSchema`); a tool without
 * parameters gets no `parameters` (Gemini rejects an object schema without properties). A tool whose
 * schema is recursive, or needs a construct Gemini lacks in a required place, is left out with an
 * `unsupported` warning; the others export. Names that are not valid Gemini names get a wire name
 * (`createWireNameMap` maps them back). Never throws.
 *
 * @example
 * ```ts
 * const { tools, warnings } = toGeminiTools(registry.tools());
 * const response = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents, config: { tools } });
 * for (const call of response.functionCalls ?? []) await registry.call(call.name, call.args);
 * ```
 */
export function toGeminiTools(specs: ToolSource): ExportResult<GeminiTool> {
  const result = exportEach(specs, 'gemini', (input, issues): GeminiFunctionDeclaration | undefined => {
    const declaration: GeminiFunctionDeclaration = { name: input.name, description: input.description };
    const properties = input.inputSchema.properties as Record<string, unknown>;
    if (Object.keys(properties).length === 0) {
      const extra = input.inputSchema.additionalProperties;
      if ((extra !== undefined && extra !== false) || input.inputSchema.patternProperties !== undefined) {
        issues.rewritten(
          '',
          'The arguments are an open object (a map of any keys), which Gemini cannot express; exported without parameters',
        );
      }
      return declaration;
    }
    const parameters = toGeminiSchema(input.inputSchema, issues);
    if (parameters === undefined) return undefined;
    declaration.parameters = parameters;
    return declaration;
  });
  return {
    tools: result.tools.length === 0 ? [] : [{ functionDeclarations: result.tools }],
    warnings: result.warnings,
  };
}
