import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const BASE = 'src/core/errors/toolshed-error.ts';
/** The built-in error classes a toolshed error must not extend directly. */
const BUILTIN_ERRORS = new Set(['Error', 'TypeError', 'RangeError', 'SyntaxError', 'AggregateError']);

interface ErrorClass {
  file: string;
  name: string;
  base: string;
}

/** Every class in `text` that extends another, with the base as written. */
function errorClasses(file: string, text: string): ErrorClass[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: ErrorClass[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassLike(node)) {
      for (const clause of node.heritageClauses ?? []) {
        if (clause.token !== ts.SyntaxKind.ExtendsKeyword) continue;
        for (const type of clause.types) {
          const base = type.expression.getText(source);
          found.push({ file, name: node.name?.text ?? '(anonymous)', base });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The classes of `text` that extend a built-in error directly (what only the base class may do). */
function directErrorSubclasses(file: string, text: string): ErrorClass[] {
  return errorClasses(file, text).filter((item) => BUILTIN_ERRORS.has(item.base));
}

/** Production sources under src/: TypeScript and JavaScript modules, not tests or fixtures. */
function sourceFiles(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== '__fixtures__' && entry.name !== 'generated') files.push(...sourceFiles(path));
    } else if (/\.(ts|mts|mjs|js)$/.test(entry.name) && !/\.(test|cases)\.ts$/.test(entry.name)) {
      files.push(path);
    }
  }
  return files;
}

function scan(): { direct: string[]; classes: ErrorClass[]; texts: Map<string, string> } {
  const texts = new Map<string, string>();
  const direct: string[] = [];
  const classes: ErrorClass[] = [];
  for (const path of sourceFiles(SRC)) {
    const file = relative(ROOT, path);
    const text = readFileSync(path, 'utf8');
    texts.set(file, text);
    classes.push(...errorClasses(file, text));
    if (file === BASE) continue;
    for (const item of directErrorSubclasses(file, text)) direct.push(`${file}: ${item.name} extends ${item.base}`);
  }
  return { direct, classes, texts };
}

describe('the error base class', () => {
  it('finds a class that extends Error directly, and one that extends it through an expression', () => {
    const text = [
      'export class QuotaError extends Error {}',
      'const Made = class extends RangeError {};',
      "export class StoreError extends ToolshedError<'X'> {}",
    ].join('\n');
    expect(directErrorSubclasses('src/example.ts', text)).toEqual([
      { file: 'src/example.ts', name: 'QuotaError', base: 'Error' },
      { file: 'src/example.ts', name: '(anonymous)', base: 'RangeError' },
    ]);
  });

  it('is the only class in src/ that extends a built-in error; every other error class extends it', () => {
    const { direct } = scan();
    expect(direct, 'error classes must extend ToolshedError (src/core/errors/toolshed-error.ts)').toEqual([]);
  });

  it('leaves no error class recognised by its name string', () => {
    const { classes, texts } = scan();
    // Every class that (through others) extends ToolshedError.
    const bases = new Map(classes.map((item) => [item.name, item.base.replace(/<.*$/s, '')]));
    const isToolshedError = (name: string, seen = new Set<string>()): boolean => {
      if (name === 'ToolshedError') return true;
      const base = bases.get(name);
      if (base === undefined || seen.has(name)) return false;
      seen.add(name);
      return isToolshedError(base, seen);
    };
    const names = [...bases.keys()].filter((name) => isToolshedError(name));
    expect(names).toContain('InvalidToolSchemaError');
    expect(names).toContain('StoreError');
    const comparisons: string[] = [];
    for (const [file, text] of texts) {
      for (const name of names) {
        if (new RegExp(`\\.name\\s*[!=]==?\\s*['"\`]${name}['"\`]`).test(text)) comparisons.push(`${file}: ${name}`);
      }
    }
    expect(comparisons, 'recognise errors by instanceof, isInstance or code').toEqual([]);
  });
});
