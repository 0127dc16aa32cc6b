/**
 * The limits every input surface applies to JSON it is handed — a REST body, a JSON-RPC message on
 * `/mcp` or on `toolshed mcp`'s stdin, `toolshed call --args`, a configuration file, a line of an email
 * import — before any other work is done with it. One set, so that a document one door accepts is
 * not refused (or crashed on) by another.
 *
 * @example
 * ```ts
 * INPUT_LIMITS.depth; // 256: a body nested deeper is refused before it is parsed
 * ```
 */
export const INPUT_LIMITS = Object.freeze({
  /** Bytes of a REST body or of one JSON-RPC message (HTTP or one stdio line). */
  bodyBytes: 1_048_576,
  /** Levels of nested objects and lists in one document (the outermost object or list is the first). */
  depth: 256,
  /** Characters of one string, keys included. */
  stringChars: 524_288,
  /** Items of one list. */
  arrayItems: 100_000,
  /** Properties of one object. */
  objectKeys: 10_000,
  /** Bytes of UTF-8 JSON of an attachment's or a tool's `config`. */
  configBytes: 65_536,
  /** Bytes of a configuration file (`toolshed.yaml`) or a YAML tool definition. */
  configFileBytes: 1_000_000,
});

/**
 * The limits of {@link INPUT_LIMITS} that {@link checkJsonText} and {@link checkJsonValue} apply.
 *
 * @example
 * ```ts
 * const strict: JsonLimits = { ...INPUT_LIMITS, depth: 16 };
 * checkJsonText(text, strict);
 * ```
 */
export interface JsonLimits {
  depth: number;
  stringChars: number;
  arrayItems: number;
  objectKeys: number;
}

/**
 * Why a JSON document was refused: a limit it is over (`depth`, `stringChars`, `arrayItems`,
 * `objectKeys`, with `max`), a key that is never accepted (`refusedKey`: `__proto__`, or `prototype`
 * inside `constructor`), or a key an object has twice (`duplicateKey`). `path` locates it
 * (`arguments.items[3]`, `''` for the document itself), shortened past eight steps.
 *
 * @example
 * ```ts
 * const breach: JsonLimitBreach = { limit: 'duplicateKey', key: 'tool_id', path: '' };
 * describeJsonLimitBreach('The request body', breach); // "The request body has the key 'tool_id' twice; ..."
 * ```
 */
export type JsonLimitBreach =
  | { limit: 'depth' | 'stringChars' | 'arrayItems' | 'objectKeys'; max: number; path: string }
  | { limit: 'refusedKey' | 'duplicateKey'; key: string; path: string };

const SHOWN_STEPS = 8;
const SHOWN_KEY_CHARS = 40;

/**
 * Duplicate keys are refused rather than resolved (JSON.parse keeps the last): two readers of the
 * same text could disagree on which value counts, which is how a value is smuggled past a check.
 * `__proto__` and `constructor.prototype` are refused: copied into an object they change its
 * prototype.
 */
const REFUSED_KEY = '__proto__';

interface Frame {
  readonly array: boolean;
  count: number;
  /** The keys seen so far in an object: a list while it is short, then a set. */
  keys: string[] | Set<string> | undefined;
  /** The key under which this container sits, or the index in its list. */
  readonly step: string | number | undefined;
  /** An object that is the value of a `constructor` key. */
  readonly constructorValue: boolean;
  /** In an object: the next string is a key. */
  expectKey: boolean;
  /** In an object: the last key read, the step of the value that follows. */
  lastKey: string | undefined;
}

/**
 * Check JSON text against `limits` before it is parsed, in one pass without recursion: how deep it
 * nests, how long its strings, lists and objects are, and its keys (`__proto__`,
 * `constructor.prototype` and duplicates refused). Answers the first breach, or `undefined` when
 * there is none — the text may still be malformed JSON, for `JSON.parse` to say.
 *
 * @example
 * ```ts
 * checkJsonText('{"a": [[1]]}'); // undefined
 * checkJsonText('{"a": 1, "a": 2}'); // { limit: 'duplicateKey', key: 'a', path: '' }
 * checkJsonText('[[[1]]]', { ...INPUT_LIMITS, depth: 2 }); // { limit: 'depth', max: 2, path: '[0]' }
 * ```
 */
export function checkJsonText(text: string, limits: JsonLimits = INPUT_LIMITS): JsonLimitBreach | undefined {
  const stack: Frame[] = [];
  const length = text.length;
  let index = 0;
  while (index < length) {
    const char = text.charCodeAt(index);
    const top = stack[stack.length - 1];
    if (char === 0x22 /* " */) {
      const end = endOfString(text, index);
      // Decoded only when needed: a key, or a string that may be over the limit.
      let decoded: string | undefined;
      if (end - index - 2 > limits.stringChars) {
        decoded = decodeString(text, index, end);
        if (decoded.length > limits.stringChars) {
          const leaf = top === undefined || top.expectKey ? undefined : top.array ? top.count : top.lastKey;
          return { limit: 'stringChars', max: limits.stringChars, path: pathOf(stack, leaf) };
        }
      }
      if (top !== undefined && !top.array && top.expectKey) {
        const key = decoded ?? decodeString(text, index, end);
        if (key === REFUSED_KEY || (key === 'prototype' && top.constructorValue)) {
          return {
            limit: 'refusedKey',
            key: top.constructorValue ? 'constructor.prototype' : key,
            path: pathOf(stack),
          };
        }
        if (!addKey(top, key)) return { limit: 'duplicateKey', key: shownKey(key), path: pathOf(stack) };
        top.count += 1;
        if (top.count > limits.objectKeys) return { limit: 'objectKeys', max: limits.objectKeys, path: pathOf(stack) };
        top.lastKey = key;
        top.expectKey = false;
      } else if (top?.array === true) {
        top.count += 1;
        if (top.count > limits.arrayItems) return { limit: 'arrayItems', max: limits.arrayItems, path: pathOf(stack) };
      }
      index = end;
      continue;
    }
    if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      if (top?.array === true) {
        top.count += 1;
        if (top.count > limits.arrayItems) return { limit: 'arrayItems', max: limits.arrayItems, path: pathOf(stack) };
      }
      const step = top === undefined ? undefined : top.array ? top.count - 1 : top.lastKey;
      const array = char === 0x5b;
      stack.push({
        array,
        count: 0,
        keys: array ? undefined : [],
        step,
        constructorValue: !array && top !== undefined && !top.array && top.lastKey === 'constructor',
        expectKey: !array,
        lastKey: undefined,
      });
      if (stack.length > limits.depth) return { limit: 'depth', max: limits.depth, path: pathOf(stack) };
      index += 1;
      continue;
    }
    if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      stack.pop();
      index += 1;
      continue;
    }
    if (char === 0x2c /* , */) {
      if (top !== undefined && !top.array) top.expectKey = true;
      index += 1;
      continue;
    }
    if (isWhitespaceOrColon(char)) {
      index += 1;
      continue;
    }
    // A number or a literal: one more item of a list.
    if (top?.array === true) {
      top.count += 1;
      if (top.count > limits.arrayItems) return { limit: 'arrayItems', max: limits.arrayItems, path: pathOf(stack) };
    }
    index += 1;
    while (index < length && !isDelimiter(text.charCodeAt(index))) index += 1;
  }
  return undefined;
}

/**
 * Check a value that is already parsed (a YAML document, an object handed in by code) against the
 * same limits as {@link checkJsonText}, without recursion; lists and plain objects are walked, other
 * values are leaves. Duplicate keys cannot exist in a parsed object, so they are the parser's to refuse.
 *
 * @example
 * ```ts
 * checkJsonValue({ tools: [{ name: 'a' }] }); // undefined
 * checkJsonValue(JSON.parse('{"__proto__": 1}')); // { limit: 'refusedKey', key: '__proto__', path: '' }
 * ```
 */
export function checkJsonValue(value: unknown, limits: JsonLimits = INPUT_LIMITS): JsonLimitBreach | undefined {
  const pending: Array<{ value: unknown; depth: number; path: readonly (string | number)[] }> = [
    { value, depth: 1, path: [] },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: node, depth, path } = next;
    if (typeof node === 'string') {
      if (node.length > limits.stringChars)
        return { limit: 'stringChars', max: limits.stringChars, path: joinPath(path) };
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limits.depth) return { limit: 'depth', max: limits.depth, path: joinPath(path) };
    if (Array.isArray(node)) {
      if (node.length > limits.arrayItems) return { limit: 'arrayItems', max: limits.arrayItems, path: joinPath(path) };
      node.forEach((item, position) => {
        pending.push({ value: item, depth: depth + 1, path: [...path.slice(0, SHOWN_STEPS), position] });
      });
      continue;
    }
    const keys = Object.keys(node);
    if (keys.length > limits.objectKeys) return { limit: 'objectKeys', max: limits.objectKeys, path: joinPath(path) };
    const isConstructor = path[path.length - 1] === 'constructor';
    for (const key of keys) {
      if (key === REFUSED_KEY || (key === 'prototype' && isConstructor)) {
        return { limit: 'refusedKey', key: isConstructor ? 'constructor.prototype' : key, path: joinPath(path) };
      }
      if (key.length > limits.stringChars)
        return { limit: 'stringChars', max: limits.stringChars, path: joinPath(path) };
      pending.push({
        value: (node as Record<string, unknown>)[key],
        depth: depth + 1,
        path: [...path.slice(0, SHOWN_STEPS), key],
      });
    }
  }
  return undefined;
}

/**
 * The sentence for a breach: `subject` is what was read (`'The request body'`, `'--args'`), `where`
 * the location phrase is built from its path.
 *
 * @example
 * ```ts
 * describeJsonLimitBreach('The request body', { limit: 'depth', max: 256, path: 'arguments.a' });
 * // "The request body is nested more than 256 levels deep at 'arguments.a' (limit: depth 256)."
 * ```
 */
export function describeJsonLimitBreach(subject: string, breach: JsonLimitBreach): string {
  const at = breach.path === '' ? '' : ` at '${breach.path}'`;
  switch (breach.limit) {
    case 'depth':
      return `${subject} is nested more than ${breach.max} levels deep${at} (limit: depth ${breach.max}).`;
    case 'stringChars':
      return `${subject} has a string longer than ${breach.max} characters${at} (limit: stringChars ${breach.max}).`;
    case 'arrayItems':
      return `${subject} has a list of more than ${breach.max} items${at} (limit: arrayItems ${breach.max}).`;
    case 'objectKeys':
      return `${subject} has an object with more than ${breach.max} properties${at} (limit: objectKeys ${breach.max}).`;
    case 'refusedKey':
      return `${subject} has the key '${breach.key}'${at}, which is refused: it could change the prototype of an object it is copied into.`;
    case 'duplicateKey':
      return `${subject} has the key '${breach.key}' twice${at}; send each key once.`;
    default: {
      const unreachable: never = breach;
      return unreachable;
    }
  }
}

function endOfString(text: string, start: number): number {
  // The next quote is found by the engine's own search (strings are most of a document's length);
  // it closes the string unless an odd run of backslashes stands right before it.
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && text.charCodeAt(quote - backslashes - 1) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The string literal from `start` (its opening quote) to `end` (after its closing quote), decoded. */
function decodeString(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end - 1);
  if (!inner.includes('\\')) return inner;
  try {
    const value: unknown = JSON.parse(text.slice(start, end));
    return typeof value === 'string' ? value : inner;
  } catch {
    // Malformed escapes: JSON.parse of the whole text will say so.
    return inner;
  }
}

const SHORT_KEY_LIST = 16;

/** Record `key` in an object's frame; false when the object has it already. */
function addKey(frame: Frame, key: string): boolean {
  const keys = frame.keys;
  if (keys === undefined) return true;
  if (Array.isArray(keys)) {
    if (keys.includes(key)) return false;
    keys.push(key);
    if (keys.length > SHORT_KEY_LIST) frame.keys = new Set(keys);
    return true;
  }
  if (keys.has(key)) return false;
  keys.add(key);
  return true;
}

function isWhitespaceOrColon(char: number): boolean {
  return char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09 || char === 0x3a;
}

function isDelimiter(char: number): boolean {
  return (
    isWhitespaceOrColon(char) ||
    char === 0x2c ||
    char === 0x7b ||
    char === 0x7d ||
    char === 0x5b ||
    char === 0x5d ||
    char === 0x22
  );
}

function shownKey(key: string): string {
  return key.length > SHOWN_KEY_CHARS ? `${key.slice(0, SHOWN_KEY_CHARS - 1)}…` : key;
}

/** The path of the innermost container, then `leaf` when given; steps past {@link SHOWN_STEPS} are elided. */
function pathOf(stack: readonly Frame[], leaf?: string | number): string {
  const steps: (string | number)[] = [];
  for (let index = 1; index < stack.length && steps.length <= SHOWN_STEPS; index += 1) {
    const step = stack[index]?.step;
    if (step !== undefined) steps.push(step);
  }
  if (leaf !== undefined) steps.push(leaf);
  return joinPath(steps);
}

function joinPath(steps: readonly (string | number)[]): string {
  let path = '';
  for (const [position, step] of steps.entries()) {
    if (position === SHOWN_STEPS) return `${path}…`;
    if (typeof step === 'number') path += `[${step}]`;
    else path += path === '' ? shownKey(step) : `.${shownKey(step)}`;
  }
  return path;
}
