import { isPlainObject } from '../../core/json-schema.js';
import { resolveLocalRef } from './json-pointer.js';
import { typeList } from './schema-walk.js';

/**
 * True when `null` is a valid value for `schema`. Local `$ref`s are followed against `root` (a cycle
 * or an unresolvable ref counts as not accepting null, the cautious answer for decoding).
 *
 * A schema without `type`, `enum`, `const` or composition accepts null, as in JSON Schema: `{minimum: 1}`
 * constrains numbers only.
 *
 * @example
 * ```ts
 * acceptsNull({ type: ['string', 'null'] }); // true
 * acceptsNull({ anyOf: [{ type: 'string' }, { type: 'null' }] }); // true
 * acceptsNull({ type: 'string' }); // false
 * ```
 */
export function acceptsNull(schema: unknown, root?: unknown): boolean {
  return check(schema, root, new Set());
}

function check(schema: unknown, root: unknown, following: Set<string>): boolean {
  if (typeof schema === 'boolean') return schema;
  if (!isPlainObject(schema)) return false;
  if (typeof schema.$ref === 'string') {
    if (following.has(schema.$ref)) return false;
    const target = resolveLocalRef(root, schema.$ref);
    if (target === undefined || !check(target, root, new Set([...following, schema.$ref]))) return false;
  }
  const types = typeList(schema);
  if (types === undefined || (types.length > 0 && !types.includes('null'))) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) return false;
  if (Object.hasOwn(schema, 'const') && schema.const !== null) return false;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && !branches.some((branch) => check(branch, root, following))) return false;
  }
  if (Array.isArray(schema.allOf) && !schema.allOf.every((branch) => check(branch, root, following))) return false;
  return true;
}
