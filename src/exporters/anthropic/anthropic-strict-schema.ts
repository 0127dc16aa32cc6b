import { isPlainObject } from '../../core/json-schema.js';
import { appendPointer } from '../shared/json-pointer.js';
import { resolveRefs } from '../shared/resolve-refs.js';
import { SchemaIssues } from '../shared/schema-issues.js';
import { acceptsAnything, requiredNames, typeList } from '../shared/schema-walk.js';
import { setOwn } from '../shared/set-own.js';
import { strictComposition } from '../shared/strict-composition.js';
import type { AnthropicInputSchema } from './anthropic-tool.js';

/**
 * String formats Anthropic's strict tool use accepts.
 *
 * @example
 * ```ts
 * ANTHROPIC_STRICT_FORMATS.has('uri'); // true
 * ```
 */
export const ANTHROPIC_STRICT_FORMATS: ReadonlySet<string> = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'uri',
  'ipv4',
  'ipv6',
  'uuid',
]);

/**
 * Anthropic's limits on one request's strict tools: at most 20 strict tools, 24 optional properties
 * across their schemas, and 16 properties whose schema is a union (`anyOf` or a list of types).
 *
 * @example
 * ```ts
 * ANTHROPIC_STRICT_LIMITS.tools; // 20
 * ```
 */
export const ANTHROPIC_STRICT_LIMITS = Object.freeze({ tools: 20, optionalProperties: 24, unionProperties: 16 });

/**
 * What {@link toAnthropicStrictSchema} produced: the schema and what it counts against the request's
 * limits, or why strict tool use cannot express the tool.
 *
 * @example
 * ```ts
 * const result = toAnthropicStrictSchema(schema, issues);
 * if ('unsupported' in result) console.log(`not strict: ${result.unsupported}`);
 * ```
 */
export type AnthropicStrictSchema =
  | { readonly schema: AnthropicInputSchema; readonly optionalProperties: number; readonly unionProperties: number }
  | { readonly unsupported: string };

// Keywords kept as they are (their values checked); everything else outside STRUCTURAL is removed.
const KEPT_KEYWORDS = new Map<string, (value: unknown) => boolean>([
  ['title', (value) => typeof value === 'string'],
  ['description', (value) => typeof value === 'string'],
  ['default', () => true],
  ['const', isPrimitive],
  ['enum', (value) => Array.isArray(value) && value.length > 0 && value.every(isPrimitive)],
  ['pattern', (value) => typeof value === 'string'],
]);
const STRUCTURAL_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'items',
  'prefixItems',
  'minItems',
  'anyOf',
  'oneOf',
  'allOf',
  '$ref',
  '$defs',
  'definitions',
  'format',
]);
const SILENT_KEYWORDS = new Set(['$schema', '$id', '$comment', '$anchor']);
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/**
 * The message of an object closed for strict tool use.
 *
 * @example
 * ```ts
 * warnings.some((warning) => warning.message.startsWith(ANTHROPIC_OBJECT_CLOSED));
 * ```
 */
export const ANTHROPIC_OBJECT_CLOSED =
  "Open object closed with 'additionalProperties: false' (strict tool use requires it; the model can no longer send undeclared keys)";

/**
 * The `input_schema` of an Anthropic tool with `strict: true`, in the JSON Schema subset strict tool use
 * accepts: every object gets `additionalProperties: false`; `$ref`s are inlined; `allOf` is merged and
 * `oneOf` becomes `anyOf`; keywords outside the subset (`minimum`, `maximum`, `multipleOf`,
 * `minLength`, `maxLength`, `maxItems`, `minItems` above 1, unsupported `format`s, `not`, …) are
 * removed. Optional properties stay optional. Each change is a `rewritten` issue; the registry still
 * validates calls against the real schema.
 *
 * Returns `{unsupported: reason}`, and records nothing in `issues`, for a schema strict tool use cannot
 * express: a recursive schema, an open object or map, an any-value property, a tuple, an
 * `enum` of objects or arrays.
 *
 * @example
 * ```ts
 * toAnthropicStrictSchema({ type: 'object', properties: { n: { type: 'integer', minimum: 1 } } }, issues);
 * // { schema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
 * //   optionalProperties: 1, unionProperties: 0 }
 * ```
 */
export function toAnthropicStrictSchema(
  inputSchema: Record<string, unknown>,
  issues: SchemaIssues,
): AnthropicStrictSchema {
  const attempt = new SchemaIssues();
  const resolution = resolveRefs(inputSchema, 'hoist');
  if (!resolution.ok) {
    attempt.unsupported(
      undefined,
      resolution.reason === 'too-large'
        ? 'a schema this large once its $refs are inlined'
        : `an unresolvable $ref '${resolution.ref}'`,
    );
  } else if (Object.keys(resolution.defs).length > 0) {
    attempt.unsupported(undefined, 'a recursive schema');
  } else {
    if (resolution.inlined.length > 0)
      attempt.rewritten(undefined, `$ref ${resolution.inlined.map((ref) => `'${ref}'`).join(', ')} inlined`);
    const converter = new StrictConverter(attempt);
    const root = converter.convert(resolution.schema, '');
    if (!attempt.blocked) {
      for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
        if (Object.hasOwn(root, key)) {
          delete root[key];
          attempt.rewritten('', `'${key}' at the root removed (the call-time validator still checks it)`);
        }
      }
      issues.absorb(attempt);
      return {
        schema: { ...root, type: 'object' } as AnthropicInputSchema,
        optionalProperties: converter.optionalProperties,
        unionProperties: converter.unionProperties,
      };
    }
  }
  return { unsupported: attempt.unsupportedSummary() };
}

class StrictConverter {
  optionalProperties = 0;
  unionProperties = 0;

  constructor(private readonly issues: SchemaIssues) {}

  convert(node: unknown, pointer: string): Record<string, unknown> {
    if (acceptsAnything(node)) return this.block(pointer, 'a value of any type');
    if (!isPlainObject(node)) return this.block(pointer, 'a value that is not a schema');
    const composed = strictComposition(node, pointer, this.issues);
    if ('unsupported' in composed) return this.block(pointer, composed.unsupported);
    const schema = composed.schema;
    const types = typeList(schema);
    if (types === undefined || types.some((type) => !JSON_TYPES.has(type)))
      return this.block(pointer, "a 'type' that is not a JSON Schema type");
    const objectLike =
      types.includes('object') ||
      (types.length === 0 && ['properties', 'additionalProperties', 'patternProperties'].some((key) => key in schema));
    const arrayLike = types.includes('array') || (types.length === 0 && ('items' in schema || 'prefixItems' in schema));

    const out: Record<string, unknown> = {};
    if (types.length > 0) out.type = types.length === 1 ? types[0] : types;
    for (const key of Object.keys(schema)) {
      if (STRUCTURAL_KEYWORDS.has(key) || SILENT_KEYWORDS.has(key)) continue;
      const check = KEPT_KEYWORDS.get(key);
      if (check?.(schema[key])) setOwn(out, key, schema[key]);
      else if (key === 'enum' || key === 'const') return this.block(pointer, `an '${key}' of objects or arrays`);
      else this.issues.rewritten(pointer, `'${key}' is not supported in strict tool use; removed`);
    }
    if (Object.hasOwn(schema, 'format')) {
      if (typeof schema.format === 'string' && ANTHROPIC_STRICT_FORMATS.has(schema.format)) out.format = schema.format;
      else
        this.issues.rewritten(
          pointer,
          `format ${JSON.stringify(schema.format)} is not supported in strict tool use; removed`,
        );
    }

    if (objectLike) {
      const extra = schema.additionalProperties;
      if ((extra !== undefined && extra !== false) || schema.patternProperties !== undefined)
        return this.block(pointer, 'an open object (additionalProperties or patternProperties)');
      const declared = isPlainObject(schema.properties) ? schema.properties : {};
      if (Object.keys(declared).length === 0 && pointer !== '' && extra !== false)
        return this.block(pointer, 'an object without declared properties (any keys)');
      const required = requiredNames(schema);
      const properties: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(declared)) {
        const converted = this.convert(child, appendPointer(pointer, 'properties', name));
        if (!required.has(name)) this.optionalProperties++;
        if (Array.isArray(converted.anyOf) || Array.isArray(converted.type)) this.unionProperties++;
        setOwn(properties, name, converted);
      }
      out.properties = properties;
      const kept = [...required].filter((name) => Object.hasOwn(declared, name));
      if (kept.length < required.size)
        this.issues.rewritten(pointer, "'required' names undeclared properties; they were removed from it");
      if (kept.length > 0) out.required = kept;
      if (extra === undefined && pointer !== '') this.issues.rewritten(pointer, ANTHROPIC_OBJECT_CLOSED);
      out.additionalProperties = false;
    }

    if (arrayLike) {
      if (Array.isArray(schema.items) || schema.prefixItems !== undefined)
        return this.block(pointer, 'a tuple (prefixItems)');
      if (schema.items !== undefined) out.items = this.convert(schema.items, appendPointer(pointer, 'items'));
      const minItems = schema.minItems;
      if (minItems === 0 || minItems === 1) out.minItems = minItems;
      else if (minItems !== undefined)
        this.issues.rewritten(
          pointer,
          `'minItems: ${JSON.stringify(minItems)}' is not supported (only 0 or 1); removed`,
        );
    } else if (Object.hasOwn(schema, 'minItems')) {
      this.issues.rewritten(pointer, "'minItems' is not supported in strict tool use; removed");
    }

    if (Object.hasOwn(schema, 'anyOf')) {
      const branches = schema.anyOf;
      if (!Array.isArray(branches) || branches.length === 0) return this.block(pointer, "an empty 'anyOf'");
      out.anyOf = branches.map((branch, index) => this.convert(branch, appendPointer(pointer, 'anyOf', String(index))));
    }
    return out;
  }

  private block(pointer: string, reason: string): Record<string, unknown> {
    this.issues.unsupported(pointer, reason);
    return {};
  }
}

function isPrimitive(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}
