import { isPlainObject } from '../../core/json-schema.js';
import { appendPointer } from './json-pointer.js';
import { setOwn } from './set-own.js';

/** Keywords whose value is one subschema. */
const SINGLE_SCHEMA_KEYWORDS = new Set([
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'additionalItems',
]);
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LIST_KEYWORDS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);

/**
 * Called for each direct subschema of a node with the subschema and its JSON Pointer.
 *
 * @example
 * ```ts
 * const pointers: SubschemaMapper = (_schema, pointer) => pointer; // replace each subschema by where it was
 * ```
 */
export type SubschemaMapper = (schema: unknown, pointer: string) => unknown;

/**
 * A shallow copy of a schema node whose direct subschemas (under `properties`, `items`, `anyOf`, `$defs`,
 * …) are replaced by `mapper`'s results. Values of other keywords (`enum`, `default`, `examples`, …)
 * are data, never walked, so a `$ref` key inside an enum value stays data.
 *
 * @example
 * ```ts
 * mapSubschemas({ type: 'array', items: { type: 'string' } }, '', (schema, pointer) => pointer);
 * // { type: 'array', items: '/items' }
 * ```
 */
export function mapSubschemas(
  node: Record<string, unknown>,
  pointer: string,
  mapper: SubschemaMapper,
): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(node)) {
    const value = node[key];
    let mapped = value;
    if (key === 'items') {
      mapped = Array.isArray(value)
        ? value.map((item, index) => mapper(item, appendPointer(pointer, key, String(index))))
        : mapper(value, appendPointer(pointer, key));
    } else if (SINGLE_SCHEMA_KEYWORDS.has(key)) {
      mapped = mapper(value, appendPointer(pointer, key));
    } else if (SCHEMA_MAP_KEYWORDS.has(key) && isPlainObject(value)) {
      const entries: Record<string, unknown> = {};
      for (const name of Object.keys(value))
        setOwn(entries, name, mapper(value[name], appendPointer(pointer, key, name)));
      mapped = entries;
    } else if (SCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) {
      mapped = value.map((item, index) => mapper(item, appendPointer(pointer, key, String(index))));
    }
    setOwn(copy, key, mapped);
  }
  return copy;
}

/**
 * The `type` keyword as a list (`'string'` → `['string']`), `[]` when absent, `undefined` when it is
 * malformed (not a string or a list of strings).
 *
 * @example
 * ```ts
 * typeList({ type: ['string', 'null'] }); // ['string', 'null']
 * ```
 */
export function typeList(node: Record<string, unknown>): string[] | undefined {
  const type = node.type;
  if (type === undefined) return [];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type) && type.every((item) => typeof item === 'string')) return [...new Set(type as string[])];
  return undefined;
}

/**
 * True when a schema places no constraint on its value (`true`, `{}`, or only annotations such as
 * `description`): such a schema means "any JSON value".
 *
 * @example
 * ```ts
 * acceptsAnything({ description: 'Anything' }); // true
 * ```
 */
export function acceptsAnything(schema: unknown): boolean {
  if (schema === true) return true;
  if (!isPlainObject(schema)) return false;
  return Object.keys(schema).every((key) => ANNOTATION_KEYWORDS.has(key));
}

/**
 * Keywords that describe a value without constraining it.
 *
 * @example
 * ```ts
 * ANNOTATION_KEYWORDS.has('description'); // true
 * ANNOTATION_KEYWORDS.has('minimum'); // false
 * ```
 */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
  '$schema',
  '$id',
  '$anchor',
  '$defs',
  'definitions',
]);

/**
 * The `required` keyword as a set of names (anything malformed counts as none).
 *
 * @example
 * ```ts
 * requiredNames({ required: ['a', 'b'] }); // Set { 'a', 'b' }
 * ```
 */
export function requiredNames(node: Record<string, unknown>): Set<string> {
  const required = node.required;
  return new Set(Array.isArray(required) ? required.filter((item): item is string => typeof item === 'string') : []);
}
