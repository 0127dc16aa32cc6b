import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { isPlainObject, type JsonSchema } from '../core/json-schema.js';
import { toIssue } from '../schema/validation-errors.js';
import { appendPointer } from './shared/json-pointer.js';
import { mapSubschemas, requiredNames, typeList } from './shared/schema-walk.js';

/**
 * One problem {@link lintSchema} found in a schema: where (a JSON Pointer into the schema) and what.
 *
 * @example
 * ```ts
 * const finding: SchemaFinding = { pointer: '/properties/unit/default', message: 'default null fails its own schema (must be a string); it is never applied' };
 * ```
 */
export interface SchemaFinding {
  readonly pointer: string;
  readonly message: string;
}

type AjvClass = typeof import('ajv/dist/2020.js').Ajv2020;
type FormatsPlugin = (ajv: Ajv2020) => unknown;

// Ajv is not imported here: importing it costs more than a CLI start may spend, and
// `registry.check()` is synchronous. Node's `require` loads it on first use (Ajv and ajv-formats are
// CommonJS) without a Node import at load time; elsewhere defaults are not checked.
let provided: { Ajv: AjvClass; addFormats: FormatsPlugin } | undefined;
let checker: Ajv2020 | null | undefined;
const defaultValidators = new Map<string, ValidateFunction | null>();

function defaultChecker(): Ajv2020 | null {
  if (checker !== undefined) return checker;
  if (provided === undefined) {
    const nodeProcess = (globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } }).process;
    const module = nodeProcess?.getBuiltinModule?.('node:module') as typeof import('node:module') | undefined;
    if (module === undefined) return null;
    const require = module.createRequire(import.meta.url);
    provided = {
      Ajv: (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020,
      addFormats: require('ajv-formats') as FormatsPlugin,
    };
  }
  // Without Ajv's optimizing passes over the code it generates, a schema compiles in about half the
  // time, and the lint compiles every input schema a configuration loads; the passes only rewrite the
  // generated code, so what compiles and what a validator answers do not change.
  checker = new provided.Ajv({
    strict: false,
    allErrors: false,
    verbose: true,
    useDefaults: false,
    logger: false,
    code: { optimize: false },
  });
  provided.addFormats(checker);
  return checker;
}

/**
 * The string formats the call-time validator checks (those of `ajv-formats`); any other `format` is
 * ignored by validation. Empty where Ajv cannot be loaded synchronously (outside Node, before the
 * validator compiler has loaded).
 *
 * @example
 * ```ts
 * checkedFormats().has('date-time'); // true
 * checkedFormats().has('phone'); // false
 * ```
 */
export function checkedFormats(): ReadonlySet<string> {
  return new Set(Object.keys(defaultChecker()?.formats ?? {}));
}

/**
 * Why `value` fails `schema` (a property's schema inside `root`, whose `$defs` its `$ref`s may use), as
 * the words after "must be"; `undefined` when it passes, or when the schema cannot be checked on its own
 * (a `$ref` into another part of the root).
 */
function mismatch(schema: unknown, value: unknown, root: Record<string, unknown>): string | undefined {
  if (schema === false) return 'nothing';
  if (!isPlainObject(schema)) return undefined;
  const quick = quickMismatch(schema, value);
  if (quick !== undefined) return quick === true ? undefined : quick;
  const { default: _default, ...rest } = schema;
  const standalone: Record<string, unknown> = { ...rest };
  if (isPlainObject(root.$defs) && standalone.$defs === undefined) standalone.$defs = root.$defs;
  if (isPlainObject(root.definitions) && standalone.definitions === undefined)
    standalone.definitions = root.definitions;
  const key = JSON.stringify(standalone);
  // A `$ref` anywhere but into the definitions means another part of the root (`#` itself, a sibling).
  for (const match of key.matchAll(/"\$ref":("(?:[^"\\]|\\.)*")/g)) {
    const ref = JSON.parse(match[1]!) as string;
    if (!ref.startsWith('#/$defs/') && !ref.startsWith('#/definitions/')) return undefined;
  }
  const error = firstError(key, standalone, value);
  if (error === undefined) return undefined;
  return error === null ? 'a valid value' : toIssue(error).expected;
}

/** Keywords {@link quickMismatch} decides alone; any other makes it hand the schema to Ajv. */
const QUICK_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'items',
  'title',
  'description',
  'default',
  'examples',
  '$comment',
]);

/** Bounds as the validator words them: the keyword's test, and the words after "must be". */
const QUICK_BOUNDS: ReadonlyArray<
  readonly [
    string,
    (value: unknown) => number | undefined,
    (actual: number, limit: number) => boolean,
    (limit: number) => string,
  ]
> = [
  ['minimum', asNumber, (actual, limit) => actual >= limit, (limit) => `>= ${limit}`],
  ['maximum', asNumber, (actual, limit) => actual <= limit, (limit) => `<= ${limit}`],
  ['exclusiveMinimum', asNumber, (actual, limit) => actual > limit, (limit) => `> ${limit}`],
  ['exclusiveMaximum', asNumber, (actual, limit) => actual < limit, (limit) => `< ${limit}`],
  [
    'minLength',
    stringLength,
    (actual, limit) => actual >= limit,
    (limit) => `at least ${limit} character${limit === 1 ? '' : 's'} long`,
  ],
  ['maxLength', stringLength, (actual, limit) => actual <= limit, (limit) => `at most ${limit} characters long`],
  [
    'minItems',
    listLength,
    (actual, limit) => actual >= limit,
    (limit) => `a list of at least ${limit} item${limit === 1 ? '' : 's'}`,
  ],
  ['maxItems', listLength, (actual, limit) => actual <= limit, (limit) => `a list of at most ${limit} items`],
];

function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function stringLength(value: unknown): number | undefined {
  return typeof value === 'string' ? [...value].length : undefined;
}

function listLength(value: unknown): number | undefined {
  return Array.isArray(value) ? value.length : undefined;
}

/**
 * {@link mismatch} without compiling a validator, for the schemas most defaults sit in (`type`,
 * `enum`, `const` and annotations only): `true` when the value passes, the words after "must be" when
 * it fails, `undefined` when the schema needs Ajv. Words as the validator's issues have them.
 */
function quickMismatch(schema: Record<string, unknown>, value: unknown): string | true | undefined {
  for (const key of Object.keys(schema)) if (!QUICK_KEYWORDS.has(key)) return undefined;
  const types = typeList(schema);
  if (types === undefined) return undefined;
  if (types.length > 0 && !types.some((type) => hasType(value, type))) return typeWords(types);
  if (Array.isArray(schema.enum)) {
    const matches = schema.enum.map((item) => sameScalar(item, value));
    if (matches.includes(undefined)) return undefined;
    if (!matches.includes(true)) return `one of ${schema.enum.map((item) => JSON.stringify(item)).join(', ')}`;
  }
  if (Object.hasOwn(schema, 'const')) {
    const same = sameScalar(schema.const, value);
    if (same === undefined) return undefined;
    if (!same) return `exactly ${JSON.stringify(schema.const)}`;
  }
  for (const [keyword, measure, holds, words] of QUICK_BOUNDS) {
    const limit = schema[keyword];
    if (limit === undefined) continue;
    if (typeof limit !== 'number') return undefined;
    const actual = measure(value);
    if (actual !== undefined && !holds(actual, limit)) return words(limit);
  }
  if (schema.items !== undefined && Array.isArray(value)) {
    if (!isPlainObject(schema.items)) return undefined;
    for (const item of value) {
      const found = quickMismatch(schema.items, item);
      if (found !== true) return found;
    }
  }
  return true;
}

/** Equal scalars; `undefined` when either side is an object or a list (Ajv compares those). */
function sameScalar(left: unknown, right: unknown): boolean | undefined {
  if ((typeof left === 'object' && left !== null) || (typeof right === 'object' && right !== null)) return undefined;
  return left === right;
}

/** Why a property's `default` must never be applied, or `undefined` when applying it is safe. */
function defaultProblem(
  name: string,
  property: Record<string, unknown>,
  required: ReadonlySet<string>,
  root: Record<string, unknown>,
): string | undefined {
  const shown = JSON.stringify(property.default) ?? String(property.default);
  if (required.has(name))
    return `default ${shown} of required property '${name}' is never applied: a required argument must be sent`;
  const expected = mismatch(property, property.default, root);
  return expected === undefined
    ? undefined
    : `default ${shown} fails its own schema (must be ${expected}); it is never applied`;
}

/**
 * `schema` without the property defaults that would hurt a call: a default that fails its own property
 * schema (`{type: 'string', default: null}`), and any default of a required property (a required
 * argument must be sent, never filled in). Every other default stays, to be applied by validation.
 * Returns `schema` itself when there is nothing to remove; never mutates it.
 *
 * @example
 * ```ts
 * withoutHarmfulDefaults({
 *   type: 'object',
 *   properties: { unit: { type: 'string', default: null }, limit: { type: 'integer', default: 10 } },
 * });
 * // { type: 'object', properties: { unit: { type: 'string' }, limit: { type: 'integer', default: 10 } } }
 * ```
 */
export function withoutHarmfulDefaults(schema: JsonSchema): JsonSchema {
  if (!JSON.stringify(schema).includes('"default"')) return schema;
  let changed = false;
  const root = schema as Record<string, unknown>;
  const visit = (node: unknown, pointer: string): unknown => {
    if (!isPlainObject(node)) return node;
    const copy = mapSubschemas(node, pointer, visit);
    if (isPlainObject(copy.properties)) {
      const required = requiredNames(node);
      for (const [name, property] of Object.entries(copy.properties)) {
        if (!isPlainObject(property) || !Object.hasOwn(property, 'default')) continue;
        if (defaultProblem(name, property, required, root) === undefined) continue;
        const { default: _dropped, ...kept } = property;
        copy.properties[name] = kept;
        changed = true;
      }
    }
    return copy;
  };
  const result = visit(schema, '') as JsonSchema;
  return changed ? result : schema;
}

/**
 * Check a JSON Schema for mistakes validation would not report but a model would pay for, one
 * {@link SchemaFinding} each, in schema order:
 *
 * - a property `default` that fails its own schema, or belongs to a required property (never applied);
 * - an `enum` value or a `const` of a type the `type` keyword excludes, and an empty `enum`;
 * - a `required` name that `properties` does not declare;
 * - a `format` the validator does not know (it is not checked);
 * - bounds no value can meet (`minimum` above `maximum`, `minLength` above `maxLength`, …), and an
 *   `allOf` whose parts' types have nothing in common.
 *
 * Never throws; a schema that is not an object has no findings.
 *
 * @example
 * ```ts
 * lintSchema({ type: 'object', properties: { n: { type: 'integer', minimum: 5, maximum: 1 } }, required: ['m'] });
 * // [
 * //   { pointer: '/properties/n', message: 'minimum 5 is above maximum 1; no value can match' },
 * //   { pointer: '/required/0', message: "required property 'm' is not declared in properties" },
 * // ]
 * ```
 */
export function lintSchema(schema: unknown): SchemaFinding[] {
  if (!isPlainObject(schema)) return [];
  const findings: SchemaFinding[] = [];
  const root = schema;
  const formats = checkedFormats();
  const visit = (node: unknown, pointer: string): unknown => {
    if (!isPlainObject(node)) return node;
    lintNode(node, pointer, root, formats, findings);
    mapSubschemas(node, pointer, visit);
    return node;
  };
  visit(schema, '');
  return findings;
}

/**
 * Why `schema` cannot be compiled into a validator — a `pattern` that is not a valid regular
 * expression, a `$ref` that leads nowhere — as a {@link SchemaFinding} at the schema's root; `undefined`
 * when it compiles (or is not an object, or Ajv cannot be loaded synchronously). A tool with such an
 * input schema fails every call with `EXECUTION_FAILED`.
 *
 * @example
 * ```ts
 * schemaCompileFinding({ type: 'object', properties: { a: { $ref: '#/nope' } } });
 * // { pointer: '', message: "the input schema cannot be compiled (can't resolve reference #/nope from id #); every call fails with EXECUTION_FAILED" }
 * ```
 */
export function schemaCompileFinding(schema: unknown): SchemaFinding | undefined {
  if (!isPlainObject(schema)) return undefined;
  const ajv = defaultChecker();
  if (ajv === null) return undefined;
  const { $schema: _schema, $id: _id, ...rest } = schema;
  try {
    ajv.compile(rest);
    ajv.removeSchema(rest);
    return undefined;
  } catch (error) {
    return {
      pointer: '',
      message: `the input schema cannot be compiled (${(error as Error).message}); every call fails with EXECUTION_FAILED`,
    };
  }
}

/**
 * Check a tool's input examples against its input schema: one {@link SchemaFinding} per example that
 * fails it (pointer `/inputExamples/<index>`), which exports leave out. Where Ajv cannot be loaded
 * synchronously (a browser), nothing is reported.
 *
 * @example
 * ```ts
 * lintInputExamples({ type: 'object', properties: { n: { type: 'integer' } } }, [{ n: 1 }, { n: 'two' }]);
 * // [{ pointer: '/inputExamples/1', message: 'input example 1 fails the input schema (must be integer); exports leave it out' }]
 * ```
 */
export function lintInputExamples(schema: unknown, examples: readonly unknown[] | undefined): SchemaFinding[] {
  if (!isPlainObject(schema) || examples === undefined) return [];
  return failingExamples(schema, examples).map(({ index, problem }) => ({
    pointer: `/inputExamples/${index}`,
    message: `input example ${index} fails the input schema (${problem}); exports leave it out`,
  }));
}

/**
 * The examples that fail `schema`, by index, with the first validation message of each. Where Ajv cannot
 * be loaded synchronously, none.
 *
 * @example
 * ```ts
 * failingExamples({ type: 'object', properties: { n: { type: 'integer' } } }, [{ n: 'two' }]);
 * // [{ index: 0, problem: "'n' must be integer, got string \"two\"" }]
 * ```
 */
export function failingExamples(
  schema: Record<string, unknown>,
  examples: readonly unknown[],
): Array<{ index: number; problem: string }> {
  const failing: Array<{ index: number; problem: string }> = [];
  examples.forEach((example, index) => {
    const problem = valueProblem(schema, example);
    if (problem !== undefined) failing.push({ index, problem });
  });
  return failing;
}

/** Why `value` fails the whole `schema`, as a validation message; `undefined` when it passes or cannot be checked. */
function valueProblem(schema: Record<string, unknown>, value: unknown): string | undefined {
  const error = firstError(JSON.stringify(schema), schema, value);
  if (error === undefined) return undefined;
  return error === null ? 'not a valid value' : toIssue(error).message;
}

/**
 * Validate `value` against `schema` (compiled once per `key`, its JSON text): `undefined` when it passes
 * or cannot be checked (no Ajv to load, a schema Ajv refuses, a definition that refers to itself without
 * end), else the first error, or `null` when Ajv gave none.
 */
function firstError(key: string, schema: Record<string, unknown>, value: unknown): ErrorObject | null | undefined {
  let validate = defaultValidators.get(key);
  if (validate === undefined) {
    try {
      validate = defaultChecker()?.compile(schema) ?? null;
    } catch {
      validate = null;
    }
    defaultValidators.set(key, validate);
  }
  if (validate === null) return undefined;
  try {
    if (validate(value)) return undefined;
  } catch {
    return undefined;
  }
  return validate.errors?.[0] ?? null;
}

/**
 * A finding as the one line `registry.check()` and `toolshed validate` show:
 * `tool: message (at pointer)`.
 *
 * @example
 * ```ts
 * formatSchemaFinding('get_weather', { pointer: '/properties/unit/enum', message: 'enum is empty; no value can match' });
 * // 'get_weather: enum is empty; no value can match (at /properties/unit/enum)'
 * ```
 */
export function formatSchemaFinding(tool: string, finding: SchemaFinding): string {
  return `${tool}: ${finding.message} (at ${finding.pointer === '' ? '/' : finding.pointer})`;
}

function lintNode(
  node: Record<string, unknown>,
  pointer: string,
  root: Record<string, unknown>,
  formats: ReadonlySet<string>,
  findings: SchemaFinding[],
): void {
  const add = (at: string, message: string) => findings.push({ pointer: at, message });
  const types = typeList(node) ?? [];
  const properties = isPlainObject(node.properties) ? node.properties : undefined;
  const required = requiredNames(node);

  if (properties !== undefined) {
    for (const [name, property] of Object.entries(properties)) {
      if (!isPlainObject(property) || !Object.hasOwn(property, 'default')) continue;
      const problem = defaultProblem(name, property, required, root);
      if (problem !== undefined) add(appendPointer(pointer, 'properties', name, 'default'), problem);
    }
  }

  if (Array.isArray(node.enum)) {
    if (node.enum.length === 0) add(appendPointer(pointer, 'enum'), 'enum is empty; no value can match');
    node.enum.forEach((value, index) => {
      if (types.length > 0 && !types.some((type) => hasType(value, type)))
        add(
          appendPointer(pointer, 'enum', String(index)),
          `enum value ${JSON.stringify(value)} is not ${typeWords(types)}; no argument can match it`,
        );
    });
  }
  if (Object.hasOwn(node, 'const') && types.length > 0 && !types.some((type) => hasType(node.const, type)))
    add(
      appendPointer(pointer, 'const'),
      `const ${JSON.stringify(node.const)} is not ${typeWords(types)}; no value can match`,
    );

  if (Array.isArray(node.required) && properties !== undefined && node.patternProperties === undefined) {
    node.required.forEach((name, index) => {
      if (typeof name === 'string' && !Object.hasOwn(properties, name))
        add(
          appendPointer(pointer, 'required', String(index)),
          `required property '${name}' is not declared in properties`,
        );
    });
  }

  if (typeof node.format === 'string' && formats.size > 0 && !formats.has(node.format))
    add(appendPointer(pointer, 'format'), `unknown format '${node.format}' is never checked`);

  for (const [low, high, strict] of BOUNDS) {
    const min = node[low];
    const max = node[high];
    if (typeof min !== 'number' || typeof max !== 'number') continue;
    if (strict ? min >= max : min > max) add(pointer, `${low} ${min} is above ${high} ${max}; no value can match`);
  }

  if (Array.isArray(node.allOf)) {
    let common: string[] | undefined = types.length > 0 ? types : undefined;
    for (const branch of node.allOf) {
      const branchTypes = isPlainObject(branch) ? typeList(branch) : undefined;
      if (branchTypes === undefined || branchTypes.length === 0) continue;
      common = common === undefined ? branchTypes : intersectTypes(common, branchTypes);
    }
    if (common !== undefined && common.length === 0)
      add(appendPointer(pointer, 'allOf'), 'the types of allOf have nothing in common; no value can match');
  }
}

/** Pairs of lower and upper bounds, and whether they must differ for a value to fit between them. */
const BOUNDS: ReadonlyArray<readonly [string, string, boolean]> = [
  ['minimum', 'maximum', false],
  ['exclusiveMinimum', 'maximum', true],
  ['minimum', 'exclusiveMaximum', true],
  ['exclusiveMinimum', 'exclusiveMaximum', true],
  ['minLength', 'maxLength', false],
  ['minItems', 'maxItems', false],
  ['minProperties', 'maxProperties', false],
  ['minContains', 'maxContains', false],
];

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isPlainObject(value);
    default:
      return typeof value === type;
  }
}

function intersectTypes(left: string[], right: string[]): string[] {
  const widen = (types: string[], other: string[]) =>
    types.flatMap((type) => (type === 'number' && other.includes('integer') ? ['integer'] : [type]));
  const a = widen(left, right);
  const b = widen(right, left);
  return a.filter((type) => b.includes(type));
}

function typeWords(types: string[]): string {
  return types
    .map((type) => (type === 'null' ? 'null' : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`))
    .join(' or ');
}
