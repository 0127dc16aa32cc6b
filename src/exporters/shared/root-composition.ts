import { isPlainObject } from '../../core/json-schema.js';
import { mergeAllOf } from './merge-all-of.js';
import type { SchemaIssues } from './schema-issues.js';

/**
 * A copy of `root` without `anyOf`/`oneOf` beside the root object — composition that OpenAI strict
 * mode, Gemini and Anthropic all refuse at the top level — each removal recorded with the target's
 * own wording. The call-time validator still checks the full schema.
 *
 * @example
 * ```ts
 * withoutRootComposition({ type: 'object', anyOf: [] }, issues, (key) => `'${key}' removed`);
 * // { type: 'object' } and one 'rewritten' issue
 * ```
 */
export function withoutRootComposition(
  root: Record<string, unknown>,
  issues: SchemaIssues,
  removed: (key: 'anyOf' | 'oneOf') => string,
): Record<string, unknown> {
  const copy = { ...root };
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Object.hasOwn(copy, key)) continue;
    delete copy[key];
    issues.rewritten('', removed(key));
  }
  return copy;
}

/**
 * The root object schema a target can take: `undefined` (recorded as unsupported) when the root is not
 * an object schema; else a copy without root `anyOf`/`oneOf` ({@link withoutRootComposition}), with a
 * root `allOf` merged into one schema and the composition that brings removed too.
 *
 * @example
 * ```ts
 * rootObjectSchema({ type: 'object', allOf: [{ properties: { a: {} } }] }, issues, (key) => `'${key}' removed`);
 * // { type: 'object', properties: { a: {} } } and one 'rewritten' issue
 * ```
 */
export function rootObjectSchema(
  schema: unknown,
  issues: SchemaIssues,
  removed: (key: 'anyOf' | 'oneOf') => string,
): Record<string, unknown> | undefined {
  if (!isPlainObject(schema)) {
    issues.unsupported('', 'a root that is not an object schema');
    return undefined;
  }
  const root = withoutRootComposition({ ...schema }, issues, removed);
  // A root allOf may bring composition of its own: merge it, then look again.
  const merged = mergeAllOf(root);
  if (merged === undefined || merged === root) return root;
  issues.rewritten('', "'allOf' merged into one schema");
  return withoutRootComposition(merged, issues, removed);
}

/** A finite number (what numeric bounds accept). */
export function isFiniteNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

/** A non-negative integer (what length and count bounds accept). */
export function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
