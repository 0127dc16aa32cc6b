import { describe, expect, it } from 'vitest';
import { unifiedDiff } from './unified-diff.js';

const labels = { fromLabel: 'on disk', toLabel: 'from code' };
const lines = (count: number, change?: [index: number, text: string]) =>
  `${Array.from({ length: count }, (_, index) => (change?.[0] === index ? change[1] : `line ${index + 1}`)).join('\n')}\n`;

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n', labels)).toBe('');
  });

  it('shows a changed line with its context (the documented example)', () => {
    expect(unifiedDiff('a\nb\n', 'a\nc\n', labels)).toBe('--- on disk\n+++ from code\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n');
  });

  it('keeps distant changes in separate hunks with their own line numbers', () => {
    const before = lines(20);
    const after = lines(20, [1, 'second']).replace('line 18', 'eighteen');
    expect(unifiedDiff(before, after, labels)).toBe(
      [
        '--- on disk',
        '+++ from code',
        '@@ -1,4 +1,4 @@',
        ' line 1',
        '-line 2',
        '+second',
        ' line 3',
        ' line 4',
        '@@ -16,5 +16,5 @@',
        ' line 16',
        ' line 17',
        '-line 18',
        '+eighteen',
        ' line 19',
        ' line 20',
        '',
      ].join('\n'),
    );
  });

  it('shows added and removed files as one hunk', () => {
    expect(unifiedDiff('', 'a\nb\n', labels)).toBe('--- on disk\n+++ from code\n@@ -0,0 +1,2 @@\n+a\n+b\n');
    expect(unifiedDiff('a\n', '', labels)).toBe('--- on disk\n+++ from code\n@@ -1,1 +0,0 @@\n-a\n');
  });

  it('summarises texts too long to diff line by line', () => {
    expect(unifiedDiff(lines(5000), lines(5000, [3, 'x']), labels)).toBe(
      '--- on disk\n+++ from code\n@@ -1,5000 +1,5000 @@ (too long to diff line by line)\n',
    );
  });
});
