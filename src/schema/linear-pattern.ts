import traverse from 'json-schema-traverse';
import { RE2JS } from 're2js';

/** What a schema's `pattern` is matched with: all validation asks of it is `test`. */
export interface PatternMatcher {
  test(text: string): boolean;
}

/**
 * The matcher of a JSON Schema `pattern` (or `patternProperties` key), in the form Ajv's
 * `code.regExp` option takes. ECMAScript decides what a valid pattern is (`new RegExp(pattern, flags)`
 * throws its `SyntaxError` for one that is not); matching is RE2's (the `re2js` port), which takes
 * time linear in the text whatever the pattern, so `^(a+)+$` against `aaaa…!` answers at once instead
 * of blocking the process for seconds. `.`, `\s` and `\S` are rewritten to ECMAScript's meaning first
 * (RE2's `.` also matches `\r`, its `\s` is ASCII only). A pattern RE2 cannot run — a lookaround, a
 * backreference, `\S` inside a class — is matched by `RegExp` as before; {@link nonLinearPatterns}
 * finds those, for definitions whose author is not trusted with the process's time.
 *
 * @example
 * ```ts
 * linearRegExp('^(a+)+$', 'u').test(`${'a'.repeat(40)}!`); // false, in microseconds
 * linearRegExp('^(?=.*\\d).{8,}$', 'u').test('abcdefg1'); // true: a lookahead, matched by RegExp
 * ```
 */
export const linearRegExp = Object.assign(
  (pattern: string, flags: string): PatternMatcher => {
    const ecmascript = new RegExp(pattern, flags);
    const re2 = flags === 'u' || flags === '' ? re2Of(pattern) : undefined;
    if (re2 === undefined) return ecmascript;
    // Ajv keys the matchers of one validator by `toString()`: the pattern's own text, as RegExp's.
    const shown = ecmascript.toString();
    const matcher: PatternMatcher & { toString(): string } = {
      test: (text: string) => re2.test(text),
      toString: () => shown,
    };
    return matcher;
  },
  // Only read when Ajv writes standalone code, which this engine is never used for.
  { code: 'linearRegExp' },
);

/** A `pattern` of a schema that only `RegExp` can run, at its JSON Pointer in the schema. */
export interface NonLinearPattern {
  /** The pointer of the keyword: `/properties/code/pattern`, or `/patternProperties` for a key. */
  pointer: string;
  pattern: string;
}

/**
 * The `pattern`s and `patternProperties` keys of `schema` that RE2 cannot run (lookarounds,
 * backreferences), each of which a crafted text can make take exponential time; empty when every one
 * is matched in linear time. Patterns that are not valid ECMAScript are left to the schema's compiler,
 * which refuses them.
 *
 * @example
 * ```ts
 * nonLinearPatterns({ type: 'object', properties: { code: { type: 'string', pattern: '^(\\w)\\1$' } } });
 * // [{ pointer: '/properties/code/pattern', pattern: '^(\\w)\\1$' }]
 * ```
 */
export function nonLinearPatterns(schema: unknown): NonLinearPattern[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const found: NonLinearPattern[] = [];
  const check = (pattern: unknown, pointer: string) => {
    if (typeof pattern !== 'string' || re2Of(pattern) !== undefined) return;
    try {
      new RegExp(pattern, 'u');
    } catch {
      return;
    }
    found.push({ pointer, pattern });
  };
  traverse(schema, {
    cb: (subschema: Record<string, unknown>, pointer: string) => {
      check(subschema.pattern, `${pointer}/pattern`);
      const keyed = subschema.patternProperties;
      if (typeof keyed === 'object' && keyed !== null) {
        for (const key of Object.keys(keyed)) check(key, `${pointer}/patternProperties`);
      }
    },
  });
  return found;
}

/** Compiled RE2 programs by pattern (`null`: RE2 cannot run it), shared by every schema. */
const programs = new Map<string, RE2JS | null>();

/** Patterns kept compiled at most; past it the map starts over. */
const MAX_PROGRAMS = 10_000;

function re2Of(pattern: string): RE2JS | undefined {
  let program = programs.get(pattern);
  if (program === undefined) {
    const source = asRe2Source(pattern);
    try {
      program = source === undefined ? null : RE2JS.compile(RE2JS.translateRegExp(source));
    } catch {
      program = null;
    }
    if (programs.size >= MAX_PROGRAMS) programs.clear();
    programs.set(pattern, program);
  }
  return program ?? undefined;
}

/** ECMAScript's whitespace (`\s` under the `u` flag), as members of a character class. */
const ECMASCRIPT_SPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/**
 * `pattern` with `.`, `\s` and `\S` written out as ECMAScript means them, for RE2; `undefined` for a
 * pattern that would mean something else there: a named backreference (`\k<name>`, which RE2's
 * translation would take for the letter k), `\S` inside a class (RE2 has no class to subtract), an
 * empty class (`[]`, `[^]`) or `[:` inside a class (a POSIX class to RE2).
 */
function asRe2Source(pattern: string): string | undefined {
  let out = '';
  let inClass = false;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index] as string;
    if (char === '\\') {
      const next = pattern[index + 1] ?? '';
      index++;
      if (next === 'k') return undefined;
      if (next === 's') out += inClass ? ECMASCRIPT_SPACE : `[${ECMASCRIPT_SPACE}]`;
      else if (next === 'S') {
        if (inClass) return undefined;
        out += `[^${ECMASCRIPT_SPACE}]`;
      } else out += `\\${next}`;
    } else if (inClass) {
      // RE2 reads `[:alpha:]` inside a class as a POSIX class; ECMAScript as the characters.
      if (char === '[' && pattern[index + 1] === ':') return undefined;
      if (char === ']') inClass = false;
      out += char;
    } else if (char === '[') {
      inClass = true;
      out += char;
      if (pattern[index + 1] === '^') out += pattern[++index];
      // ECMAScript's empty class `[]` (and `[^]`, any character); RE2 reads `[]a]` as a class with `]`.
      if (pattern[index + 1] === ']') return undefined;
    } else if (char === '.') {
      out += '[^\\n\\r\\u2028\\u2029]';
    } else out += char;
  }
  return out;
}
