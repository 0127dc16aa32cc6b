import { describe, expect, it } from 'vitest';
import { firstSentence, formatTable, oneLine, toJson, truncate, visible, wrap } from './output.js';

describe('visible', () => {
  it('escapes ANSI codes, other controls and bidirectional overrides, keeping tabs and newlines', () => {
    expect(visible('red \u001b[31mtext')).toBe('red \\u001b[31mtext');
    expect(visible('a\tb\nc\r\nd\re\u0000f\u007fg\u009bh\u202ei')).toBe(
      'a\tb\nc\nd\\u000de\\u0000f\\u007fg\\u009bh\\u202ei',
    );
  });
});

describe('oneLine and firstSentence', () => {
  it('collapses whitespace into one line', () => {
    expect(oneLine('Read a file.\n  Then edit it.')).toBe('Read a file. Then edit it.');
  });

  it('stops at the first sentence end followed by whitespace', () => {
    expect(firstSentence('Add two numbers. Works with decimals.')).toBe('Add two numbers.');
    expect(firstSentence('Really?  Yes!')).toBe('Really?');
    expect(firstSentence('Version 1.2 of the parser')).toBe('Version 1.2 of the parser');
    expect(firstSentence('Ends here.')).toBe('Ends here.');
  });
});

describe('formatTable, truncate and wrap', () => {
  it('aligns columns two spaces apart without trailing spaces', () => {
    expect(
      formatTable([
        ['add', 'math'],
        ['echo', 'text'],
      ]),
    ).toEqual(['add   math', 'echo  text']);
    expect(
      formatTable([
        ['a', 'b', ''],
        ['long', 'x', 'y'],
      ]),
    ).toEqual(['a     b', 'long  x  y']);
  });

  it('cuts a line to the width with an ellipsis, and only on a terminal', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abcdef', undefined)).toBe('abcdef');
    expect(truncate('abc', 4)).toBe('abc');
  });

  it('wraps at word boundaries with an indent', () => {
    expect(wrap('one two three four five six seven', 24, '  ')).toEqual(['  one two three four', '  five six seven']);
    expect(wrap('first\nsecond', 80, '> ')).toEqual(['> first', '> second']);
  });
});

describe('toJson', () => {
  it('writes bigints as strings and cycles as markers, keeping shared references', () => {
    expect(toJson({ n: 1n })).toBe('{\n  "n": "1"\n}\n');
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(JSON.parse(toJson(cyclic))).toEqual({ name: 'loop', self: '[Circular]' });
    const shared = { x: 1 };
    expect(JSON.parse(toJson({ a: shared, b: [shared] }))).toEqual({ a: { x: 1 }, b: [{ x: 1 }] });
  });

  it('writes null for a value JSON cannot hold', () => {
    expect(toJson(undefined)).toBe('null\n');
  });
});
