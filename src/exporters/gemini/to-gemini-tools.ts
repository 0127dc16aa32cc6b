import { exportEach } from '../shared/export-each.js';
import type { ExportResult } from '../shared/export-result.js';
import { appendPointer } from '../shared/json-pointer.js';
import type { SchemaIssues } from '../shared/schema-issues.js';
import { requiredNames } from '../shared/schema-walk.js';
import { setOwn } from '../shared/set-own.js';
import type { ToolSource } from '../shared/tool-source.js';
import { GEMINI_PARAMETER_NAME_PATTERN, toGeminiSchema } from './gemini-schema.js';
import type { GeminiFunctionDeclaration, GeminiTool, GeminiToolsOptions } from './gemini-tool.js';

/**
 * Export tools as one Gemini tool: `[{functionDeclarations: [{name, description, parameters}]}]`
 * (an empty list when no tool could be exported), ready for `config.tools` of `generateContent`.
 *
 * With `{schemaMode: 'json-schema'}`, each input schema goes as it is (root `$schema`/`$id` removed) in
 * `parametersJsonSchema`, Gemini's JSON Schema field, and nothing is rewritten or left out for its shape.
 *
 * By default each input schema is converted to Gemini's OpenAPI 3.0 subset (see `toGeminiSchema`); a tool without
 * parameters gets no `parameters` (Gemini rejects an object schema without properties). A tool whose
 * schema is recursive, or needs a construct Gemini lacks in a required place, is left out with an
 * `unsupported` warning; the others export. Names that are not valid Gemini names get a wire name
 * (`createWireNameMap` maps them back). Never throws.
 *
 * @example
 * ```ts
 * const { tools, warnings } = toGeminiTools(registry.tools());
 * const jsonSchemaTools = toGeminiTools(registry, { schemaMode: 'json-schema' }).tools;
 * const response = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents, config: { tools } });
 * for (const call of response.functionCalls ?? []) await registry.call(call.name, call.args);
 * ```
 */
export function toGeminiTools(specs: ToolSource, options: GeminiToolsOptions = {}): ExportResult<GeminiTool> {
  const jsonSchemaMode = options.schemaMode === 'json-schema';
  const result = exportEach(specs, 'gemini', (input, issues): GeminiFunctionDeclaration | undefined => {
    const declaration: GeminiFunctionDeclaration = { name: input.name, description: input.description };
    if (jsonSchemaMode) {
      const schema = withGeminiParameterNames(input.inputSchema, issues);
      if (schema === undefined) return undefined;
      declaration.parametersJsonSchema = schema;
      return declaration;
    }
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

/**
 * The input schema with only parameter names Gemini accepts: an optional parameter with another name
 * is removed (a `rewritten` issue), a required one makes the tool unsupported (`undefined`).
 */
function withGeminiParameterNames(
  schema: Record<string, unknown>,
  issues: SchemaIssues,
): Record<string, unknown> | undefined {
  const properties = schema.properties as Record<string, unknown>;
  const invalid = Object.keys(properties).filter((name) => !GEMINI_PARAMETER_NAME_PATTERN.test(name));
  if (invalid.length === 0) return schema;
  const required = requiredNames(schema);
  const kept: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    const pointer = appendPointer('', 'properties', name);
    const reason = `the parameter name '${name}' (it must match ${GEMINI_PARAMETER_NAME_PATTERN.source})`;
    if (!invalid.includes(name)) setOwn(kept, name, property);
    else if (required.has(name)) issues.unsupported(pointer, reason);
    else issues.rewritten(pointer, `Optional property removed: Gemini cannot express ${reason}`);
  }
  return issues.blocked ? undefined : { ...schema, properties: kept };
}
