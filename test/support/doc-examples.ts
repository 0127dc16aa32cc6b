import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The documents whose examples are run: README.md and every page of docs/, in name order. */
export const DOCUMENTS: readonly string[] = (() => {
  const root = resolve(import.meta.dirname, '..', '..');
  const pages = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort();
  return [join(root, 'README.md'), ...pages.map((name) => join(root, 'docs', name))];
})();

/** A runnable example of a document, with the output the document says it prints. */
export interface DocExample {
  file: string;
  index: number;
  code: string;
  /** The output block that follows the example, when the document shows one. */
  output: string | undefined;
}

/**
 * The examples of a Markdown file: ```ts blocks whose info string says `example`; a ```text block with
 * `output` right after one is what its console.log calls must print.
 *
 * @example
 * ```ts
 * const [first] = examplesOf('README.md');
 * console.log(first?.code, first?.output);
 * ```
 */
export function examplesOf(file: string): DocExample[] {
  const text = readFileSync(file, 'utf8');
  const blocks = [...text.matchAll(/```(\w+)([^\n]*)\n([\s\S]*?)```/g)];
  const examples: DocExample[] = [];
  blocks.forEach((block, index) => {
    if (block[1] !== 'ts' || !/\bexample\b/.test(block[2] ?? '')) return;
    const next = blocks[index + 1];
    const between = next === undefined ? '' : text.slice(block.index! + block[0].length, next.index);
    const output =
      next !== undefined && next[1] === 'text' && /\boutput\b/.test(next[2] ?? '') && between.trim() === ''
        ? next[3]
        : undefined;
    examples.push({ file, index: examples.length, code: block[3]!, output: output?.trimEnd() });
  });
  return examples;
}
