import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
// Examples are written outside the repository; the folder links the repository's node_modules so their
// imports of dependencies (zod, ...) resolve as they would in a project.
const WORK = mkdtempSync(join(tmpdir(), 'toolshed-examples-'));
symlinkSync(join(ROOT, 'node_modules'), join(WORK, 'node_modules'), 'dir');

interface Example {
  file: string;
  index: number;
  code: string;
  /** The output block that follows the example, when the document shows one. */
  output: string | undefined;
}

/**
 * Examples are ```ts blocks whose info string says `example`; a ```text block with `output` right
 * after one is what its console.log calls must print.
 */
function examplesOf(file: string): Example[] {
  const text = readFileSync(file, 'utf8');
  const blocks = [...text.matchAll(/```(\w+)([^\n]*)\n([\s\S]*?)```/g)];
  const examples: Example[] = [];
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

const documents = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name)),
];
const examples = documents.flatMap(examplesOf);

afterAll(() => rmSync(WORK, { recursive: true, force: true }));

describe('examples in the documentation', () => {
  it('finds examples to run', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  for (const example of examples) {
    const name = `${example.file.slice(ROOT.length + 1)} example ${example.index + 1}`;
    it(`runs ${name}${example.output === undefined ? '' : ' and prints what the document shows'}`, async () => {
      const path = join(WORK, `${name.replace(/[^a-z0-9]+/gi, '-')}.ts`);
      writeFileSync(path, example.code);
      const printed: string[] = [];
      const log = vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => {
        printed.push(values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(' '));
      });
      try {
        await import(`${pathToFileURL(path).href}?${Date.now()}`);
      } finally {
        log.mockRestore();
      }
      if (example.output !== undefined) expect(printed.join('\n')).toBe(example.output);
    });
  }
});
