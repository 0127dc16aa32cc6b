import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileValidator } from './compile-validator.js';
import { linearRegExp, nonLinearPatterns } from './linear-pattern.js';

/** Patterns of the kinds real tool schemas carry, and the corners where RE2 and ECMAScript differ. */
const PATTERNS = [
  '^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$',
  '^\\d{4}-\\d{2}-\\d{2}$',
  '^[A-Z]{3}$',
  '^https?://\\S+$',
  '^\\s*$',
  '\\S',
  '^[\\s,]+$',
  '^.$',
  '^.+$',
  'a.b',
  '^[^/]+\\/[^/]+$',
  '^(?<owner>[\\w.-]+)/(?<repo>[\\w.-]+)$',
  '^\\p{Lu}\\p{Ll}*$',
  '^[\\u0041-\\u005A]+$',
  '^\\u{1F600}',
  '^(a+)+$',
  '(x|xy)*z',
  '^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$',
  '^\\w+$',
  '\\bword\\b',
  '^$',
  '^[^]$',
  '^[[:a]+$',
];

/** Texts built from the characters those patterns tell apart. */
const TEXT = fc.string({
  unit: fc.constantFrom(
    'a',
    'b',
    'x',
    'y',
    'z',
    'A',
    'é',
    '1',
    '-',
    '.',
    '/',
    '@',
    ':',
    ' ',
    '\t',
    '\n',
    '\r',
    '\u00a0',
    '\u2028',
    '\ufeff',
    '😀',
    '[',
    ']',
  ),
  maxLength: 12,
});

describe('linearRegExp', () => {
  it('answers as RegExp does for every pattern and text', () => {
    for (const pattern of PATTERNS) {
      const ecmascript = new RegExp(pattern, 'u');
      const linear = linearRegExp(pattern, 'u');
      fc.assert(
        fc.property(TEXT, (text) => linear.test(text) === ecmascript.test(text)),
        { numRuns: 300 },
      );
      for (const text of ['word', 'a word here', 'owner/repo', 'Abc', '2026-11-28', 'a@b.co', '😀', '\r', '']) {
        expect(linear.test(text), `/${pattern}/u on ${JSON.stringify(text)}`).toBe(ecmascript.test(text));
      }
    }
  });

  it('refuses a pattern ECMAScript refuses, with its SyntaxError', () => {
    expect(() => linearRegExp('(', 'u')).toThrow(SyntaxError);
    expect(() => linearRegExp('\\-', 'u')).toThrow(/Invalid escape/);
  });

  it('runs a schema pattern that backtracks catastrophically in RegExp to its answer', () => {
    // RegExp would take longer than the age of the universe on this text; RE2 reads it once.
    const validate = compileValidator({ type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } } });
    expect(validate({ a: `${'a'.repeat(64)}!` })).toEqual([
      expect.objectContaining({
        keyword: 'pattern',
        message: '\'a\' must be a string matching /^(a+)+$/, got string "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."',
      }),
    ]);
    expect(validate({ a: 'a'.repeat(64) })).toBeUndefined();
    const keyed = compileValidator({ type: 'object', patternProperties: { '^(b+)+$': { type: 'number' } } });
    expect(keyed({ [`${'b'.repeat(64)}!`]: 'x' })).toBeUndefined();
    expect(keyed({ bbb: 'x' })?.[0]?.keyword).toBe('type');
  });

  it('keeps lookarounds and backreferences working, matched by RegExp', () => {
    const validate = compileValidator({
      type: 'object',
      properties: {
        password: { type: 'string', pattern: '^(?=.*\\d).{8,}$' },
        pair: { type: 'string', pattern: '^(\\w)\\1$' },
      },
    });
    expect(validate({ password: 'abcdefg1', pair: 'aa' })).toBeUndefined();
    expect(validate({ password: 'abcdefgh', pair: 'ab' })?.map((issue) => issue.path)).toEqual(['password', 'pair']);
  });
});

describe('nonLinearPatterns', () => {
  it('names each pattern only RegExp can run, by JSON Pointer, wherever the schema keeps it', () => {
    expect(
      nonLinearPatterns({
        type: 'object',
        properties: {
          code: { type: 'string', pattern: '^(\\w)\\1$' },
          plain: { type: 'string', pattern: '^[a-z]+$' },
          // A property named "pattern" is not the keyword.
          pattern: { type: 'string' },
          list: { type: 'array', items: { anyOf: [{ type: 'string', pattern: '(?<=a)b' }] } },
          named: { type: 'string', pattern: '^(?<x>a)\\k<x>$' },
        },
        patternProperties: { '^(?!tmp_)': { type: 'string' }, '^ok_': { type: 'string' } },
        $defs: { later: { type: 'string', pattern: '^(?=x)' } },
      }),
    ).toEqual([
      { pointer: '/patternProperties', pattern: '^(?!tmp_)' },
      { pointer: '/properties/code/pattern', pattern: '^(\\w)\\1$' },
      { pointer: '/properties/list/items/anyOf/0/pattern', pattern: '(?<=a)b' },
      { pointer: '/properties/named/pattern', pattern: '^(?<x>a)\\k<x>$' },
      { pointer: '/$defs/later/pattern', pattern: '^(?=x)' },
    ]);
  });

  it('finds nothing in a schema whose patterns RE2 runs, nor in one without patterns or with invalid ones', () => {
    expect(nonLinearPatterns({ type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } } })).toEqual(
      [],
    );
    expect(nonLinearPatterns({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } })).toEqual([]);
    expect(nonLinearPatterns({ type: 'object' })).toEqual([]);
    expect(nonLinearPatterns(null)).toEqual([]);
  });
});
