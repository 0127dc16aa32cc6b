/** Options of {@link unifiedDiff}. */
export interface UnifiedDiffOptions {
  /** Label of the old text in the `---` line. */
  fromLabel: string;
  /** Label of the new text in the `+++` line. */
  toLabel: string;
  /** Unchanged lines shown around each change (default 2). */
  context?: number;
}

/** Texts with more lines than this on either side are summarised instead of diffed line by line. */
const MAX_DIFF_LINES = 4000;

type Edit = { kind: ' ' | '-' | '+'; text: string };

/**
 * A unified diff (`---`/`+++` labels, `@@ -a,n +b,m @@` hunks) of two texts, by line; `''` when they
 * are equal. Built on a longest-common-subsequence table, which is plenty for definition files.
 *
 * @example
 * ```ts
 * unifiedDiff('a\nb\n', 'a\nc\n', { fromLabel: 'on disk', toLabel: 'from code' });
 * // '--- on disk\n+++ from code\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n'
 * ```
 */
export function unifiedDiff(before: string, after: string, options: UnifiedDiffOptions): string {
  if (before === after) return '';
  const context = options.context ?? 2;
  const oldLines = splitLines(before);
  const newLines = splitLines(after);
  const header = `--- ${options.fromLabel}\n+++ ${options.toLabel}\n`;
  if (oldLines.length > MAX_DIFF_LINES || newLines.length > MAX_DIFF_LINES) {
    return `${header}@@ -1,${oldLines.length} +1,${newLines.length} @@ (too long to diff line by line)\n`;
  }
  const edits = diffLines(oldLines, newLines);
  let text = header;
  let index = 0;
  while (index < edits.length) {
    if (edits[index]!.kind === ' ') {
      index++;
      continue;
    }
    // A hunk: this change, later changes within 2 × context lines of it, and context around them.
    let end = index;
    let lastChange = index;
    while (end < edits.length && end - lastChange <= context * 2) {
      if (edits[end]!.kind !== ' ') lastChange = end;
      end++;
    }
    const start = Math.max(0, index - context);
    const stop = Math.min(edits.length, lastChange + context + 1);
    let oldStart = 1;
    let newStart = 1;
    for (const edit of edits.slice(0, start)) {
      if (edit.kind !== '+') oldStart++;
      if (edit.kind !== '-') newStart++;
    }
    const hunk = edits.slice(start, stop);
    const oldCount = hunk.filter((edit) => edit.kind !== '+').length;
    const newCount = hunk.filter((edit) => edit.kind !== '-').length;
    text += `@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@\n`;
    for (const edit of hunk) text += `${edit.kind}${edit.text}\n`;
    index = stop;
  }
  return text;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function diffLines(oldLines: string[], newLines: string[]): Edit[] {
  const rows = oldLines.length;
  const columns = newLines.length;
  // common[i * (columns + 1) + j]: length of the longest common subsequence of oldLines[i..] and newLines[j..].
  const common = new Uint32Array((rows + 1) * (columns + 1));
  for (let i = rows - 1; i >= 0; i--) {
    for (let j = columns - 1; j >= 0; j--) {
      common[i * (columns + 1) + j] =
        oldLines[i] === newLines[j]
          ? common[(i + 1) * (columns + 1) + j + 1]! + 1
          : Math.max(common[(i + 1) * (columns + 1) + j]!, common[i * (columns + 1) + j + 1]!);
    }
  }
  const edits: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < rows || j < columns) {
    if (i < rows && j < columns && oldLines[i] === newLines[j]) {
      edits.push({ kind: ' ', text: oldLines[i]! });
      i++;
      j++;
    } else if (
      j >= columns ||
      (i < rows && common[(i + 1) * (columns + 1) + j]! >= common[i * (columns + 1) + j + 1]!)
    ) {
      edits.push({ kind: '-', text: oldLines[i]! });
      i++;
    } else {
      edits.push({ kind: '+', text: newLines[j]! });
      j++;
    }
  }
  return edits;
}
