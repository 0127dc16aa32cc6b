import { describeValue, TOOL_NAME_PATTERN } from '../core/define-tool.js';
import { checkJsonValue, describeJsonLimitBreach, INPUT_LIMITS } from '../core/input-limits.js';
import { StoreValidationError } from './store-validation-error.js';

/**
 * An `mcp_servers:` entry's name, as the configuration allows it: a letter, then up to 31 letters,
 * digits, `_` or `-`.
 *
 * @example
 * ```ts
 * MCP_SERVER_NAME_PATTERN.test('memory'); // true
 * ```
 */
export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;

/** Size limits the store enforces before writing. */
export const STORE_LIMITS = Object.freeze({
  /** Bytes of UTF-8 JSON of an attachment's or a tool's `config`. */
  configBytes: INPUT_LIMITS.configBytes,
  /** Bytes of UTF-8 JSON of a tool's parameters schema. */
  schemaBytes: 256 * 1024,
  /** Bytes of UTF-8 JSON of an approval's arguments. */
  argumentsBytes: 16 * 1024 * 1024,
  /** Characters of a description or when-to-use text. */
  textChars: 64 * 1024,
  /** Characters of a name, category or handler key. */
  nameChars: 200,
  /** Most calls `toolCalls.listRecent` returns. */
  recentCalls: 500,
  /** Bytes of UTF-8 of a workspace secret's value. */
  secretValueBytes: 8 * 1024,
  /** Tools a workspace's default tool set may list. */
  toolSetItems: 1000,
  /** Tags a tool may have. */
  tagItems: 64,
  /** Example argument objects per tool. */
  inputExamples: 10,
  /** Characters of one tag. */
  tagChars: 100,
  /** Bytes of UTF-8 JSON of an MCP task's stored result. */
  taskResultBytes: 1024 * 1024,
  /** Milliseconds an MCP task may be kept (7 days). */
  taskTtlMs: 7 * 24 * 60 * 60_000,
  /** Characters of an MCP task's status message (longer ones are cut). */
  taskMessageChars: 2000,
});

/**
 * Names of workspace secrets: like environment variable names, 1-128 characters.
 *
 * @example
 * ```ts
 * SECRET_NAME_PATTERN.test('COMPANY_API_TOKEN'); // true
 * ```
 */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Ids of workspaces, agents, tokens and approvals: 1-64 letters, digits, `_`, `.`, `-`, not starting with a sign. */
export const RESOURCE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Whether `value` is a well-formed id. Reads use it to answer "not found" for ids that cannot exist,
 * without a query.
 *
 * @example
 * ```ts
 * isWellFormedId('research', RESOURCE_ID_PATTERN); // true
 * isWellFormedId('../etc', RESOURCE_ID_PATTERN); // false
 * ```
 */
export function isWellFormedId(value: unknown, pattern: RegExp = RESOURCE_ID_PATTERN): value is string {
  return typeof value === 'string' && pattern.test(value);
}

/**
 * `value` as an id, or a {@link StoreValidationError} naming `field` and the expected shape.
 *
 * @example
 * ```ts
 * requireId('research', 'agentId'); // 'research'
 * requireId('has space', 'agentId'); // throws StoreValidationError
 * ```
 */
export function requireId(value: unknown, field: string, pattern: RegExp = RESOURCE_ID_PATTERN): string {
  if (isWellFormedId(value, pattern)) return value;
  const shape =
    pattern === TOOL_NAME_PATTERN
      ? '1-64 lowercase letters, digits and underscores, starting with a letter'
      : '1-64 letters, digits, underscores, dots and dashes, starting with a letter or digit';
  throw new StoreValidationError(field, `${field} ${describeValue(value)} is invalid: use ${shape}.`);
}

/**
 * `value` as a non-empty string of at most `maxChars` characters.
 *
 * @example
 * ```ts
 * requireText('Research', 'name', 200); // 'Research'
 * ```
 */
export function requireText(value: unknown, field: string, maxChars: number): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new StoreValidationError(field, `${field} must be a non-empty string, got ${describeValue(value)}.`);
  }
  if (value.length > maxChars) {
    throw new StoreValidationError(field, `${field} is ${value.length} characters long; the limit is ${maxChars}.`);
  }
  return value;
}

/**
 * Like {@link requireText}, but `undefined` and `null` give `null`.
 *
 * @example
 * ```ts
 * optionalText(undefined, 'description', 100); // null
 * ```
 */
export function optionalText(value: unknown, field: string, maxChars: number): string | null {
  return value === undefined || value === null ? null : requireText(value, field, maxChars);
}

/**
 * The JSON text of a plain object of at most `maxBytes` UTF-8 bytes (`null` for `undefined`/`null`),
 * or a {@link StoreValidationError}: arrays, strings, cycles, `BigInt`s and oversized values are refused.
 *
 * @example
 * ```ts
 * serializeJsonObject({ limit: 20 }, 'config', 65_536); // '{"limit":20}'
 * serializeJsonObject([1], 'config', 65_536); // throws StoreValidationError
 * ```
 */
export function serializeJsonObject(value: unknown, field: string, maxBytes: number): string | null {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) {
    throw new StoreValidationError(field, `${field} must be a JSON object, got ${describeValue(value)}.`);
  }
  let text: string | undefined;
  let failure: unknown;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    failure = error;
  }
  // Held to INPUT_LIMITS too (a config thousands of levels deep overflows the stack when it is read
  // back, after the write); a cycle is a TypeError of JSON.stringify, said as such.
  if (!(failure instanceof TypeError)) {
    const breach = checkJsonValue(value);
    if (breach !== undefined) throw new StoreValidationError(field, describeJsonLimitBreach(field, breach));
  }
  if (text === undefined) {
    throw new StoreValidationError(
      field,
      `${field} cannot be stored as JSON (${failure instanceof Error ? failure.message : String(failure)}).`,
      { cause: failure },
    );
  }
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    throw new StoreValidationError(field, `${field} is ${bytes} bytes of JSON; the limit is ${maxBytes} bytes.`);
  }
  return text;
}

/**
 * A limit argument: a whole number from 1 to `max`, `fallback` when absent.
 *
 * @example
 * ```ts
 * requireLimit(undefined, 50, 500); // 50
 * requireLimit(501, 50, 500); // throws StoreValidationError
 * ```
 */
export function requireLimit(value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new StoreValidationError(
      'limit',
      `limit must be a whole number from 1 to ${max}, got ${describeValue(value)}.`,
    );
  }
  return value;
}

/**
 * A tool's tags as the `tags` column holds them: the JSON text of an array of at most
 * {@link STORE_LIMITS}.tagItems non-blank strings of at most {@link STORE_LIMITS}.tagChars characters
 * without control characters, duplicates dropped (first kept); `undefined` and `null` give `'[]'`.
 *
 * @example
 * ```ts
 * serializeTags(['search', 'internal', 'search'], 'tags'); // '["search","internal"]'
 * serializeTags('search', 'tags'); // throws StoreValidationError
 * ```
 */
export function serializeTags(value: unknown, field: string): string {
  if (value === undefined || value === null) return '[]';
  if (!Array.isArray(value)) {
    throw new StoreValidationError(field, `${field} must be an array of strings, got ${describeValue(value)}.`);
  }
  if (value.length > STORE_LIMITS.tagItems) {
    throw new StoreValidationError(field, `${field} has ${value.length} tags; the limit is ${STORE_LIMITS.tagItems}.`);
  }
  const tags: string[] = [];
  for (const tag of value) {
    if (typeof tag !== 'string' || tag.trim() === '') {
      throw new StoreValidationError(field, `Each of ${field} must be a non-empty string, got ${describeValue(tag)}.`);
    }
    if (tag.length > STORE_LIMITS.tagChars) {
      throw new StoreValidationError(
        field,
        `A tag of ${field} is ${tag.length} characters long; the limit is ${STORE_LIMITS.tagChars}.`,
      );
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
    if (/[\u0000-\u001f\u007f]/.test(tag)) {
      throw new StoreValidationError(field, `The tag ${describeValue(tag)} of ${field} has a control character.`);
    }
    if (!tags.includes(tag)) tags.push(tag);
  }
  return JSON.stringify(tags);
}

/** True for `{...}` objects (not arrays, dates, class instances or `null`). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * A tool's example arguments as the `input_examples` column holds them: a JSON array of at most
 * {@link STORE_LIMITS}.inputExamples objects, at most {@link STORE_LIMITS}.configBytes as JSON; `null`
 * for none (absent, `null` or an empty list).
 *
 * @example
 * ```ts
 * serializeInputExamples([{ city: 'Paris' }], 'inputExamples'); // '[{"city":"Paris"}]'
 * serializeInputExamples('Paris', 'inputExamples'); // throws StoreValidationError
 * ```
 */
export function serializeInputExamples(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length > STORE_LIMITS.inputExamples) {
    throw new StoreValidationError(
      field,
      `${field} must be a list of at most ${STORE_LIMITS.inputExamples} argument objects, got ${Array.isArray(value) ? `${value.length} items` : describeValue(value)}.`,
    );
  }
  if (value.length === 0) return null;
  value.forEach((example, index) => {
    if (!isPlainObject(example))
      throw new StoreValidationError(field, `${field}[${index}] must be an object, got ${describeValue(example)}.`);
  });
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text) > STORE_LIMITS.configBytes)
    throw new StoreValidationError(field, `${field} must be at most ${STORE_LIMITS.configBytes} bytes as JSON.`);
  return text;
}
