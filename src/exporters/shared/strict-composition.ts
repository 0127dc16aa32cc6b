import { mergeAllOf } from './merge-all-of.js';
import type { SchemaIssues } from './schema-issues.js';

/**
 * A schema node with its composition in the form strict modes accept (OpenAI's strict mode, Anthropic's
 * strict tool use): an `allOf` merged into the node, a `oneOf` turned into `anyOf` (the call-time
 * validator still requires exactly one match), each change a `rewritten` issue at `pointer`. Returns
 * why the node cannot be expressed instead, as the words of an `unsupported` issue, for an `allOf`
 * whose parts cannot be merged or a `oneOf` beside an `anyOf`.
 *
 * @example
 * ```ts
 * strictComposition({ oneOf: [{ type: 'string' }, { type: 'integer' }] }, '/properties/id', issues);
 * // { schema: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } and one 'rewritten' issue
 * ```
 */
export function strictComposition(
  node: Record<string, unknown>,
  pointer: string,
  issues: SchemaIssues,
): { schema: Record<string, unknown> } | { unsupported: string } {
  let schema = node;
  if (Object.hasOwn(schema, 'allOf')) {
    const merged = mergeAllOf(schema);
    if (merged === undefined) return { unsupported: "an 'allOf' whose parts cannot be merged" };
    issues.rewritten(pointer, "'allOf' merged into one schema");
    schema = merged;
  }
  if (Object.hasOwn(schema, 'oneOf')) {
    if (Object.hasOwn(schema, 'anyOf') || !Array.isArray(schema.oneOf))
      return { unsupported: "a 'oneOf' beside an 'anyOf'" };
    issues.rewritten(pointer, "'oneOf' became 'anyOf' (the call-time validator still requires exactly one match)");
    const { oneOf, ...rest } = schema;
    schema = { ...rest, anyOf: oneOf };
  }
  return { schema };
}
