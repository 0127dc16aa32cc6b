import { describeValue } from '../core/define-tool.js';
import { isPlainObject } from '../core/json-schema.js';
import { validationError } from './api-error.js';

/**
 * The request body as a plain object whose keys are all in `allowed`; anything else is a 400
 * naming the field (`body` for a body that is not an object).
 *
 * @example
 * ```ts
 * const body = requireObjectBody(request.body, ['tool_id', 'config']);
 * ```
 */
export function requireObjectBody(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(body)) {
    throw validationError('body', `The request body must be a JSON object, got ${describeValue(body)}.`);
  }
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) {
      throw validationError(key, `Unknown field '${key}'; allowed fields: ${allowed.join(', ')}.`);
    }
  }
  return body;
}

/** A required non-empty string field of at most `maxLength` characters. */
export function requireString(body: Record<string, unknown>, field: string, maxLength = 200): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '' || value.length > maxLength) {
    throw validationError(
      field,
      value === undefined
        ? `'${field}' is required.`
        : `'${field}' must be a non-empty string of at most ${maxLength} characters, got ${describeValue(value)}.`,
    );
  }
  return value;
}

/** An optional string field (absent or `null` is `undefined`). */
export function optionalString(body: Record<string, unknown>, field: string, maxLength = 10_000): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > maxLength) {
    throw validationError(
      field,
      `'${field}' must be a string of at most ${maxLength} characters, got ${describeValue(value)}.`,
    );
  }
  return value;
}

/** An optional JSON object field of at most `maxBytes` as JSON (absent or `null` is `undefined`). */
export function optionalObject(
  body: Record<string, unknown>,
  field: string,
  maxBytes: number,
): Record<string, unknown> | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    throw validationError(field, `'${field}' must be a JSON object, got ${describeValue(value)}.`);
  }
  if (Buffer.byteLength(JSON.stringify(value)) > maxBytes) {
    throw validationError(field, `'${field}' is larger than ${maxBytes} bytes as JSON; send a smaller object.`);
  }
  return value;
}
