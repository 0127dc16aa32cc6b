import { readFile as readText } from 'node:fs/promises';

/**
 * The read_file handler of the Python tool-registry guide: the file's text, or the lines from
 * `start_line` to `end_line` (1-based, inclusive; either bound may be left out).
 */
export async function readFile({ file_path: filePath, encoding = 'utf-8', start_line: startLine, end_line: endLine }) {
  const text = await readText(filePath, { encoding });
  let lines = text.split(/(?<=\n)/);
  if (startLine !== undefined || endLine !== undefined) {
    lines = lines.slice((startLine ?? 1) - 1, endLine ?? lines.length);
  }
  return { content: lines.join(''), lines: lines.length };
}
