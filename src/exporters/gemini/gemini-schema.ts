import { isPlainObject } from '../../core/json-schema.js';
import { appendPointer } from '../shared/json-pointer.js';
import { mergeAllOf } from '../shared/merge-all-of.js';
import { resolveRefs } from '../shared/resolve-refs.js';
import { isCount, isFiniteNumber, rootObjectSchema } from '../shared/root-composition.js';
import type { SchemaIssues } from '../shared/schema-issues.js';
import { acceptsAnything, requiredNames, typeList } from '../shared/schema-walk.js';
import { setOwn } from '../shared/set-own.js';
import type { GeminiSchema, GeminiType } from './gemini-tool.js';

/**
 * Every key a Gemini schema may have, in the order they are written out.
 *
 * @example
 * ```ts
 * GEMINI_SCHEMA_KEYS.includes('nullable'); // true
 * GEMINI_SCHEMA_KEYS.includes('additionalProperties' as never); // false
 * ```
 */
export const GEMINI_SCHEMA_KEYS: readonly (keyof GeminiSchema)[] = [
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'properties',
  'required',
  'propertyOrdering',
  'minProperties',
  'maxProperties',
  'items',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'anyOf',
  'default',
  'example',
];

/** `format` values Gemini understands, per type. */
const GEMINI_FORMATS: Readonly<Record<string, readonly string[]>> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};

/**
 * Gemini parameter names: a letter or underscore, then letters, digits and underscores, at most 64.
 *
 * @example
 * ```ts
 * GEMINI_PARAMETER_NAME_PATTERN.test('file_path'); // true
 * GEMINI_PARAMETER_NAME_PATTERN.test('file-path'); // false
 * ```
 */
export const GEMINI_PARAMETER_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;

const GEMINI_TYPES = new Set<string>(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const NUMERIC = ['number', 'integer'];
/** Keywords kept only on the types they apply to, with the check their value must pass. */
const TYPED_KEYWORDS = new Map<string, { types: readonly string[]; valid: (value: unknown) => boolean }>([
  ['minimum', { types: NUMERIC, valid: isFiniteNumber }],
  ['maximum', { types: NUMERIC, valid: isFiniteNumber }],
  ['minLength', { types: ['string'], valid: isCount }],
  ['maxLength', { types: ['string'], valid: isCount }],
  ['pattern', { types: ['string'], valid: (value) => typeof value === 'string' }],
  ['minItems', { types: ['array'], valid: isCount }],
  ['maxItems', { types: ['array'], valid: isCount }],
  ['minProperties', { types: ['object'], valid: isCount }],
  ['maxProperties', { types: ['object'], valid: isCount }],
  [
    'propertyOrdering',
    { types: ['object'], valid: (value) => Array.isArray(value) && value.every((item) => typeof item === 'string') },
  ],
]);
/** Keywords handled by the converter's own logic. */
const STRUCTURAL_KEYWORDS = new Set([
  'type',
  'nullable',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'allOf',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'items',
  'prefixItems',
  'format',
  'title',
  'description',
  'default',
  'example',
  'examples',
]);
/**
 * Keywords with no meaning for the model, dropped without a warning. `contentMediaType` is a hint for
 * editors (the web catalog's code fields); the description already names the language.
 */
const SILENT_KEYWORDS = new Set(['$schema', '$id', '$comment', '$anchor', '$defs', 'definitions', 'contentMediaType']);

type Conversion = { ok: true; schema: GeminiSchema } | { ok: false; pointer: string; reason: string };

/**
 * The `parameters` of a Gemini function declaration: the input schema in Gemini's OpenAPI 3.0 subset.
 *
 * Only the keys of {@link GEMINI_SCHEMA_KEYS} survive; types are lowercase (as in Gemini's
 * function-calling guide; the API accepts both cases). `$ref`s are inlined, and a recursive schema is
 * refused: `undefined` and an `unsupported` issue, so only this tool is left out. Type lists with
 * `null` and `anyOf` branches of `{type: 'null'}` become `nullable: true`; other type lists become
 * `anyOf`; `const` becomes a one-value `enum`; an enum of non-strings moves into the description
 * (Gemini enums are strings); `oneOf` becomes `anyOf` and `allOf` is merged; `examples` becomes
 * `example`; `format`s Gemini does not know and every other keyword are removed. An optional property
 * Gemini cannot express (an open map, an any-value, a tuple, an array without items) is removed; a
 * required one makes the tool unsupported. Top-level parameter names must match
 * {@link GEMINI_PARAMETER_NAME_PATTERN}. Every change is a `rewritten` issue.
 *
 * @example
 * ```ts
 * toGeminiSchema(
 *   { type: 'object', properties: { unit: { const: 'c' }, note: { type: ['string', 'null'] } }, required: ['unit'] },
 *   issues,
 * );
 * // { type: 'object', properties: { unit: { type: 'string', enum: ['c'] }, note: { type: 'string', nullable: true } },
 * //   required: ['unit'] }
 * ```
 */
export function toGeminiSchema(inputSchema: Record<string, unknown>, issues: SchemaIssues): GeminiSchema | undefined {
  const resolution = resolveRefs(inputSchema, 'inline');
  if (!resolution.ok) {
    const reasons = {
      recursive: `a recursive schema ($ref '${resolution.ref}')`,
      unresolvable: `an unresolvable $ref '${resolution.ref}' (only local '#/...' references are followed)`,
      'too-large': 'a schema this large once its $refs are inlined',
    } as const;
    issues.unsupported(undefined, reasons[resolution.reason]);
    return undefined;
  }
  if (resolution.inlined.length > 0) {
    issues.rewritten(
      undefined,
      `$ref ${resolution.inlined.map((ref) => `'${ref}'`).join(', ')} inlined (Gemini does not follow references)`,
    );
  }
  const root = rootObjectSchema(resolution.schema, issues, geminiRootComposition);
  if (root === undefined) return undefined;
  const result = new GeminiConverter(issues).convert(root, '');
  if (!result.ok) {
    issues.unsupported(result.pointer, result.reason);
    return undefined;
  }
  return result.schema;
}

class GeminiConverter {
  constructor(private readonly issues: SchemaIssues) {}

  convert(node: unknown, pointer: string): Conversion {
    if (acceptsAnything(node)) return fail(pointer, 'a schema that accepts any value (Gemini needs a type)');
    if (!isPlainObject(node)) return fail(pointer, 'a value that is not a schema');
    let schema = node;
    if (Object.hasOwn(schema, 'allOf')) {
      const merged = mergeAllOf(schema);
      if (merged === undefined) return fail(pointer, "an 'allOf' whose parts cannot be merged");
      this.issues.rewritten(pointer, "'allOf' merged into one schema");
      schema = merged;
    }
    if (Object.hasOwn(schema, 'oneOf')) {
      if (Object.hasOwn(schema, 'anyOf') || !Array.isArray(schema.oneOf))
        return fail(pointer, "a 'oneOf' beside an 'anyOf'");
      this.issues.rewritten(
        pointer,
        "'oneOf' became 'anyOf' (the call-time validator still requires exactly one match)",
      );
      const { oneOf, ...rest } = schema;
      schema = { ...rest, anyOf: oneOf };
    }
    if (Object.hasOwn(schema, '$ref')) return fail(pointer, 'a $ref that was not inlined');

    const out: GeminiSchema = {};
    let nullable = schema.nullable === true;
    const listed = typeList(schema);
    if (listed === undefined) return fail(pointer, "a malformed 'type'");
    let types = listed;
    if (types.includes('null')) {
      nullable = true;
      types = types.filter((type) => type !== 'null');
      this.issues.rewritten(pointer, "type 'null' became 'nullable: true'");
    }

    let values: unknown[] | undefined = Array.isArray(schema.enum) ? [...schema.enum] : undefined;
    if (Object.hasOwn(schema, 'const')) {
      values = [schema.const];
      this.issues.rewritten(pointer, "'const' became a one-value 'enum'");
    }
    let valuesHint: string | undefined;
    if (values !== undefined) {
      if (values.includes(null)) {
        nullable = true;
        values = values.filter((value) => value !== null);
      }
      if (values.length === 0) return fail(pointer, 'a schema that only allows null');
      if (values.every((value) => typeof value === 'string') && (types.length === 0 || types.includes('string'))) {
        out.enum = values as string[];
        if (types.length === 0) types = ['string'];
      } else if (values.every((value) => typeof value === 'string')) {
        valuesHint = `Allowed values: ${values.map((value) => JSON.stringify(value)).join(', ')}.`;
        this.issues.rewritten(
          pointer,
          `'enum' on type ${types.join(', ')} moved into the description (Gemini takes 'enum' on strings only)`,
        );
      } else {
        valuesHint = `Allowed values: ${values.map((value) => JSON.stringify(value)).join(', ')}.`;
        this.issues.rewritten(
          pointer,
          "non-string 'enum' values moved into the description (Gemini enums hold strings only)",
        );
        if (types.length === 0) {
          const inferred = inferType(values);
          if (inferred === undefined) return fail(pointer, 'an enum mixing value types');
          types = [inferred];
        }
      }
    }

    const branches = schema.anyOf;
    if (branches !== undefined && (!Array.isArray(branches) || branches.length === 0))
      return fail(pointer, "an empty or malformed 'anyOf'");
    if (types.length === 0 && branches === undefined) {
      if (
        ['properties', 'required', 'additionalProperties', 'patternProperties'].some((key) =>
          Object.hasOwn(schema, key),
        )
      )
        types = ['object'];
      else if (Object.hasOwn(schema, 'items') || Object.hasOwn(schema, 'prefixItems')) types = ['array'];
      else return fail(pointer, 'a schema without a type');
    }
    if (types.some((type) => !GEMINI_TYPES.has(type))) return fail(pointer, `type ${JSON.stringify(schema.type)}`);

    if (types.length > 1) {
      this.issues.rewritten(pointer, "type list became 'anyOf' with one branch per type");
      const {
        title: _title,
        description: _description,
        default: _default,
        examples: _examples,
        enum: _enum,
        const: _const,
        nullable: _nullable,
        ...rest
      } = schema;
      const typed: GeminiSchema[] = [];
      for (const type of types) {
        const branch = this.convert({ ...rest, type }, pointer);
        if (!branch.ok) return branch;
        typed.push(branch.schema);
      }
      if (values !== undefined && valuesHint === undefined) {
        valuesHint = `Allowed values: ${values.map((value) => JSON.stringify(value)).join(', ')}.`;
        this.issues.rewritten(pointer, "'enum' over several types moved into the description");
      }
      // Moved, not copied: beside anyOf, an enum of strings would constrain the branches of other types.
      delete out.enum;
      const description = withHint(schema.description, valuesHint);
      if (description !== undefined) out.description = description;
      if (nullable) out.nullable = true;
      out.anyOf = typed;
      return { ok: true, schema: ordered(out) };
    }
    const type = types[0] as GeminiType | undefined;
    if (type !== undefined) out.type = type;

    for (const key of Object.keys(schema)) {
      if (SILENT_KEYWORDS.has(key) || (key === 'additionalProperties' && schema[key] === false)) continue;
      const typed = TYPED_KEYWORDS.get(key);
      if (typed !== undefined) {
        if (type !== undefined && typed.types.includes(type) && typed.valid(schema[key]))
          setOwn(out as Record<string, unknown>, key, schema[key]);
        else this.issues.rewritten(pointer, `'${key}' is not supported by Gemini here; removed`);
      } else if (!STRUCTURAL_KEYWORDS.has(key)) {
        this.issues.rewritten(pointer, `'${key}' is not supported by Gemini; removed`);
      }
    }
    if (typeof schema.title === 'string') out.title = schema.title;
    const description = withHint(schema.description, valuesHint);
    if (description !== undefined) out.description = description;
    if (Object.hasOwn(schema, 'default')) out.default = schema.default;
    if (Object.hasOwn(schema, 'example')) out.example = schema.example;
    else if (Array.isArray(schema.examples) && schema.examples.length > 0) {
      out.example = schema.examples[0];
      this.issues.rewritten(pointer, "'examples' became 'example' (its first value)");
    }
    if (Object.hasOwn(schema, 'format')) {
      const format = schema.format;
      if (typeof format === 'string' && type !== undefined && (GEMINI_FORMATS[type] ?? []).includes(format))
        out.format = format;
      else this.issues.rewritten(pointer, `format ${JSON.stringify(format)} is not supported by Gemini; removed`);
    }

    if (type === 'object') {
      const failure = this.convertObject(schema, pointer, out);
      if (failure !== undefined) return failure;
    }
    if (type === 'array') {
      if (Array.isArray(schema.items) || schema.prefixItems !== undefined)
        return fail(pointer, 'a tuple (prefixItems)');
      if (schema.items === undefined) return fail(pointer, 'an array without items');
      const items = this.convert(schema.items, appendPointer(pointer, 'items'));
      if (!items.ok) return items;
      out.items = items.schema;
    }
    if (Array.isArray(branches)) {
      const converted: GeminiSchema[] = [];
      for (const [index, branch] of branches.entries()) {
        if (isNullSchema(branch)) {
          nullable = true;
          this.issues.rewritten(pointer, "'anyOf' branch {type: 'null'} became 'nullable: true'");
          continue;
        }
        const result = this.convert(branch, appendPointer(pointer, 'anyOf', String(index)));
        if (!result.ok) return result;
        converted.push(result.schema);
      }
      if (converted.length === 0) return fail(pointer, 'a schema that only allows null');
      if (converted.length === 1 && type === undefined) {
        const only = converted[0] as Record<string, unknown>;
        for (const key of Object.keys(only))
          if (!Object.hasOwn(out, key)) setOwn(out as Record<string, unknown>, key, only[key]);
      } else {
        out.anyOf = converted;
      }
    }
    if (nullable) out.nullable = true;
    return { ok: true, schema: ordered(out) };
  }

  /** Fill `out` with the object keywords, or say why the object cannot be expressed. */
  private convertObject(schema: Record<string, unknown>, pointer: string, out: GeminiSchema): Conversion | undefined {
    const declared = isPlainObject(schema.properties) ? schema.properties : {};
    const extra = schema.additionalProperties;
    const open = (extra !== undefined && extra !== false) || schema.patternProperties !== undefined;
    const names = Object.keys(declared);
    if (names.length === 0) {
      return fail(pointer, open ? 'an open object (a map of any keys)' : 'an object without properties');
    }
    if (open)
      this.issues.rewritten(
        pointer,
        "'additionalProperties' is not supported by Gemini; only the declared properties can be sent",
      );
    const required = requiredNames(schema);
    const properties: Record<string, GeminiSchema> = {};
    for (const name of names) {
      const childPointer = appendPointer(pointer, 'properties', name);
      const child =
        pointer === '' && !GEMINI_PARAMETER_NAME_PATTERN.test(name)
          ? fail(childPointer, `the parameter name '${name}' (it must match ${GEMINI_PARAMETER_NAME_PATTERN.source})`)
          : this.convert(declared[name], childPointer);
      if (child.ok) {
        setOwn(properties, name, child.schema);
      } else if (required.has(name)) {
        return child;
      } else {
        this.issues.rewritten(
          childPointer,
          `Optional property removed: Gemini cannot express ${child.reason}${child.pointer === childPointer ? '' : ` at ${child.pointer}`}`,
        );
      }
    }
    const kept = Object.keys(properties);
    if (kept.length === 0) return fail(pointer, 'an object none of whose properties it can express');
    out.properties = properties;
    const requiredKept = [...required].filter((name) => kept.includes(name));
    if (requiredKept.length > 0) out.required = requiredKept;
    if (out.propertyOrdering !== undefined)
      out.propertyOrdering = out.propertyOrdering.filter((name) => kept.includes(name));
    return undefined;
  }
}

/** The description with a hint appended as its own sentence. */
function withHint(description: unknown, hint: string | undefined): string | undefined {
  const text = typeof description === 'string' && description.trim() !== '' ? description.trim() : undefined;
  if (hint === undefined) return typeof description === 'string' ? description : undefined;
  if (text === undefined) return hint;
  return `${text}${/[.!?]$/.test(text) ? '' : '.'} ${hint}`;
}

function fail(pointer: string, reason: string): Conversion {
  return { ok: false, pointer, reason };
}

/** A branch that only allows null: `{type: 'null'}`, `{const: null}`, `{enum: [null]}`. */
function isNullSchema(schema: unknown): boolean {
  if (!isPlainObject(schema)) return false;
  const keys = Object.keys(schema).filter((key) => key !== 'description' && key !== 'title');
  if (keys.length !== 1) return false;
  return (
    schema.type === 'null' ||
    schema.const === null ||
    (Array.isArray(schema.enum) && schema.enum.length === 1 && schema.enum[0] === null)
  );
}

function inferType(values: readonly unknown[]): GeminiType | undefined {
  if (values.every((value) => typeof value === 'number'))
    return values.every((value) => Number.isInteger(value)) ? 'integer' : 'number';
  if (values.every((value) => typeof value === 'boolean')) return 'boolean';
  return undefined;
}

/** The schema with its keys in {@link GEMINI_SCHEMA_KEYS} order (stable fixtures, readable output). */
function ordered(schema: GeminiSchema): GeminiSchema {
  const result: Record<string, unknown> = {};
  for (const key of GEMINI_SCHEMA_KEYS) if (schema[key] !== undefined) result[key] = schema[key];
  return result as GeminiSchema;
}

function geminiRootComposition(key: 'anyOf' | 'oneOf'): string {
  return `'${key}' beside the root object is not supported by Gemini; removed (the call-time validator still checks it)`;
}
