import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import type { JsonSchema } from '../core/json-schema.js';
import type { CompiledValidator, ValidationIssue } from '../core/validation-issue.js';
import { linearRegExp } from './linear-pattern.js';
import { toIssue } from './validation-errors.js';

// ajv-formats is CommonJS: its plugin function is the namespace's `default`.
const addFormats = (ajvFormats as unknown as { default: (ajv: Ajv2020) => unknown }).default;

export { type NonLinearPattern, nonLinearPatterns } from './linear-pattern.js';
export { schemaIssueAt, schemaIssues, schemaProblems } from './meta-schema.js';
export { describeSchema } from './validation-errors.js';
export type { CompiledValidator, ValidationIssue };

const ajv = new Ajv2020({
  strict: false,
  allErrors: true,
  verbose: true,
  useDefaults: true,
  coerceTypes: false,
  validateFormats: true,
  discriminator: true,
  // NaN and ±Infinity (JSON's `1e309` parses to Infinity) are no number an argument can mean.
  strictNumbers: true,
  // `pattern` in linear time: a tool's schema is no way to block the process (see linear-pattern.ts).
  code: { regExp: linearRegExp },
});
addFormats(ajv);

const cache = new Map<string, CompiledValidator>();
const bySchema = new WeakMap<object, CompiledValidator>();

/**
 * Validators kept by JSON text at most. Past it the cache starts over, Ajv's own with it: a server
 * whose tenants keep defining new schemas would otherwise keep every one it ever compiled. A validator
 * already handed out keeps working.
 */
const MAX_CACHED_VALIDATORS = 10_000;

/**
 * How many validators {@link compileValidator} keeps by JSON text now (at most 10 000).
 *
 * @example
 * ```ts
 * cachedValidatorCount(); // 42
 * ```
 */
export function cachedValidatorCount(): number {
  return cache.size;
}

/**
 * Compile `schema` (draft 2020-12) into a {@link CompiledValidator}, once: validators are cached by
 * the schema object and by its JSON text, so 100 000 tools sharing a schema shape compile it once.
 *
 * Validation applies the schema's property defaults to the value; dispatch first removes those that
 * would hurt a call (`withoutHarmfulDefaults`).
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
    if (cache.size >= MAX_CACHED_VALIDATORS) {
      cache.clear();
      ajv.removeSchema();
    }
    const validate: ValidateFunction = ajv.compile(stripMetaKeys(schema));
    validator = (value) => (validate(value) ? undefined : (validate.errors ?? []).map(toIssue));
    cache.set(key, validator);
  }
  bySchema.set(schema, validator);
  return validator;
}

function stripMetaKeys(schema: unknown): object {
  if (typeof schema !== 'object' || schema === null) return schema as object;
  const { $schema: _schema, $id: _id, ...rest } = schema as Record<string, unknown>;
  return rest;
}
