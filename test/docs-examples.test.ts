import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DOCUMENTS, examplesOf } from './support/doc-examples.js';

const ROOT = resolve(import.meta.dirname, '..');
// Examples are written outside the repository; the folder links the repository's node_modules so their
// imports of dependencies (zod, ...) resolve as they would in a project.
const WORK = mkdtempSync(join(tmpdir(), 'toolshed-examples-'));
symlinkSync(join(ROOT, 'node_modules'), join(WORK, 'node_modules'), 'dir');

const examples = DOCUMENTS.flatMap(examplesOf);

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
