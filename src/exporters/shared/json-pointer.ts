import { escapePointerSegment, pointerSegments } from '../../core/json-pointer.js';
import { isPlainObject } from '../../core/json-schema.js';

/**
 * Append segments to a JSON Pointer, escaping `~` and `/` (RFC 6901).
 *
 * @example
 * ```ts
 * appendPointer('/properties', 'a/b'); // '/properties/a~1b'
 * ```
 */
export function appendPointer(pointer: string, ...segments: string[]): string {
  let result = pointer;
  for (const segment of segments) result += `/${escapePointerSegment(segment)}`;
  return result;
}

/**
 * The node a local `$ref` (`#`, `#/$defs/Name`, any `#/...` JSON Pointer) points at inside `root`, or
 * `undefined` when it points nowhere or is not local (`other.json#/x`, `#anchor`).
 *
 * Segments are looked up as own properties, so a pointer through `__proto__` finds only a property of
 * that name.
 *
 * @example
 * ```ts
 * resolveLocalRef({ $defs: { A: { type: 'string' } } }, '#/$defs/A'); // { type: 'string' }
 * ```
 */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === '') return root;
  if (!fragment.startsWith('/')) return undefined;
  let node: unknown = root;
  for (const segment of pointerSegments(fragment)) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(segment)) return undefined;
      node = node[Number(segment)];
    } else if (isPlainObject(node) && Object.hasOwn(node, segment)) {
      node = node[segment];
    } else {
      return undefined;
    }
    if (node === undefined) return undefined;
  }
  return node;
}
