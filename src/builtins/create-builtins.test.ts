import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectFailure, expectSuccess } from '../../test/builtins/support.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { BUILTIN_NAMES, createBuiltins } from './create-builtins.js';
import * as builtins from './index.js';

const root = mkdtempSync(join(tmpdir(), 'toolshed-builtins-'));
writeFileSync(join(root, 'hello.txt'), 'hello\n');

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const CATEGORIES: Record<string, string> = {
  read_file: 'filesystem',
  write_file: 'filesystem',
  list_files: 'filesystem',
  search_code: 'filesystem',
  fetch_url: 'web',
  serper_search: 'web',
  duckduckgo_search: 'web',
  calculator: 'math',
};

describe('createBuiltins', () => {
  const registry = new ToolRegistry({ env: {} });
  registry.registerAll(createBuiltins({ files: { root } }));

  it('registers every built-in under its name', () => {
    expect(registry.list()).toEqual([...BUILTIN_NAMES].sort());
  });

  it.each(BUILTIN_NAMES.map((name) => [name]))('gives %s its metadata', (name) => {
    const spec = registry.get(name);
    expect(spec.category).toBe(CATEGORIES[name]);
    expect(spec.description.length).toBeGreaterThan(40);
    expect(spec.whenToUse).toBeTruthy();
    expect(spec.tags.length).toBeGreaterThan(0);
    expect(spec.title).toBeTruthy();
    expect(spec.cli === null || typeof spec.cli === 'string').toBe(true);
    expect(spec.inputSchema.type).toBe('object');
    expect(spec.annotations.openWorld).toBe(CATEGORIES[name] === 'web');
    for (const property of Object.values(spec.inputSchema.properties ?? {})) {
      expect((property as { description?: string }).description).toBeTruthy();
    }
  });

  it('gives every tool a distinct CLI keyword', () => {
    const keywords = registry.tools().map((spec) => spec.cli);
    expect(new Set(keywords).size).toBe(keywords.length);
  });

  it('marks the read-only tools read-only', () => {
    const readOnly = registry
      .tools()
      .filter((spec) => spec.annotations.readOnly === true)
      .map((spec) => spec.name);
    expect(readOnly.sort()).toEqual(
      ['calculator', 'duckduckgo_search', 'list_files', 'read_file', 'search_code', 'serper_search'].sort(),
    );
  });

  it('declares SERPER_API_KEY with where to get it, and nothing else needs credentials', () => {
    const needing = registry.tools().filter((spec) => (spec.requires.env ?? []).length > 0);
    expect(needing.map((spec) => spec.name)).toEqual(['serper_search']);
    expect(registry.get('serper_search').requires.env).toEqual([
      {
        name: 'SERPER_API_KEY',
        description: 'API key for Serper, the Google Search API',
        url: 'https://serper.dev',
      },
    ]);
  });

  it('runs the tools through registry.call', async () => {
    expect(expectSuccess(await registry.call('read_file', '{"path": "hello.txt"}')).data).toMatchObject({
      content: 'hello\n',
    });
    expect(expectSuccess(await registry.call('calculator', { expression: '6 * 7' })).data).toEqual({
      expression: '6 * 7',
      result: 42,
    });
    expect(expectFailure(await registry.call('serper_search', { query: 'x' })).error.code).toBe('MISSING_CREDENTIALS');
    expect(expectFailure(await registry.call('fetch_url', { url: 'http://127.0.0.1/' })).error.code).toBe(
      'INVALID_ARGUMENTS',
    );
  });

  it('drops undeclared arguments and reports them', async () => {
    const result = expectSuccess(await registry.call('calculator', { expression: '1+1', precision: 3 }));
    expect(result.metadata.droppedArgs).toEqual(['precision']);
  });

  it('picks a subset with only, and refuses unknown names', () => {
    expect(createBuiltins({ files: { root }, only: ['calculator', 'read_file'] }).map((spec) => spec.name)).toEqual([
      'read_file',
      'calculator',
    ]);
    expect(() => createBuiltins({ only: ['read_fiel'] })).toThrow("Unknown built-in tool 'read_fiel'");
  });

  it('confines the filesystem tools to the working folder by default', () => {
    const names = createBuiltins().map((spec) => spec.name);
    expect(names).toEqual([...BUILTIN_NAMES]);
  });

  it('exports the public API from the subpath entry', () => {
    for (const name of [
      'createBuiltins',
      'createFileTools',
      'createWebTools',
      'createCalculatorTool',
      'LocalFolderBackend',
      'SsrfGuard',
      'classifyAddress',
      'UrlBlockedError',
      'FileAccessError',
      'guardedRequest',
      'BUILTIN_NAMES',
    ]) {
      expect(builtins).toHaveProperty(name);
    }
  });
});
