import { jsonLimitFailure, notJsonFailure, notObjectFailure, tooDeepFailure } from './errors/failures.js';
import { checkJsonText, INPUT_LIMITS, type JsonLimits } from './input-limits.js';
import { locateJsonError } from './json-error.js';
import { isPlainObject } from './json-schema.js';
import type { ToolFailure } from './tool-result.js';

/**
 * How deep arguments may nest (the arguments object itself is the first level); deeper ones are
 * `INVALID_ARGUMENTS` before validation. Deeper data is no tool's input, and everything after this
 * step that walks it recursively — validation, the canonical copy of an approval, a hook, serialising
 * a result that quotes it — would overflow the stack.
 *
 * @example
 * ```ts
 * await registry.call('echo', { a: { b: [1] } }); // 3 levels: runs
 * ```
 */
export const MAX_ARGUMENT_DEPTH = 200;

/** The limits JSON text arguments are held to; their depth is {@link MAX_ARGUMENT_DEPTH}'s, checked once parsed. */
const ARGUMENT_TEXT_LIMITS: JsonLimits = { ...INPUT_LIMITS, depth: Number.POSITIVE_INFINITY };

/**
 * Parse a model's arguments: an object as is; JSON text parsed, once it is within the limits of
 * `INPUT_LIMITS` with no duplicate or refused (`__proto__`) key; `''`, `null` and `undefined` as `{}`
 * (many models send an empty string for a tool without arguments). `owned` says the object was made
 * here, so validation may write defaults into it without copying.
 *
 * @example
 * ```ts
 * parseArguments('add', '{"a": 1}'); // { args: { a: 1 }, owned: true }
 * parseArguments('add', '[1]');      // { failure: ... "Arguments for 'add' must be a JSON object, got a list of 1 item." }
 * ```
 */
export function parseArguments(
  toolName: string,
  raw: unknown,
): { args: Record<string, unknown>; owned: boolean } | { failure: ToolFailure } {
  if (raw === undefined || raw === null || raw === '') return { args: {}, owned: true };
  let value = raw;
  let owned = false;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return { args: {}, owned: true };
    // The limits and key rules of every other surface: JSON.parse would keep the last of two keys.
    const breach = checkJsonText(raw, ARGUMENT_TEXT_LIMITS);
    if (breach !== undefined) return { failure: jsonLimitFailure(toolName, breach) };
    try {
      value = JSON.parse(raw);
      owned = true;
    } catch {
      return { failure: notJsonFailure(toolName, locateJsonError(raw)) };
    }
  }
  if (!isPlainObject(value)) return { failure: notObjectFailure(toolName, value) };
  return { args: value, owned };
}

/**
 * The `INVALID_ARGUMENTS` failure when `args` nest deeper than {@link MAX_ARGUMENT_DEPTH}, else
 * undefined. Arguments without nested objects or lists (most calls) are checked without allocating.
 *
 * @example
 * ```ts
 * checkArgumentDepth('echo', { a: 1 }); // undefined: one level
 * ```
 */
export function checkArgumentDepth(toolName: string, args: Record<string, unknown>): ToolFailure | undefined {
  for (const key in args) {
    const value = args[key];
    if (typeof value === 'object' && value !== null) {
      return nestedDeeperThan(args, MAX_ARGUMENT_DEPTH) ? tooDeepFailure(toolName, MAX_ARGUMENT_DEPTH) : undefined;
    }
  }
  return undefined;
}

/** Whether lists and plain objects in `value` nest more than `limit` levels, checked without recursion. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    const children = Array.isArray(node) ? node : isPlainObject(node) ? Object.values(node) : undefined;
    if (children === undefined) continue;
    if (depth > limit) return true;
    for (const child of children) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * Whether `value`'s prototype is `Object.prototype` or null: arguments passed as they are.
 *
 * @example
 * ```ts
 * isPlainPrototype({}); // true
 * isPlainPrototype(new Map()); // false
 * ```
 */
export function isPlainPrototype(value: object): boolean {
  // Read through the `__proto__` accessor first: for argument shapes the call site has seen, the
  // optimiser folds it to a constant, where Object.getPrototypeOf is a call into the runtime. An own
  // `__proto__` key (JSON.parse makes those) or a null prototype falls through to the exact check.
  // biome-ignore lint/suspicious/noProto: a read only, backed by the exact check below.
  if ((value as { __proto__?: unknown }).__proto__ === Object.prototype) return true;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * A copy of a caller's arguments that validation may write defaults into: `'shallow'` for defaults of
 * top-level properties, `'deep'` for nested ones.
 *
 * @example
 * ```ts
 * const args = { a: 1 };
 * copyArguments(args, 'shallow') !== args; // true: defaults go into the copy
 * ```
 */
export function copyArguments(args: Record<string, unknown>, depth: 'shallow' | 'deep'): Record<string, unknown> {
  if (depth === 'shallow') return { ...args };
  try {
    return structuredClone(args);
  } catch {
    return { ...args };
  }
}
