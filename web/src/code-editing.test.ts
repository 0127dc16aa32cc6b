import { describe, expect, it } from 'vitest';
import { indentEdit } from './code-editing.js';

describe('indentEdit (Tab and Shift-Tab in a code field)', () => {
  it('inserts four spaces at the caret, or in place of a selection within one line', () => {
    expect(indentEdit('if x:\nprint(x)', 6, 6, false)).toEqual({
      text: 'if x:\n    print(x)',
      selectionStart: 10,
      selectionEnd: 10,
    });
    expect(indentEdit('a = 1', 1, 4, false)).toEqual({ text: 'a    1', selectionStart: 5, selectionEnd: 5 });
  });

  it('indents every line a selection touches, and keeps them selected', () => {
    const text = 'def f():\nx = 1\nreturn x\n';
    expect(indentEdit(text, 11, 20, false)).toEqual({
      text: 'def f():\n    x = 1\n    return x\n',
      selectionStart: 15,
      selectionEnd: 28,
    });
  });

  it('leaves the line after a selection that ends with its newline alone', () => {
    expect(indentEdit('a\nb\nc', 0, 4, false)).toEqual({
      text: '    a\n    b\nc',
      selectionStart: 4,
      selectionEnd: 12,
    });
  });

  it('outdents the caret line or the selected lines by one step (four spaces or a tab)', () => {
    expect(indentEdit('if x:\n    print(x)', 12, 12, true)).toEqual({
      text: 'if x:\nprint(x)',
      selectionStart: 8,
      selectionEnd: 8,
    });
    expect(indentEdit('\tone\n  two\n      three', 0, 22, true)).toEqual({
      text: 'one\ntwo\n  three',
      selectionStart: 0,
      selectionEnd: 15,
    });
  });

  it('returns nothing for Shift-Tab on lines with no indentation, so the focus moves as usual', () => {
    expect(indentEdit('print(1)\nprint(2)', 3, 3, true)).toBeUndefined();
    expect(indentEdit('print(1)\nprint(2)', 0, 17, true)).toBeUndefined();
  });
});
