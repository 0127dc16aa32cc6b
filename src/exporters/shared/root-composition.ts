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

/** A finite number (what numeric bounds accept). */
export function isFiniteNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

/** A non-negative integer (what length and count bounds accept). */
export function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
