import { isPlainObject } from '../../core/json-schema.js';
import { appendPointer } from '../shared/json-pointer.js';
import { jsonSchemaProblems } from '../shared/json-schema-problems.js';
import type { SchemaIssues } from '../shared/schema-issues.js';
import { cloneJson, setOwn } from '../shared/set-own.js';
import type { McpObjectSchema } from './mcp-tool.js';

/**
 * The `inputSchema` of an MCP tool entry: the JSON Schema as it is (MCP speaks 2020-12, `$ref`s
 * included), except that boolean property schemas become objects (`true` → `{}`, `false` →
 * `{not: {}}`), since MCP clients and the SDK expect every entry of `properties` to be an object.
 *
 * @example
 * ```ts
 * toMcpInputSchema({ type: 'object', properties: { anything: true } }, issues);
 * // { type: 'object', properties: { anything: {} } } and a 'rewritten' issue
 * ```
 */
export function toMcpInputSchema(inputSchema: Record<string, unknown>, issues: SchemaIssues): McpObjectSchema {
  return { ...objectProperties(cloneJson(inputSchema), '', issues), type: 'object' };
}

/**
 * The `outputSchema` of an MCP tool entry, or `undefined` when the tool has none or it cannot be one:
 * MCP requires `type: 'object'` (results carry it as `structuredContent`), so an output schema of
 * another type, or one that is not valid JSON Schema, is left out with a `rewritten` issue and the
 * tool exports without it.
 *
 * @example
 * ```ts
 * toMcpOutputSchema({ type: 'number' }, issues); // undefined, and a 'rewritten' issue
 * ```
 */
export function toMcpOutputSchema(outputSchema: unknown, issues: SchemaIssues): McpObjectSchema | undefined {
  if (outputSchema === undefined) return undefined;
  if (!isPlainObject(outputSchema) || outputSchema.type !== 'object') {
    issues.rewritten(
      undefined,
      "The output schema is left out: MCP needs an object schema (type 'object') for structuredContent",
    );
    return undefined;
  }
  const problems = jsonSchemaProblems(outputSchema);
  if (problems.length > 0) {
    issues.rewritten(undefined, `The output schema is left out: it is not valid JSON Schema (${problems[0]})`);
    return undefined;
  }
  const { $schema: _schema, $id: _id, ...rest } = cloneJson(outputSchema);
  return { ...objectProperties(rest, '/outputSchema', issues), type: 'object' };
}

function objectProperties(
  schema: Record<string, unknown>,
  pointer: string,
  issues: SchemaIssues,
): Record<string, unknown> {
  const properties = schema.properties;
  if (!isPlainObject(properties)) return schema;
  const fixed: Record<string, unknown> = {};
  for (const name of Object.keys(properties)) {
    const value = properties[name];
    if (typeof value === 'boolean') {
      issues.rewritten(
        appendPointer(pointer, 'properties', name),
        'Boolean property schema became an object schema (MCP expects objects)',
      );
      setOwn(fixed, name, value ? {} : { not: {} });
    } else {
      setOwn(fixed, name, value);
    }
  }
  return { ...schema, properties: fixed };
}
