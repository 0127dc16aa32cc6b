import { mergeAllOf } from '../shared/merge-all-of.js';
import { withoutRootComposition } from '../shared/root-composition.js';
import type { SchemaIssues } from '../shared/schema-issues.js';
import { cloneJson } from '../shared/set-own.js';
import type { AnthropicInputSchema } from './anthropic-tool.js';

/**
 * The `input_schema` of an Anthropic tool. Anthropic takes JSON Schema as it is (`$ref`/`$defs`,
 * `anyOf`, formats and constraints included) but rejects `oneOf`, `anyOf` and `allOf` at the top
 * level: a root `allOf` is merged into the root when its parts agree, and root `anyOf`/`oneOf` (or an
 * unmergeable `allOf`) are removed with a `rewritten` issue; the call-time validator still checks them.
 *
 * @example
 * ```ts
 * toAnthropicSchema(
 *   { type: 'object', properties: { id: { type: 'string' }, email: { type: 'string' } }, anyOf: [{ required: ['id'] }, { required: ['email'] }] },
 *   issues,
 * );
 * // { type: 'object', properties: { id: {...}, email: {...} } } and a 'rewritten' issue for the root anyOf
 * ```
 */
export function toAnthropicSchema(inputSchema: Record<string, unknown>, issues: SchemaIssues): AnthropicInputSchema {
  let schema = cloneJson(inputSchema);
  if (Object.hasOwn(schema, 'allOf')) {
    const merged = mergeAllOf(schema);
    if (merged !== undefined && merged.type === 'object') {
      schema = merged;
      issues.rewritten(
        '',
        "'allOf' at the root merged into the root schema (Anthropic rejects composition at the top level)",
      );
    } else {
      delete schema.allOf;
      issues.rewritten(
        '',
        "'allOf' at the root removed (Anthropic rejects composition at the top level; the call-time validator still checks it)",
      );
    }
  }
  const root = withoutRootComposition(
    schema,
    issues,
    (key) =>
      `'${key}' at the root removed (Anthropic rejects composition at the top level; the call-time validator still checks it)`,
  );
  return { ...root, type: 'object' };
}
