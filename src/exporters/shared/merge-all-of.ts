import { isPlainObject } from '../../core/json-schema.js';
import { setOwn } from './set-own.js';

/**
 * Fold a node's `allOf` into one schema, for targets without `allOf` (OpenAI strict mode, Gemini).
 *
 * Branches are merged key by key: `properties` are united (a property in two branches must be the
 * same), `required` lists are joined, and any other keyword must agree (a differing `description` or
 * `title` keeps the first). Returns the node itself when it has no `allOf`, and `undefined` when the
 * branches conflict or contain something that cannot be merged without a validator (a `$ref`, a
 * non-object branch, `false`).
 *
 * @example
 * ```ts
 * mergeAllOf({ allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { required: ['a'] }] });
 * // { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }
 * ```
 */
export function mergeAllOf(node: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!Object.hasOwn(node, 'allOf')) return node;
  const { allOf: branches, ...base } = node;
  if (!Array.isArray(branches)) return undefined;
  const merged: Record<string, unknown> = {};
  for (const branch of [base, ...branches]) {
    if (branch === true) continue;
    if (!isPlainObject(branch)) return undefined;
    const flat = mergeAllOf(branch);
    if (flat === undefined || Object.hasOwn(flat, '$ref')) return undefined;
    for (const key of Object.keys(flat)) {
      const value = flat[key];
      if (!Object.hasOwn(merged, key)) {
        setOwn(merged, key, key === 'properties' && isPlainObject(value) ? { ...value } : value);
        continue;
      }
      const existing = merged[key];
      if (key === 'properties') {
        if (!isPlainObject(existing) || !isPlainObject(value)) return undefined;
        for (const name of Object.keys(value)) {
          if (Object.hasOwn(existing, name) && !sameJson(existing[name], value[name])) return undefined;
          setOwn(existing, name, value[name]);
        }
      } else if (key === 'required') {
        if (!Array.isArray(existing) || !Array.isArray(value)) return undefined;
        setOwn(merged, key, [...new Set([...existing, ...value])]);
      } else if (!sameJson(existing, value) && key !== 'description' && key !== 'title') {
        return undefined;
      }
    }
  }
  return merged;
}

function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}
