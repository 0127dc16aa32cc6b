import { isPlainObject } from './json-schema.js';

/** How much of a value {@link summarizeValue} keeps. */
const MAX_DEPTH = 3;
const MAX_ENTRIES = 10;
const MAX_STRING_CHARS = 200;

/**
 * A small copy of a value for an error's `details`: JSON primitives as they are, strings cut at 200
 * characters, lists and objects kept 3 levels deep with their first 10 entries; what is cut is
 * replaced by a bracketed description (`[a list of 3000 items]`, `[an object with 2 keys]`), and so
 * is anything that is not JSON data. The copy stays small and shallow however large or deeply nested
 * the value is, so a result that carries it can always be serialised.
 *
 * @example
 * ```ts
 * summarizeValue({ city: 'Oslo', days: [1, 2, 3] }); // { city: 'Oslo', days: [1, 2, 3] }
 * summarizeValue([[[[1]]]]); // [[['[a list of 1 item]']]]
 * summarizeValue('x'.repeat(500)); // its first 200 characters, then '... [500 characters]'
 * ```
 */
export function summarizeValue(value: unknown, depth = 0): unknown {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : `[${String(value)}]`;
  if (typeof value === 'string') {
    return value.length <= MAX_STRING_CHARS
      ? value
      : `${value.slice(0, MAX_STRING_CHARS)}... [${value.length} characters]`;
  }
  if (Array.isArray(value)) {
    const size = `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
    if (depth >= MAX_DEPTH) return `[${size}]`;
    const kept = value.slice(0, MAX_ENTRIES).map((item) => summarizeValue(item, depth + 1));
    if (value.length > MAX_ENTRIES) kept.push(`[and ${more(value.length - MAX_ENTRIES, 'item')}]`);
    return kept;
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (depth >= MAX_DEPTH) return `[an object with ${keys.length} key${keys.length === 1 ? '' : 's'}]`;
    // Entries, not assignment: a key such as `__proto__` stays an ordinary key of the copy.
    const kept: Array<[string, unknown]> = keys
      .slice(0, MAX_ENTRIES)
      .map((key) => [key, readSummary(value, key, depth)]);
    if (keys.length > MAX_ENTRIES) kept.push(['...', `[and ${more(keys.length - MAX_ENTRIES, 'key')}]`]);
    return Object.fromEntries(kept);
  }
  if (value === undefined) return '[nothing]';
  return `[${typeof value === 'object' ? 'an object that is not plain data' : `a ${typeof value}`}]`;
}

function readSummary(object: Record<string, unknown>, key: string, depth: number): unknown {
  try {
    return summarizeValue(object[key], depth + 1);
  } catch {
    return '[a value that cannot be read]';
  }
}

function more(count: number, noun: string): string {
  return `${count} more ${noun}${count === 1 ? '' : 's'}`;
}
