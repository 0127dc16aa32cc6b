import { isPlainObject } from '../../core/json-schema.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { acceptsNull } from '../shared/accepts-null.js';
import { resolveLocalRef } from '../shared/json-pointer.js';
import { mergeAllOf } from '../shared/merge-all-of.js';
import { requiredNames } from '../shared/schema-walk.js';
import { setOwn } from '../shared/set-own.js';

/** Deeper arguments are returned as they are (they came from a model, not from a schema). */
const MAX_DEPTH = 256;
/** `$ref` hops followed for one node before giving up. */
const MAX_REF_HOPS = 32;
/** `allOf`s merged inside one another before giving up. */
const MAX_ALL_OF_NESTING = 8;

/**
 * Undo strict mode's nullable encoding: in arguments a model sent for a tool exported with
 * `toOpenAITools(..., { strict: true })`, drop every `null` given for a property that the tool's real
 * schema declares optional and that does not itself accept `null`, so the real schema validates (and
 * its defaults apply). Works through nested objects, arrays, local `$ref`s, `allOf`, and `anyOf`/`oneOf`
 * (the branch whose properties match the object's keys).
 *
 * Arguments as JSON text are parsed first (text that does not parse is returned unchanged, for the
 * registry to report). Never throws and never mutates `args`; anything the schema does not describe is
 * kept as it is. Safe for arguments of non-strict tools too: only nulls the real schema would reject
 * are touched.
 *
 * @example
 * ```ts
 * const spec = defineTool({
 *   name: 'search',
 *   description: 'Search.',
 *   inputSchema: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query'] },
 *   handler: () => [],
 * });
 * decodeStrictArguments(spec, { query: 'cats', limit: null }); // { query: 'cats' }
 * decodeStrictArguments(spec, '{"query":"cats","limit":5}'); // { query: 'cats', limit: 5 }
 * ```
 */
export function decodeStrictArguments(spec: Pick<ToolSpec, 'inputSchema'>, args: unknown): unknown {
  let value = args;
  if (typeof args === 'string') {
    try {
      value = JSON.parse(args) as unknown;
    } catch {
      return args;
    }
  }
  return decode(spec.inputSchema, value, spec.inputSchema, 0);
}

function decode(schema: unknown, value: unknown, root: unknown, depth: number): unknown {
  const node = resolveNode(schema, root);
  if (node === undefined || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    // 2020-12 tuples are prefixItems + items; draft-04 ones are items (a list) + additionalItems.
    let tuple: unknown[] | undefined;
    let rest: unknown = node.items;
    if (Array.isArray(node.prefixItems)) tuple = node.prefixItems;
    else if (Array.isArray(node.items)) [tuple, rest] = [node.items, node.additionalItems];
    return value.map((item, index) => {
      const itemSchema = tuple !== undefined && index < tuple.length ? tuple[index] : rest;
      return itemSchema === undefined ? item : decode(itemSchema, item, root, depth + 1);
    });
  }
  if (!isPlainObject(value)) return value;
  if (!isPlainObject(node.properties)) {
    const branches = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
    const branch = branches === undefined ? undefined : pickBranch(branches, value, root);
    if (branch !== undefined) return decode(branch, value, root, depth + 1);
  }
  const properties = isPlainObject(node.properties) ? node.properties : {};
  const required = requiredNames(node);
  const decoded: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = value[key];
    const declared = Object.hasOwn(properties, key);
    if (item === null && declared && !required.has(key) && !acceptsNull(properties[key], root)) continue;
    const itemSchema = declared
      ? properties[key]
      : isPlainObject(node.additionalProperties)
        ? node.additionalProperties
        : undefined;
    setOwn(decoded, key, itemSchema === undefined ? item : decode(itemSchema, item, root, depth + 1));
  }
  return decoded;
}

/** The schema node with its `$ref` chain followed and its `allOf` merged, or `undefined` when it says nothing. */
function resolveNode(
  schema: unknown,
  root: unknown,
  nesting = MAX_ALL_OF_NESTING,
): Record<string, unknown> | undefined {
  if (!isPlainObject(schema)) return undefined;
  let node = schema;
  for (let hops = 0; typeof node.$ref === 'string'; hops++) {
    const target = resolveLocalRef(root, node.$ref);
    if (hops >= MAX_REF_HOPS || !isPlainObject(target)) return undefined;
    const { $ref: _ref, ...siblings } = node;
    node = { ...target, ...siblings };
  }
  // An allOf can reach itself through a $ref ('#'); past a few levels the node is used as it is.
  if (Array.isArray(node.allOf) && nesting > 0) {
    const branches = node.allOf.map((branch) => resolveNode(branch, root, nesting - 1) ?? {});
    const merged = mergeAllOf({ ...node, allOf: branches });
    if (merged !== undefined) return merged;
  }
  return node;
}

/** The composition branch an object matches best: all its keys declared, then the fewest unused properties. */
function pickBranch(
  branches: unknown[],
  value: Record<string, unknown>,
  root: unknown,
): Record<string, unknown> | undefined {
  const keys = Object.keys(value);
  let best: Record<string, unknown> | undefined;
  let bestUnused = Number.POSITIVE_INFINITY;
  for (const candidate of branches) {
    const branch = resolveNode(candidate, root);
    if (branch === undefined || !isPlainObject(branch.properties)) continue;
    const properties = branch.properties;
    if (!keys.every((key) => Object.hasOwn(properties, key))) continue;
    const unused = Object.keys(properties).length - keys.length;
    if (unused < bestUnused) {
      best = branch;
      bestUnused = unused;
    }
  }
  return best;
}
