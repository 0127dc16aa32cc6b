import { isPlainObject, type JsonSchema } from '../../core/json-schema.js';
import { acceptsNull } from '../shared/accepts-null.js';
import { appendPointer } from '../shared/json-pointer.js';
import { resolveRefs } from '../shared/resolve-refs.js';
import { isCount, isFiniteNumber, rootObjectSchema } from '../shared/root-composition.js';
import { SchemaIssues } from '../shared/schema-issues.js';
import { acceptsAnything, requiredNames, typeList } from '../shared/schema-walk.js';
import { cloneJson, setOwn } from '../shared/set-own.js';
import { strictComposition } from '../shared/strict-composition.js';

/**
 * The `format` values OpenAI strict mode accepts on strings.
 *
 * @example
 * ```ts
 * OPENAI_STRICT_FORMATS.has('email'); // true
 * OPENAI_STRICT_FORMATS.has('uri'); // false: removed in strict mode
 * ```
 */
export const OPENAI_STRICT_FORMATS: ReadonlySet<string> = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

/**
 * Object nesting OpenAI strict mode allows.
 *
 * @example
 * ```ts
 * // A schema nesting objects deeper than this exports with strict: false.
 * OPENAI_STRICT_MAX_NESTING; // 10
 * ```
 */
export const OPENAI_STRICT_MAX_NESTING = 10;
/**
 * Total object properties OpenAI strict mode allows in one schema.
 *
 * @example
 * ```ts
 * OPENAI_STRICT_MAX_PROPERTIES; // 5000
 * ```
 */
export const OPENAI_STRICT_MAX_PROPERTIES = 5000;

/**
 * Keywords strict mode keeps beside the structural ones (`type`, `properties`, `required`,
 * `additionalProperties`, `items`, `anyOf`, `$ref`, `$defs`, `format`), each with the check its value
 * must pass.
 */
const KEPT_KEYWORDS = new Map<string, (value: unknown) => boolean>([
  ['title', isString],
  ['description', isString],
  ['enum', (value) => Array.isArray(value) && value.length > 0],
  ['const', () => true],
  ['pattern', isString],
  ['minimum', isFiniteNumber],
  ['maximum', isFiniteNumber],
  ['exclusiveMinimum', isFiniteNumber],
  ['exclusiveMaximum', isFiniteNumber],
  ['multipleOf', isFiniteNumber],
  ['minItems', isCount],
  ['maxItems', isCount],
]);

const STRUCTURAL_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'items',
  'prefixItems',
  'anyOf',
  'oneOf',
  'allOf',
  '$ref',
  '$defs',
  'definitions',
  'format',
]);

/**
 * Keywords with no meaning for the model, dropped without a warning. `contentMediaType` is a hint for
 * editors (the web catalog's code fields); the description already names the language.
 */
const SILENT_KEYWORDS = new Set(['$schema', '$id', '$comment', '$anchor', 'contentMediaType']);

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/**
 * The message recorded for every optional property strict mode turns into a required, nullable one.
 *
 * @example
 * ```ts
 * const nullables = warnings.filter((warning) => warning.message.startsWith(OPTIONAL_BECOMES_NULLABLE));
 * ```
 */
export const OPTIONAL_BECOMES_NULLABLE =
  'Optional property made required and nullable (strict mode requires every property; decodeStrictArguments turns null back into absent)';

/**
 * The warning for an object below the root that the schema leaves open (no `additionalProperties`)
 * and strict mode closes: a model can then no longer send keys the schema does not declare.
 *
 * @example
 * ```ts
 * const closed = warnings.filter((warning) => warning.message.startsWith(OPEN_OBJECT_CLOSED));
 * ```
 */
export const OPEN_OBJECT_CLOSED =
  "Open object closed with 'additionalProperties: false' (strict mode requires it; the model can no longer send undeclared keys)";

/**
 * What {@link toOpenAISchema} produced.
 *
 * @example
 * ```ts
 * const { parameters, strict }: OpenAISchemaResult = toOpenAISchema(spec.inputSchema, { strict: true }, new SchemaIssues());
 * ```
 */
export interface OpenAISchemaResult {
  readonly parameters: JsonSchema;
  /** Whether `parameters` is a valid strict-mode schema (send it with `strict: true`). */
  readonly strict: boolean;
}

/**
 * The `parameters` of an OpenAI function tool.
 *
 * Without `strict`, the schema passes through as is (a copy). With `strict`, it is rewritten into the
 * subset OpenAI's strict mode accepts: every object gets `additionalProperties: false` and lists all of
 * its properties in `required`; optional properties become nullable (`type: [T, 'null']`, `null` added
 * to an `enum`, or `anyOf: [T, {type: 'null'}]`); `$ref`s are inlined, except recursive ones, which
 * point into one root `$defs` (`#` stays `#`); `oneOf` becomes `anyOf`, an `allOf` is merged, and
 * keywords strict mode rejects (`minLength`, `maxLength`, `default`, `examples`, unsupported `format`s,
 * `uniqueItems`, `not`, …) are removed. Each change is recorded in `issues` as `rewritten`; the
 * registry still validates calls against the real schema, so removed constraints keep holding.
 *
 * A schema strict mode cannot express at all (open objects and maps, `{}`/any values, tuples, arrays
 * without `items`, unmergeable `allOf`, unresolvable `$ref`s, more than 10 levels of nesting or 5000
 * properties) is exported without strict mode instead: `strict: false` and the schema as is, with one
 * `rewritten` issue saying why.
 *
 * @example
 * ```ts
 * const issues = new SchemaIssues();
 * toOpenAISchema(
 *   { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query'] },
 *   { strict: true },
 *   issues,
 * );
 * // { strict: true, parameters: { type: 'object', properties: { query: { type: 'string' },
 * //   limit: { type: ['integer', 'null'] } }, required: ['query', 'limit'], additionalProperties: false } }
 * ```
 */
export function toOpenAISchema(
  inputSchema: JsonSchema,
  options: { strict: boolean },
  issues: SchemaIssues,
): OpenAISchemaResult {
  if (!options.strict) return { parameters: cloneJson(inputSchema), strict: false };
  const attempt = new SchemaIssues();
  const parameters = toStrictSchema(inputSchema, attempt);
  if (parameters === undefined || attempt.blocked) {
    issues.rewritten(
      undefined,
      `Strict mode cannot express ${attempt.unsupportedSummary()}; exported with strict: false`,
    );
    return { parameters: cloneJson(inputSchema), strict: false };
  }
  issues.absorb(attempt);
  return { parameters, strict: true };
}

function toStrictSchema(inputSchema: JsonSchema, issues: SchemaIssues): JsonSchema | undefined {
  const resolution = resolveRefs(inputSchema, 'hoist');
  if (!resolution.ok) {
    issues.unsupported(
      undefined,
      resolution.reason === 'too-large'
        ? 'a schema this large once its $refs are inlined'
        : `an unresolvable $ref '${resolution.ref}' (only local '#/...' references are followed)`,
    );
    return undefined;
  }
  if (resolution.inlined.length > 0) {
    issues.rewritten(undefined, `$ref ${resolution.inlined.map((ref) => `'${ref}'`).join(', ')} inlined`);
  }
  const defNames = Object.keys(resolution.defs);
  if (defNames.length > 0) {
    issues.rewritten(
      undefined,
      `Recursive definitions ${defNames.map((name) => `'${name}'`).join(', ')} moved to the root $defs`,
    );
  }
  const root = rootObjectSchema(resolution.schema, issues, strictRootComposition);
  if (root === undefined) return undefined;
  const converter = new StrictConverter(issues);
  const parameters = converter.convert(root, '', 0);
  if (defNames.length > 0) {
    const defs: Record<string, unknown> = {};
    for (const name of defNames)
      setOwn(defs, name, converter.convert(resolution.defs[name], appendPointer('/$defs', name), 1));
    parameters.$defs = defs;
    for (const name of defNames) {
      if (refersOnlyToItself(defs, name))
        issues.unsupported(appendPointer('/$defs', name), 'a definition that is only a $ref to itself');
    }
  }
  if (converter.propertyCount > OPENAI_STRICT_MAX_PROPERTIES) {
    issues.unsupported('', `${converter.propertyCount} properties (more than ${OPENAI_STRICT_MAX_PROPERTIES})`);
  }
  return parameters as JsonSchema;
}

class StrictConverter {
  propertyCount = 0;

  constructor(private readonly issues: SchemaIssues) {}

  convert(node: unknown, pointer: string, depth: number): Record<string, unknown> {
    if (acceptsAnything(node)) return this.block(pointer, 'a schema that accepts any value');
    if (!isPlainObject(node)) return this.block(pointer, 'a value that is not a schema');
    const composed = strictComposition(node, pointer, this.issues);
    if ('unsupported' in composed) return this.block(pointer, composed.unsupported);
    const schema = composed.schema;
    if (typeof schema.$ref === 'string') return { $ref: schema.$ref };

    const types = typeList(schema);
    if (types === undefined || types.some((type) => !JSON_TYPES.has(type))) {
      return this.block(pointer, "a 'type' that is not a JSON Schema type");
    }
    const objectLike =
      types.length === 0
        ? ['properties', 'required', 'additionalProperties', 'patternProperties'].some((key) =>
            Object.hasOwn(schema, key),
          )
        : types.includes('object');
    const arrayLike =
      types.length === 0
        ? Object.hasOwn(schema, 'items') || Object.hasOwn(schema, 'prefixItems')
        : types.includes('array');
    const out: Record<string, unknown> = {};
    if (types.length > 0) out.type = types.length === 1 ? types[0] : types;
    else if (objectLike && !arrayLike) out.type = 'object';
    else if (arrayLike && !objectLike) out.type = 'array';
    else if (!['enum', 'const', 'anyOf'].some((key) => Object.hasOwn(schema, key))) {
      return this.block(pointer, 'a schema without a type');
    }

    for (const key of Object.keys(schema)) {
      if (STRUCTURAL_KEYWORDS.has(key) || SILENT_KEYWORDS.has(key)) continue;
      const check = KEPT_KEYWORDS.get(key);
      if (check === undefined) this.issues.rewritten(pointer, `'${key}' is not supported in strict mode; removed`);
      else if (check(schema[key])) setOwn(out, key, schema[key]);
      else this.issues.rewritten(pointer, `'${key}' has a value strict mode does not accept; removed`);
    }
    if (Object.hasOwn(schema, 'format')) {
      const format = schema.format;
      if (typeof format === 'string' && OPENAI_STRICT_FORMATS.has(format)) out.format = format;
      else this.issues.rewritten(pointer, `format ${JSON.stringify(format)} is not supported in strict mode; removed`);
    }

    if (objectLike) {
      if (depth >= OPENAI_STRICT_MAX_NESTING) {
        return this.block(pointer, `objects nested more than ${OPENAI_STRICT_MAX_NESTING} levels deep`);
      }
      const extra = schema.additionalProperties;
      if ((extra !== undefined && extra !== false) || schema.patternProperties !== undefined) {
        return this.block(pointer, 'an open object (additionalProperties or patternProperties)');
      }
      const declared = schema.properties;
      if (declared === undefined && pointer !== '' && extra !== false) {
        return this.block(pointer, 'an object without declared properties (any keys)');
      }
      if (declared !== undefined && !isPlainObject(declared))
        return this.block(pointer, "a 'properties' that is not an object");
      const properties: Record<string, unknown> = {};
      const required = requiredNames(schema);
      const names = Object.keys(declared ?? {});
      for (const name of required) {
        if (!names.includes(name))
          this.issues.rewritten(pointer, `'required' names '${name}', which is not a declared property; removed`);
      }
      for (const name of names) {
        const childPointer = appendPointer(pointer, 'properties', name);
        const optional = !required.has(name);
        if (optional) this.issues.rewritten(childPointer, OPTIONAL_BECOMES_NULLABLE);
        let child = this.convert(declared?.[name], childPointer, depth + 1);
        if (optional && !acceptsNull(child)) child = nullable(child);
        setOwn(properties, name, child);
      }
      this.propertyCount += names.length;
      out.properties = properties;
      out.required = names;
      // The root is closed at call time too (undeclared arguments are dropped or refused); below it, an
      // object the schema leaves open changes meaning when closed.
      if (extra === undefined && pointer !== '') this.issues.rewritten(pointer, OPEN_OBJECT_CLOSED);
      out.additionalProperties = false;
    }

    if (arrayLike) {
      if (Array.isArray(schema.items) || schema.prefixItems !== undefined) {
        return this.block(pointer, 'a tuple (prefixItems)');
      }
      if (schema.items === undefined) return this.block(pointer, 'an array without items');
      out.items = this.convert(schema.items, appendPointer(pointer, 'items'), depth + 1);
    }

    if (Object.hasOwn(schema, 'anyOf')) {
      const branches = schema.anyOf;
      if (!Array.isArray(branches) || branches.length === 0)
        return this.block(pointer, "an empty or malformed 'anyOf'");
      out.anyOf = branches.map((branch, index) =>
        this.convert(branch, appendPointer(pointer, 'anyOf', String(index)), depth),
      );
    }
    return out;
  }

  private block(pointer: string, reason: string): Record<string, unknown> {
    this.issues.unsupported(pointer, reason);
    return {};
  }
}

/** The schema, also accepting `null`. */
function nullable(schema: Record<string, unknown>): Record<string, unknown> {
  const hasAnyOf = Array.isArray(schema.anyOf);
  if (Object.hasOwn(schema, '$ref') || Object.hasOwn(schema, 'const') || (hasAnyOf && Object.hasOwn(schema, 'type'))) {
    return { anyOf: [schema, { type: 'null' }] };
  }
  if (hasAnyOf) return { ...schema, anyOf: [...(schema.anyOf as unknown[]), { type: 'null' }] };
  const types = typeList(schema) ?? [];
  if (types.length === 0 && !Array.isArray(schema.enum)) return { anyOf: [schema, { type: 'null' }] };
  const copy = { ...schema };
  if (types.length > 0 && !types.includes('null')) copy.type = [...types, 'null'];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) copy.enum = [...schema.enum, null];
  return copy;
}

function isString(value: unknown): boolean {
  return typeof value === 'string';
}

/** True when following `$ref`s from a definition leads back to it without meeting a real schema. */
function refersOnlyToItself(defs: Record<string, unknown>, name: string): boolean {
  const seen = new Set<string>();
  let current = name;
  for (;;) {
    const node = defs[current];
    if (!isPlainObject(node) || typeof node.$ref !== 'string' || !node.$ref.startsWith('#/$defs/')) return false;
    seen.add(current);
    current = node.$ref.slice('#/$defs/'.length);
    if (seen.has(current)) return true;
    if (!Object.hasOwn(defs, current)) return false;
  }
}

function strictRootComposition(key: 'anyOf' | 'oneOf'): string {
  return `'${key}' beside the root object is not allowed in strict mode; removed (the call-time validator still checks it)`;
}
