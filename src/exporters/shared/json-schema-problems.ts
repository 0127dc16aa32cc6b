import { schemaProblems } from '../../schema/meta-schema.js';

/**
 * What is wrong with a schema as JSON Schema 2020-12 (sentences; empty when it is valid), for
 * exporters deciding whether a schema can be passed on.
 *
 * When the checker itself throws, the answer is "nothing found": a fault in toolshed's own validator
 * must not take a user's tool out of every export (the call-time validator reports it where it matters).
 *
 * @example
 * ```ts
 * jsonSchemaProblems({ type: 'object', properties: { a: { type: 'strnig' } } }); // ["'properties.a.type' must be one of ..."]
 * ```
 */
export function jsonSchemaProblems(schema: unknown): string[] {
  try {
    return schemaProblems(schema);
  } catch {
    return [];
  }
}
