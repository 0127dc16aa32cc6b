import type { ErrorObject } from 'ajv';
import { closestNames, likelyMisspelling } from '../core/did-you-mean.js';
import { escapePointerSegment, pointerSegments } from '../core/json-pointer.js';
import { isPlainObject, type JsonSchema } from '../core/json-schema.js';
import type { ValidationIssue } from '../core/validation-issue.js';

/**
 * For a string outside an `enum`, the allowed string it is most likely a misspelling of, as `; did you
 * mean "x"?` (`utf-16` for `utf-16le`, `Celsius` for `celsius`); empty when none is close (see
 * {@link likelyMisspelling}).
 */
function closeEnumValue(error: ErrorObject): string {
  if (error.keyword !== 'enum' || typeof error.data !== 'string') return '';
  const allowed = ((error.params as { allowedValues?: unknown[] }).allowedValues ?? []).filter(
    (value): value is string => typeof value === 'string',
  );
  const close = likelyMisspelling(error.data, allowed);
  return close === undefined ? '' : `; did you mean ${JSON.stringify(close)}?`;
}

/** How an unexpected argument's `expected` starts, before the names the object accepts. */
const ACCEPTED_ARGUMENTS = 'one of the accepted arguments: ';

/**
 * One Ajv error as a {@link ValidationIssue}: the path in `a.b[2]` form, what was expected in words,
 * the value received, and one phrase a model or a config author can act on. Needs Ajv's `verbose`
 * errors (`data`, `parentSchema`), as every validator toolshed builds has.
 */
export function toIssue(error: ErrorObject): ValidationIssue {
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
        pointer: `${error.instancePath}/${escapePointerSegment(missing)}`,
        keyword: 'required',
        expected,
        message: `missing required argument '${path}' (${expected})`,
      };
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const accepted = Object.keys((error.parentSchema as JsonSchema | undefined)?.properties ?? {});
      path = path === '' ? extra : `${path}.${extra}`;
      expected = accepted.length > 0 ? `${ACCEPTED_ARGUMENTS}${accepted.join(', ')}` : 'no arguments';
      return {
        path,
        pointer: `${error.instancePath}/${escapePointerSegment(extra)}`,
        keyword: 'additionalProperties',
        expected,
        message: `unexpected argument '${path}'; accepted arguments are ${accepted.length > 0 ? accepted.join(', ') : 'none'}`,
      };
    }
    case 'type':
      expected = withArticle(String(params.type).replaceAll(',', ' or '));
      // NaN and ±Infinity are numbers to JavaScript, but no number an argument can mean.
      if (typeof error.data === 'number' && !Number.isFinite(error.data)) expected = `${expected} (a finite one)`;
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
        pointer: `${error.instancePath}/${escapePointerSegment(tag)}`,
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
    ? `${subject} must be ${expected}, got ${describeReceived(received)}${closeEnumValue(error)}`
    : `${subject} must be ${expected}`;
  return { path, pointer: error.instancePath, keyword: error.keyword, expected, received, message };
}

/**
 * An issue's message in the words of a request body or a definition instead of a tool call's: a
 * missing or unexpected property is a field, not an argument, and an unexpected one is matched against
 * the fields allowed beside it ("did you mean"). Given the `value` that was validated, a missing field
 * is matched against the names sent beside it too, since a misspelt field is reported as the missing
 * one. Other messages are the same in both.
 *
 * @example
 * ```ts
 * fieldMessage(issue); // "unknown field 'descripton' (did you mean 'description'?); allowed fields: id, description"
 * fieldMessage(issue, { id: 'x', descripton: 'y' }); // "missing required field 'description' (a string); 'descripton' was sent: did you mean 'description'?"
 * ```
 */
export function fieldMessage(issue: ValidationIssue, value?: unknown): string {
  if (issue.keyword === 'required') {
    const missing = `missing required field '${issue.path}' (${issue.expected})`;
    const segments = pointerSegments(issue.pointer);
    const name = segments.pop() ?? '';
    let parent = value;
    for (const segment of segments) parent = isPlainObject(parent) ? parent[segment] : undefined;
    const sent = isPlainObject(parent) ? Object.keys(parent) : [];
    const close = closestNames(name, sent, 1)[0];
    return close === undefined ? missing : `${missing}; '${close}' was sent: did you mean '${name}'?`;
  }
  if (issue.keyword !== 'additionalProperties') return issue.message;
  const allowed = issue.expected.startsWith(ACCEPTED_ARGUMENTS)
    ? issue.expected.slice(ACCEPTED_ARGUMENTS.length).split(', ')
    : [];
  const name = issue.path.slice(issue.path.lastIndexOf('.') + 1);
  const parent = issue.path.slice(0, Math.max(0, issue.path.lastIndexOf('.')));
  const close = closestNames(name, allowed, 1)[0];
  const didYouMean = close === undefined ? '' : ` (did you mean '${parent === '' ? close : `${parent}.${close}`}'?)`;
  const where = parent === '' ? '' : ` of '${parent}'`;
  return `unknown field '${issue.path}'${didYouMean}; allowed fields${where}: ${allowed.length > 0 ? allowed.join(', ') : 'none'}`;
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
    // A branch that only asks for some keys (`{required: [secret]}`, as a oneOf of ways to say one thing).
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (required.length > 0) return `an object with ${required.map((name) => `'${name}'`).join(' and ')}`;
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

function pointerToPath(pointer: string): string {
  let path = '';
  for (const segment of pointerSegments(pointer)) {
    if (/^\d+$/.test(segment)) path += `[${segment}]`;
    else path += path === '' ? segment : `.${segment}`;
  }
  return path;
}
