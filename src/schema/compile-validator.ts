import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import type { JsonSchema } from '../core/json-schema.js';
import type { CompiledValidator, ValidationIssue } from '../core/validation-issue.js';

// ajv-formats is CommonJS: its plugin function is the namespace's `default`.
const addFormats = (ajvFormats as unknown as { default: (ajv: Ajv2020) => unknown }).default;

export type { CompiledValidator, ValidationIssue };

const ajv = new Ajv2020({
  strict: false,
  allErrors: true,
  verbose: true,
  useDefaults: true,
  coerceTypes: false,
  validateFormats: true,
  discriminator: true,
});
addFormats(ajv);

const cache = new Map<string, CompiledValidator>();
const bySchema = new WeakMap<object, CompiledValidator>();

/**
 * Compile `schema` (draft 2020-12) into a {@link CompiledValidator}, once: validators are cached by
 * the schema object and by its JSON text, so 100 000 tools sharing a schema shape compile it once.
 *
 * Throws an `Error` naming the problem when the schema itself is invalid.
 *
 * @example
 * ```ts
 * const validate = compileValidator({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] });
 * validate({ a: 'x' }); // [{ path: 'a', keyword: 'type', message: "'a' must be a number, got string \"x\"", ... }]
 * ```
 */
export function compileValidator(schema: JsonSchema): CompiledValidator {
  const known = bySchema.get(schema);
  if (known !== undefined) return known;
  const key = JSON.stringify(schema);
  let validator = cache.get(key);
  if (validator === undefined) {
    const validate: ValidateFunction = ajv.compile(stripMetaKeys(schema));
    validator = (value) => (validate(value) ? undefined : (validate.errors ?? []).map(toIssue));
    cache.set(key, validator);
  }
  bySchema.set(schema, validator);
  return validator;
}

/**
 * Problems with a JSON Schema itself (unknown types, malformed keywords), located by JSON Pointer into
 * the schema; empty when it is a valid draft 2020-12 schema. Of the meta-schema's alternatives, only
 * the most telling issue per place is kept (`type: strnig` → one "must be one of" issue).
 *
 * @example
 * ```ts
 * schemaIssues({ type: 'object', properties: { a: { type: 'strnig' } } })[0].message;
 * // '\'properties.a.type\' must be one of "array", "boolean", ..., got string "strnig"'
 * ```
 */
export function schemaIssues(schema: unknown): ValidationIssue[] {
  if (ajv.validateSchema(stripMetaKeys(schema)) === true) return [];
  const issues = (ajv.errors ?? []).map(toIssue);
  const byPointer = new Map<string, ValidationIssue[]>();
  for (const issue of issues) byPointer.set(issue.pointer, [...(byPointer.get(issue.pointer) ?? []), issue]);
  const kept: ValidationIssue[] = [];
  for (const [pointer, group] of byPointer) {
    const deeper = [...byPointer.keys()].some((other) => other !== pointer && other.startsWith(`${pointer}/`));
    const specific = group.filter((issue) => issue.keyword !== 'anyOf' && issue.keyword !== 'oneOf');
    if (specific.length === 0) {
      if (!deeper) kept.push(group[0]!);
      continue;
    }
    const preferred = specific.find((issue) => issue.keyword === 'enum') ?? specific[0]!;
    kept.push(preferred);
  }
  return kept;
}

/**
 * {@link schemaIssues} as sentences (`'properties.a.type' must be one of ...`).
 *
 * @example
 * ```ts
 * schemaProblems({ type: 'strnig' }); // ['\'type\' must be one of "array", ... got string "strnig"']
 * ```
 */
export function schemaProblems(schema: unknown): string[] {
  return schemaIssues(schema).map((issue) => issue.message.replace(/^the arguments/, 'the schema'));
}

function stripMetaKeys(schema: unknown): object {
  if (typeof schema !== 'object' || schema === null) return schema as object;
  const { $schema: _schema, $id: _id, ...rest } = schema as Record<string, unknown>;
  return rest;
}

function toIssue(error: ErrorObject): ValidationIssue {
  const params = error.params as Record<string, unknown>;
  let path = pointerToPath(error.instancePath);
  let expected: string;
  const received: unknown = error.data;
  let hasReceived = true;
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      path = path === '' ? missing : `${path}.${missing}`;
      const propertySchema = (error.parentSchema as JsonSchema | undefined)?.properties?.[missing];
      expected = propertySchema === undefined ? 'a value' : describeSchema(propertySchema);
      hasReceived = false;
      return {
        path,
        pointer: `${error.instancePath}/${escapePointer(missing)}`,
        keyword: 'required',
        expected,
        message: `missing required argument '${path}' (${expected})`,
      };
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const accepted = Object.keys((error.parentSchema as JsonSchema | undefined)?.properties ?? {});
      path = path === '' ? extra : `${path}.${extra}`;
      expected = accepted.length > 0 ? `one of the accepted arguments: ${accepted.join(', ')}` : 'no arguments';
      return {
        path,
        pointer: `${error.instancePath}/${escapePointer(extra)}`,
        keyword: 'additionalProperties',
        expected,
        message: `unexpected argument '${path}'; accepted arguments are ${accepted.length > 0 ? accepted.join(', ') : 'none'}`,
      };
    }
    case 'type':
      expected = withArticle(String(params.type).replaceAll(',', ' or '));
      break;
    case 'enum':
      expected = `one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
      break;
    case 'const':
      expected = `exactly ${JSON.stringify(params.allowedValue)}`;
      break;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      expected = `${String(params.comparison)} ${String(params.limit)}`;
      break;
    case 'minLength':
      expected = `at least ${String(params.limit)} character${params.limit === 1 ? '' : 's'} long`;
      break;
    case 'maxLength':
      expected = `at most ${String(params.limit)} characters long`;
      break;
    case 'minItems':
      expected = `a list of at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`;
      break;
    case 'maxItems':
      expected = `a list of at most ${String(params.limit)} items`;
      break;
    case 'minProperties':
    case 'maxProperties':
      expected = `an object with ${error.keyword === 'minProperties' ? 'at least' : 'at most'} ${String(params.limit)} properties`;
      break;
    case 'pattern':
      expected = `a string matching /${String(params.pattern)}/`;
      break;
    case 'format':
      expected = `a valid ${String(params.format)}`;
      break;
    case 'multipleOf':
      expected = `a multiple of ${String(params.multipleOf)}`;
      break;
    case 'uniqueItems':
      expected = `a list without duplicates (items ${String(params.j)} and ${String(params.i)} are equal)`;
      break;
    case 'discriminator': {
      const tag = String(params.tag);
      const options = ((error.parentSchema as JsonSchema | undefined)?.oneOf ?? [])
        .map((branch) => branch.properties?.[tag]?.const)
        .filter((value) => value !== undefined)
        .map((value) => JSON.stringify(value));
      const tagPath = path === '' ? tag : `${path}.${tag}`;
      const tagValue = params.tagValue;
      return {
        path: tagPath,
        pointer: `${error.instancePath}/${escapePointer(tag)}`,
        keyword: 'discriminator',
        expected: `one of ${options.join(', ')}`,
        received: tagValue,
        message: `'${tagPath}' must be one of ${options.join(', ')}, got ${describeReceived(tagValue)}`,
      };
    }
    case 'anyOf':
    case 'oneOf':
      expected = `one of: ${((error.schema as JsonSchema[] | undefined) ?? []).map(describeSchema).join('; ')}`;
      break;
    default:
      expected = error.message ?? 'a valid value';
  }
  const subject = path === '' ? 'the arguments' : `'${path}'`;
  const message = hasReceived
    ? `${subject} must be ${expected}, got ${describeReceived(received)}`
    : `${subject} must be ${expected}`;
  return { path, pointer: error.instancePath, keyword: error.keyword, expected, received, message };
}

/**
 * A few words describing what a schema accepts: `a number`, `one of "c", "f"`, `a list of strings`.
 *
 * @example
 * ```ts
 * describeSchema({ type: 'array', items: { type: 'string' } }); // 'a list of strings'
 * ```
 */
export function describeSchema(schema: JsonSchema | boolean | undefined): string {
  if (schema === undefined || schema === true) return 'any value';
  if (schema === false) return 'nothing';
  if (schema.enum !== undefined) return `one of ${schema.enum.map((value) => JSON.stringify(value)).join(', ')}`;
  if (schema.const !== undefined) return `exactly ${JSON.stringify(schema.const)}`;
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.length === 0) {
    const options = schema.anyOf ?? schema.oneOf;
    if (options !== undefined) return options.map(describeSchema).join(' or ');
    if (schema.$ref !== undefined) return `a ${schema.$ref.split('/').pop() ?? 'value'}`;
    return 'any value';
  }
  return types
    .map((type) => {
      if (type === 'array' && typeof schema.items === 'object' && schema.items.type !== undefined) {
        const itemType = String(schema.items.type);
        return `a list of ${itemType === 'string' ? 'strings' : `${itemType}s`}`;
      }
      return withArticle(type === 'array' ? 'list' : type);
    })
    .join(' or ');
}

function withArticle(type: string): string {
  if (type === 'null') return 'null';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function describeReceived(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 37)}...` : value;
    return `string ${JSON.stringify(shown)}`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (typeof value === 'object') return 'an object';
  return typeof value;
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  let path = '';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (/^\d+$/.test(segment)) path += `[${segment}]`;
    else path += path === '' ? segment : `.${segment}`;
  }
  return path;
}
