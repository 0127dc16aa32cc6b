import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, expectSuccess } from '../../../test/builtins/support.js';
import { toModelText } from '../../core/tool-result.js';
import { ToolRegistry } from '../../registry/tool-registry.js';
import { createFileTools } from './create-file-tools.js';
import { FileAccessError } from './file-access-error.js';
import { normalizeVirtualPath } from './normalize-virtual-path.js';

const SECRET = 'TOP SECRET outside the root';

let base: string;
let root: string;
let outside: string;
let registry: ToolRegistry;

/** Every file under `folder` with its content (links listed by target), to prove nothing changed. */
function snapshot(folder: string): Record<string, string> {
  const result: Record<string, string> = {};
  const visit = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.isFile()) result[relative(folder, full)] = readFileSync(full, 'utf8');
      else result[relative(folder, full)] = '<link>';
    }
  };
  visit(folder);
  return result;
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'toolshed-confine-')));
  root = join(base, 'root');
  outside = join(base, 'outside');
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(join(outside, 'dir'), { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), SECRET);
  writeFileSync(join(outside, 'dir', 'file.txt'), SECRET);
  writeFileSync(join(root, 'inside.txt'), 'inside\n');
  writeFileSync(join(root, 'sub', 'nested.txt'), 'nested\n');
  symlinkSync(join(outside, 'secret.txt'), join(root, 'link-out-file'));
  symlinkSync(outside, join(root, 'link-out-dir'));
  symlinkSync('../../outside', join(root, 'sub', 'deep-out'));
  symlinkSync(join(outside, 'created-through-link.txt'), join(root, 'dangling-out'));
  symlinkSync('inside.txt', join(root, 'link-in'));
  symlinkSync('sub', join(root, 'link-in-dir'));
  registry = new ToolRegistry();
  registry.registerAll(createFileTools({ root }));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const LONG_PATH = `${'a/'.repeat(2500)}x.txt`;

// [label, path, the error code a model sees, text the message must quote]
const ESCAPES: Array<[string, string, string, string]> = [
  ['a parent-folder step', '../outside/secret.txt', 'INVALID_ARGUMENTS', '../outside/secret.txt'],
  ['a deep traversal', '../../etc/passwd', 'INVALID_ARGUMENTS', '../../etc/passwd'],
  ['a traversal after a folder', 'sub/../../outside/secret.txt', 'INVALID_ARGUMENTS', 'sub/../../outside/secret.txt'],
  ['Windows-style separators', '..\\outside\\secret.txt', 'INVALID_ARGUMENTS', '..\\outside\\secret.txt'],
  ['a Windows drive path', 'C:\\Windows\\win.ini', 'INVALID_ARGUMENTS', 'C:\\Windows\\win.ini'],
  ['a symbolic link to a file outside', 'link-out-file', 'INVALID_ARGUMENTS', '/link-out-file'],
  [
    'a path through a link to a folder outside',
    'link-out-dir/secret.txt',
    'INVALID_ARGUMENTS',
    '/link-out-dir/secret.txt',
  ],
  ['a relative link out of a subfolder', 'sub/deep-out/secret.txt', 'INVALID_ARGUMENTS', '/sub/deep-out/secret.txt'],
  ['a NUL byte', 'inside.txt\u0000.png', 'INVALID_ARGUMENTS', 'NUL'],
  ['a 5000-character path', LONG_PATH, 'INVALID_ARGUMENTS', '5005 characters'],
  ['an absolute host path (read as inside the root)', '/etc/passwd', 'EXECUTION_FAILED', '/etc/passwd'],
];

describe('path confinement: read_file', () => {
  it.each(ESCAPES)('refuses %s', async (_label, path, code, quoted) => {
    const failure = expectFailure(await registry.call('read_file', { path }));
    expect(failure.error.code).toBe(code);
    expect(failure.error.message).toContain(quoted);
    expect(toModelText(failure)).not.toContain(SECRET);
    expect(failure.error.message).not.toContain(base);
  });

  it('reads an absolute host path of an outside file as a path inside the root, which does not exist', async () => {
    const path = join(outside, 'secret.txt');
    const failure = expectFailure(await registry.call('read_file', { path }));
    expect(failure.error.code).toBe('EXECUTION_FAILED');
    expect(failure.error.message).toBe(`'${path}' does not exist.`);
    expect(toModelText(failure)).not.toContain(SECRET);
  });

  it('follows a symbolic link that stays inside the root', async () => {
    const success = expectSuccess(await registry.call('read_file', { path: 'link-in' }));
    expect(success.data).toMatchObject({ path: '/link-in', content: 'inside\n' });
    const nested = expectSuccess(await registry.call('read_file', { path: 'link-in-dir/nested.txt' }));
    expect(nested.data).toMatchObject({ content: 'nested\n' });
  });

  it('reads the root with a leading slash the same as without', async () => {
    const success = expectSuccess(await registry.call('read_file', { path: '/sub/nested.txt' }));
    expect(success.data).toMatchObject({ path: '/sub/nested.txt', content: 'nested\n' });
  });
});

describe('path confinement: write_file', () => {
  const WRITE_ESCAPES = [
    ...ESCAPES.filter(([label]) => !label.startsWith('an absolute')),
    ['a dangling link pointing outside', 'dangling-out', 'INVALID_ARGUMENTS', '/dangling-out'],
    [
      'a new file through a link to a folder outside',
      'link-out-dir/new.txt',
      'INVALID_ARGUMENTS',
      '/link-out-dir/new.txt',
    ],
    ['new folders through a link outside', 'link-out-dir/a/b/c.txt', 'INVALID_ARGUMENTS', '/link-out-dir/a/b/c.txt'],
  ] as Array<[string, string, string, string]>;

  it.each(WRITE_ESCAPES)('refuses %s and writes nothing outside', async (_label, path, code, quoted) => {
    const before = snapshot(outside);
    const failure = expectFailure(await registry.call('write_file', { path, content: 'pwned' }));
    expect(failure.error.code).toBe(code);
    expect(failure.error.message).toContain(quoted);
    expect(snapshot(outside)).toEqual(before);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  });

  it('writes an absolute-looking path inside the root, never to the host path', async () => {
    const before = snapshot(outside);
    const target = join(outside, 'written.txt');
    expectSuccess(await registry.call('write_file', { path: target, content: 'inside after all' }));
    expect(snapshot(outside)).toEqual(before);
    expect(readFileSync(join(root, relative('/', target)), 'utf8')).toBe('inside after all');
  });

  it('writes through a symbolic link inside the root to its target and keeps the link', async () => {
    expectSuccess(await registry.call('write_file', { path: 'link-in', content: 'changed\n' }));
    expect(readFileSync(join(root, 'inside.txt'), 'utf8')).toBe('changed\n');
    expect(statSync(join(root, 'link-in')).isFile()).toBe(true);
    expect(readdirSync(root)).toContain('link-in');
    writeFileSync(join(root, 'inside.txt'), 'inside\n');
  });
});

describe('path confinement: list_files and search_code', () => {
  it.each([
    ['..', 'INVALID_ARGUMENTS'],
    ['../outside', 'INVALID_ARGUMENTS'],
    ['link-out-dir', 'INVALID_ARGUMENTS'],
    ['sub/deep-out', 'INVALID_ARGUMENTS'],
    ['x\u0000', 'INVALID_ARGUMENTS'],
  ])('list_files refuses %j', async (path, code) => {
    const failure = expectFailure(await registry.call('list_files', { path }));
    expect(failure.error.code).toBe(code);
    expect(toModelText(failure)).not.toContain('secret.txt');
  });

  it('does not list links that lead outside or dangle, and lists links inside', async () => {
    const listing = expectSuccess(await registry.call('list_files', { path: '/' })).data as string;
    expect(listing).not.toContain('link-out-file');
    expect(listing).not.toContain('link-out-dir');
    expect(listing).not.toContain('dangling-out');
    expect(listing).toContain('[FILE] /link-in (7 bytes)');
    expect(listing).toContain('[DIR]  /link-in-dir');
  });

  it.each(['..', '../outside', 'link-out-dir', 'sub/deep-out', 'link-out-file'])(
    'search_code refuses the directory %j',
    async (directory) => {
      const failure = expectFailure(await registry.call('search_code', { pattern: 'SECRET', directory }));
      expect(failure.error.code).toBe('INVALID_ARGUMENTS');
      expect(toModelText(failure)).not.toContain(SECRET);
    },
  );

  it('never finds text outside the root by walking links', async () => {
    const success = expectSuccess(await registry.call('search_code', { pattern: 'SECRET' }));
    expect(success.data).toMatchObject({ matches: [], total_matches: 0 });
  });
});

describe('normalizeVirtualPath', () => {
  it.each([
    ['a/b', '/a/b'],
    ['/a/b/', '/a/b'],
    ['./a//b/./c', '/a/b/c'],
    ['a/b/../c', '/a/c'],
    ['a\\b', '/a/b'],
    ['', '/'],
    ['/', '/'],
    ['.', '/'],
    ['~/x', '/~/x'],
  ])('normalizes %j to %j', (input, expected) => {
    expect(normalizeVirtualPath(input)).toBe(expected);
  });

  it.each([
    ['..', 'OUTSIDE_ROOT'],
    ['a/../..', 'OUTSIDE_ROOT'],
    ['a\u0000b', 'INVALID_PATH'],
    ['a\nb', 'INVALID_PATH'],
    ['D:/x', 'INVALID_PATH'],
    ['x'.repeat(4097), 'INVALID_PATH'],
  ])('refuses %j with %s', (input, code) => {
    let caught: unknown;
    try {
      normalizeVirtualPath(input);
    } catch (error) {
      caught = error;
    }
    expect(FileAccessError.isInstance(caught)).toBe(true);
    expect((caught as FileAccessError).code).toBe(code);
  });

  it('accepts a path of exactly 4096 characters', () => {
    expect(normalizeVirtualPath('x'.repeat(4096))).toBe(`/${'x'.repeat(4096)}`);
  });
});
