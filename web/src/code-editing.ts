/**
 * What one indentation step inserts: four spaces, as PEP 8 asks for Python.
 *
 * @example
 * ```ts
 * `${INDENT}print(x)`; // '    print(x)'
 * ```
 */
export const INDENT = '    ';

/**
 * The text of a code field and its selection after an edit.
 *
 * @example
 * ```ts
 * const edit: CodeEdit = { text: '    x', selectionStart: 4, selectionEnd: 4 };
 * ```
 */
export interface CodeEdit {
  text: string;
  selectionStart: number;
  selectionEnd: number;
}

/**
 * The edit Tab or Shift-Tab makes in a code field, or `undefined` when the key should keep its usual
 * meaning (move the focus).
 *
 * Tab with the caret in a line, or a selection within one line, replaces the selection with
 * {@link INDENT}; Tab over several lines indents each of them. Shift-Tab removes up to one
 * indentation step (four spaces, or one tab) from the start of each selected line, or of the caret's
 * line; when no line starts with one, it returns `undefined`, so Shift-Tab leaves the field.
 *
 * @example
 * ```ts
 * indentEdit('if x:\nprint(x)', 6, 6, false);
 * // { text: 'if x:\n    print(x)', selectionStart: 10, selectionEnd: 10 }
 * ```
 */
export function indentEdit(text: string, start: number, end: number, outdent: boolean): CodeEdit | undefined {
  const first = text.lastIndexOf('\n', start - 1) + 1;
  // A selection that ends right after a newline does not take in the next line.
  const last = end > start && text[end - 1] === '\n' ? end - 1 : end;
  const multiline = text.slice(first, last).includes('\n');
  if (!outdent && !multiline) {
    const caret = start + INDENT.length;
    return { text: text.slice(0, start) + INDENT + text.slice(end), selectionStart: caret, selectionEnd: caret };
  }
  const lineEnd = text.indexOf('\n', last);
  const block = text.slice(first, lineEnd < 0 ? text.length : lineEnd);
  const lines = block.split('\n');
  let removedBeforeStart = 0;
  let removed = 0;
  const changed = lines.map((line, index) => {
    if (!outdent) return INDENT + line;
    const step = line.startsWith('\t') ? 1 : (/^ {1,4}/.exec(line)?.[0].length ?? 0);
    if (index === 0) removedBeforeStart = Math.min(step, start - first);
    removed += step;
    return line.slice(step);
  });
  if (outdent && removed === 0) return undefined;
  const replaced = changed.join('\n');
  const next = text.slice(0, first) + replaced + text.slice(first + block.length);
  if (!outdent) {
    return {
      text: next,
      selectionStart: start + INDENT.length,
      selectionEnd: end + INDENT.length * lines.length,
    };
  }
  return {
    text: next,
    selectionStart: start - removedBeforeStart,
    selectionEnd: Math.max(start - removedBeforeStart, end - removed),
  };
}
