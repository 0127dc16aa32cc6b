import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectFailure, expectSuccess } from '../../../test/builtins/support.js';
import { ToolRegistry } from '../../registry/tool-registry.js';
import { createFileTools } from './create-file-tools.js';
import { FileAccessError } from './file-access-error.js';
import type { FileBackend, FileEntry } from './file-backend.js';
import { formatListing } from './list-files-tool.js';

let root: string;

function registryFor(options: Parameters<typeof createFileTools>[0] = { root }): ToolRegistry {
  const registry = new ToolRegistry();
  registry.registerAll(createFileTools(options));
  return registry;
}

function write(path: string, content: string | Buffer): void {
  const full = join(root, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, content);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'toolshed-files-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('read_file', () => {
  beforeEach(() => {
    write('five.txt', 'one\ntwo\nthree\nfour\nfive\n');
  });

  it('returns the whole file with its line counts', async () => {
    const { data } = expectSuccess(await registryFor().call('read_file', { path: 'five.txt' }));
    expect(data).toEqual({ path: '/five.txt', content: 'one\ntwo\nthree\nfour\nfive\n', lines: 5, total_lines: 5 });
  });

  it.each([
    ['', 0],
    ['x', 1],
    ['x\n', 1],
    ['x\ny', 2],
    ['x\n\n', 2],
    ['a\r\nb\r\n', 2],
  ])('counts the lines of %j as %i', async (content, lines) => {
    write('count.txt', content);
    const { data } = expectSuccess(await registryFor().call('read_file', { path: 'count.txt' }));
    expect(data).toMatchObject({ lines, total_lines: lines, content });
  });

  it('returns an inclusive 1-based line range', async () => {
    const { data } = expectSuccess(
      await registryFor().call('read_file', { path: 'five.txt', start_line: 2, end_line: 4 }),
    );
    expect(data).toEqual({
      path: '/five.txt',
      content: 'two\nthree\nfour\n',
      lines: 3,
      total_lines: 5,
      start_line: 2,
      end_line: 4,
    });
  });

  it('reads to the end with only start_line and from the start with only end_line', async () => {
    const registry = registryFor();
    const tail = expectSuccess(await registry.call('read_file', { path: 'five.txt', start_line: 4 }));
    expect(tail.data).toMatchObject({ content: 'four\nfive\n', lines: 2, start_line: 4, end_line: 5 });
    const head = expectSuccess(await registry.call('read_file', { path: 'five.txt', end_line: 1 }));
    expect(head.data).toMatchObject({ content: 'one\n', lines: 1, start_line: 1, end_line: 1 });
  });

  it('clamps end_line to the last line', async () => {
    const { data } = expectSuccess(
      await registryFor().call('read_file', { path: 'five.txt', start_line: 5, end_line: 99 }),
    );
    expect(data).toMatchObject({ content: 'five\n', lines: 1, end_line: 5 });
  });

  it('keeps the line endings of the file, and a last line without newline', async () => {
    write('crlf.txt', 'a\r\nb\r\nc');
    const { data } = expectSuccess(await registryFor().call('read_file', { path: 'crlf.txt', start_line: 2 }));
    expect(data).toMatchObject({ content: 'b\r\nc', lines: 2, total_lines: 3 });
  });

  it('refuses a start_line past the end, naming the line count', async () => {
    const failure = expectFailure(await registryFor().call('read_file', { path: 'five.txt', start_line: 6 }));
    expect(failure.error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: "start_line 6 is past the end of '/five.txt', which has 5 lines.",
    });
  });

  it('refuses end_line before start_line', async () => {
    const failure = expectFailure(
      await registryFor().call('read_file', { path: 'five.txt', start_line: 3, end_line: 2 }),
    );
    expect(failure.error.code).toBe('INVALID_ARGUMENTS');
    expect(failure.error.message).toContain('end_line (2) is before start_line (3)');
  });

  it('refuses line numbers below 1 through the schema', async () => {
    const failure = expectFailure(await registryFor().call('read_file', { path: 'five.txt', start_line: 0 }));
    expect(failure.error.code).toBe('INVALID_ARGUMENTS');
    expect(failure.error.message).toContain('start_line');
  });

  it('decodes latin1 and utf-16le', async () => {
    write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    write('utf16.txt', Buffer.from('hé\nyo', 'utf16le'));
    const registry = registryFor();
    const latin = expectSuccess(await registry.call('read_file', { path: 'latin1.txt', encoding: 'latin1' }));
    expect(latin.data).toMatchObject({ content: 'café' });
    const utf16 = expectSuccess(await registry.call('read_file', { path: 'utf16.txt', encoding: 'utf-16le' }));
    expect(utf16.data).toMatchObject({ content: 'hé\nyo', total_lines: 2 });
  });

  it('returns binary files as base64 or hex, and refuses them as text with a hint', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff]);
    write('image.png', bytes);
    const registry = registryFor();
    const base64 = expectSuccess(await registry.call('read_file', { path: 'image.png', encoding: 'base64' }));
    expect(base64.data).toEqual({
      path: '/image.png',
      content: bytes.toString('base64'),
      encoding: 'base64',
      bytes: 7,
    });
    const hex = expectSuccess(await registry.call('read_file', { path: 'image.png', encoding: 'hex' }));
    expect(hex.data).toMatchObject({ content: '89504e470001ff' });
    const failure = expectFailure(await registry.call('read_file', { path: 'image.png' }));
    expect(failure.error).toMatchObject({
      code: 'EXECUTION_FAILED',
      hint: "Read it with encoding 'base64' to get its bytes.",
    });
  });

  it('refuses a line range with a binary encoding', async () => {
    const failure = expectFailure(
      await registryFor().call('read_file', { path: 'five.txt', encoding: 'base64', start_line: 1 }),
    );
    expect(failure.error.code).toBe('INVALID_ARGUMENTS');
  });

  it('refuses an unknown encoding through the schema', async () => {
    const failure = expectFailure(await registryFor().call('read_file', { path: 'five.txt', encoding: 'ebcdic' }));
    expect(failure.error.code).toBe('INVALID_ARGUMENTS');
    expect(failure.error.message).toContain('encoding');
  });

  it('refuses a file over the read limit and tells to read a line range, which then works', async () => {
    write('big.log', `${'x'.repeat(99)}\n`.repeat(50));
    const registry = registryFor({ root, maxReadBytes: 1000 });
    const failure = expectFailure(await registry.call('read_file', { path: 'big.log' }));
    expect(failure.error).toMatchObject({
      code: 'OUTPUT_TOO_LARGE',
      message: "File '/big.log' is 4.9 KB, over the 1000 bytes limit for reading a whole file.",
      hint: 'Pass start_line and end_line to read a part of it, for example lines 1 to 200.',
    });
    const part = expectSuccess(await registry.call('read_file', { path: 'big.log', start_line: 10, end_line: 11 }));
    expect(part.data).toMatchObject({ lines: 2, total_lines: 50 });
    const tooMuch = expectFailure(await registry.call('read_file', { path: 'big.log', start_line: 1, end_line: 20 }));
    expect(tooMuch.error.code).toBe('OUTPUT_TOO_LARGE');
  });

  it('refuses a line range in a file over the scan limit', async () => {
    write('huge.log', 'x'.repeat(5000));
    const registry = registryFor({ root, maxReadBytes: 1000, maxScanBytes: 2000 });
    const failure = expectFailure(await registry.call('read_file', { path: 'huge.log', start_line: 1, end_line: 1 }));
    expect(failure.error.code).toBe('OUTPUT_TOO_LARGE');
    expect(failure.error.message).toContain('line ranges can only be read from files up to 2 KB');
  });

  it('explains a missing file and a folder', async () => {
    mkdirSync(join(root, 'folder'));
    const registry = registryFor();
    const missing = expectFailure(await registry.call('read_file', { path: 'nope.txt' }));
    expect(missing.error).toMatchObject({ code: 'EXECUTION_FAILED', message: "'/nope.txt' does not exist." });
    expect(missing.error.hint).toContain('list_files');
    const folder = expectFailure(await registry.call('read_file', { path: 'folder' }));
    expect(folder.error).toMatchObject({ code: 'EXECUTION_FAILED', message: "'/folder' is a folder, not a file." });
  });
});

describe('write_file', () => {
  it('creates a file with its parent folders and reports it as new', async () => {
    const { data } = expectSuccess(
      await registryFor().call('write_file', { path: 'out/deep/report.md', content: '# Hi\n' }),
    );
    expect(data).toEqual({ path: '/out/deep/report.md', bytes: 5, created: true });
    expect(readFileSync(join(root, 'out/deep/report.md'), 'utf8')).toBe('# Hi\n');
  });

  it('replaces an existing file and reports it as not new', async () => {
    write('a.txt', 'old');
    const { data } = expectSuccess(await registryFor().call('write_file', { path: '/a.txt', content: 'new ✓' }));
    expect(data).toEqual({ path: '/a.txt', bytes: 7, created: false });
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('new ✓');
  });

  it('refuses a missing parent folder when create_dirs is false', async () => {
    const failure = expectFailure(
      await registryFor().call('write_file', { path: 'missing/a.txt', content: 'x', create_dirs: false }),
    );
    expect(failure.error.code).toBe('EXECUTION_FAILED');
    expect(failure.error.message).toBe("Cannot write '/missing/a.txt': folder '/missing' does not exist.");
    expect(existsSync(join(root, 'missing'))).toBe(false);
  });

  it('refuses content over the write limit before writing anything', async () => {
    const failure = expectFailure(
      await registryFor({ root, maxWriteBytes: 10 }).call('write_file', { path: 'a.txt', content: 'x'.repeat(11) }),
    );
    expect(failure.error.code).toBe('INVALID_ARGUMENTS');
    expect(failure.error.message).toContain('over the 10 bytes write limit');
    expect(existsSync(join(root, 'a.txt'))).toBe(false);
  });

  it('refuses to replace a folder, to write under a file, or to write the root', async () => {
    mkdirSync(join(root, 'folder'));
    write('file.txt', 'x');
    const registry = registryFor();
    expect(expectFailure(await registry.call('write_file', { path: 'folder', content: 'x' })).error.message).toBe(
      "'/folder' is a folder, not a file.",
    );
    expect(expectFailure(await registry.call('write_file', { path: 'file.txt/x', content: 'x' })).error.message).toBe(
      "Cannot write '/file.txt/x': '/file.txt' is a file, not a folder.",
    );
    expect(expectFailure(await registry.call('write_file', { path: '/', content: 'x' })).error.code).toBe(
      'EXECUTION_FAILED',
    );
  });

  it('leaves no temporary files behind', async () => {
    const registry = registryFor();
    await registry.call('write_file', { path: 'a.txt', content: '1' });
    await registry.call('write_file', { path: 'a.txt', content: '2' });
    const listing = expectSuccess(await registry.call('list_files', {})).data;
    expect(listing).toBe('Contents of /:\n[FILE] /a.txt (1 bytes)');
  });
});

describe('list_files', () => {
  it('lists a folder in the virtual-filesystem format, folders first', async () => {
    write('data/report.txt', 'r'.repeat(1024));
    write('data/config.json', 'c'.repeat(256));
    mkdirSync(join(root, 'data/inputs'));
    const { data } = expectSuccess(await registryFor().call('list_files', { path: '/data' }));
    expect(data).toBe(
      'Contents of /data:\n[DIR]  /data/inputs\n[FILE] /data/config.json (256 bytes)\n[FILE] /data/report.txt (1024 bytes)',
    );
  });

  it('lists the root by default', async () => {
    write('a.txt', 'abc');
    mkdirSync(join(root, 'src'));
    const { data } = expectSuccess(await registryFor().call('list_files', {}));
    expect(data).toBe('Contents of /:\n[DIR]  /src\n[FILE] /a.txt (3 bytes)');
  });

  it('says when a folder is empty', async () => {
    mkdirSync(join(root, 'empty'));
    const { data } = expectSuccess(await registryFor().call('list_files', { path: 'empty/' }));
    expect(data).toBe('Contents of /empty:\n(empty folder)');
  });

  it('caps long listings and says how many entries were left out', async () => {
    for (const name of ['a', 'b', 'c', 'd']) write(`${name}.txt`, name);
    const { data } = expectSuccess(await registryFor({ root, maxListEntries: 2 }).call('list_files', {}));
    expect(data).toBe(
      'Contents of /:\n[FILE] /a.txt (1 bytes)\n[FILE] /b.txt (1 bytes)\n... and 2 more entries (list a subfolder to narrow it down)',
    );
  });

  it('explains a file given as folder', async () => {
    write('a.txt', 'x');
    const failure = expectFailure(await registryFor().call('list_files', { path: 'a.txt' }));
    expect(failure.error).toMatchObject({
      code: 'EXECUTION_FAILED',
      message: "'/a.txt' is a file, not a folder.",
      hint: 'Call read_file to read a file.',
    });
  });

  it('formats a listing without a backend', () => {
    expect(formatListing('/x', [{ path: '/x/y', type: 'directory', size: 0 }])).toBe('Contents of /x:\n[DIR]  /x/y');
  });
});

describe('search_code', () => {
  beforeEach(() => {
    write('src/app.ts', 'import x from "y";\n// TODO: fix\nexport function load() {}\nconst todo = 1;\n');
    write('src/util.js', 'function load() {}\n// todo later\n');
    write('docs/readme.md', 'Call load() to start.\n');
    write('src/image.bin', Buffer.from([0, 1, 2, 3, 0x6c, 0x6f, 0x61, 0x64]));
    write('.git/config', 'load = true\n');
    write('node_modules/pkg/index.js', 'function load() {}\n');
  });

  it('finds matching lines with paths and 1-based line numbers, skipping .git, node_modules and binary files', async () => {
    const { data } = expectSuccess(await registryFor().call('search_code', { pattern: 'load\\(' }));
    expect(data).toEqual({
      pattern: 'load\\(',
      directory: '/',
      matches: [
        { path: '/docs/readme.md', line: 1, text: 'Call load() to start.' },
        { path: '/src/app.ts', line: 3, text: 'export function load() {}' },
        { path: '/src/util.js', line: 1, text: 'function load() {}' },
      ],
      total_matches: 3,
      truncated: false,
      files_searched: 3,
      files_skipped: 1,
    });
  });

  it('searches only the given directory, or a single file', async () => {
    const registry = registryFor();
    const inSrc = expectSuccess(await registry.call('search_code', { pattern: 'load', directory: 'src' }));
    expect((inSrc.data as { matches: Array<{ path: string }> }).matches.map((match) => match.path)).toEqual([
      '/src/app.ts',
      '/src/util.js',
    ]);
    const oneFile = expectSuccess(await registry.call('search_code', { pattern: 'load', directory: 'docs/readme.md' }));
    expect(oneFile.data).toMatchObject({ total_matches: 1, files_searched: 1 });
  });

  it('filters by file extension, with or without the dot', async () => {
    const registry = registryFor();
    for (const extensions of [['.ts'], ['ts'], ['.TS']]) {
      const { data } = expectSuccess(
        await registry.call('search_code', { pattern: 'load', file_extensions: extensions }),
      );
      expect((data as { matches: Array<{ path: string }> }).matches.map((match) => match.path)).toEqual([
        '/src/app.ts',
      ]);
    }
  });

  it('matches case-sensitively by default and insensitively on request', async () => {
    const registry = registryFor();
    const exact = expectSuccess(await registry.call('search_code', { pattern: 'TODO' }));
    expect(exact.data).toMatchObject({ total_matches: 1 });
    const loose = expectSuccess(await registry.call('search_code', { pattern: 'TODO', case_sensitive: false }));
    expect(loose.data).toMatchObject({ total_matches: 3 });
  });

  it('stops at max_results and says so', async () => {
    const { data } = expectSuccess(
      await registryFor().call('search_code', { pattern: 'o', case_sensitive: false, max_results: 2 }),
    );
    expect(data).toMatchObject({ total_matches: 2, truncated: true });
  });

  it('returns context lines around each match when asked', async () => {
    const registry = registryFor();
    const withContext = expectSuccess(
      await registry.call('search_code', {
        pattern: 'export',
        directory: 'src',
        include_context: true,
        context_lines: 1,
      }),
    );
    expect((withContext.data as { matches: unknown[] }).matches).toEqual([
      {
        path: '/src/app.ts',
        line: 3,
        text: 'export function load() {}',
        before: ['// TODO: fix'],
        after: ['const todo = 1;'],
      },
    ]);
    const defaultContext = expectSuccess(
      await registry.call('search_code', { pattern: 'export', directory: 'src', include_context: true }),
    );
    expect((defaultContext.data as { matches: Array<{ before: string[]; after: string[] }> }).matches[0]).toMatchObject(
      {
        before: ['import x from "y";', '// TODO: fix'],
        after: ['const todo = 1;'],
      },
    );
    const noContext = expectSuccess(
      await registry.call('search_code', { pattern: 'export', directory: 'src', context_lines: 5 }),
    );
    expect((noContext.data as { matches: object[] }).matches[0]).not.toHaveProperty('before');
  });

  it('refuses an invalid regular expression with the reason and a hint', async () => {
    const failure = expectFailure(await registryFor().call('search_code', { pattern: 'load(' }));
    expect(failure.error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: "The pattern 'load(' is not a valid regular expression: Unterminated group.",
    });
    expect(failure.error.hint).toContain('backslash');
  });

  it('refuses a missing directory', async () => {
    const failure = expectFailure(await registryFor().call('search_code', { pattern: 'x', directory: 'nope' }));
    expect(failure.error).toMatchObject({ code: 'EXECUTION_FAILED', message: "'/nope' does not exist." });
  });

  it('stops a catastrophically backtracking pattern at the time limit while the process stays responsive', async () => {
    write('evil.txt', `${'a'.repeat(40)}!\n`);
    const registry = registryFor({ root, searchTimeoutMs: 300 });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const started = Date.now();
    const result = await registry.call('search_code', { pattern: '^(a+)+$', directory: 'evil.txt' });
    clearInterval(timer);
    const failure = expectFailure(result);
    expect(failure.error.code).toBe('EXECUTION_FAILED');
    expect(failure.error.message).toContain('time limit of 0.3 s');
    expect(failure.error.hint).toContain('(a+)+');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(ticks).toBeGreaterThan(3);
  });

  it('keeps the matches found before a limit stopped the search, and says why it stopped', async () => {
    write('z/1.txt', 'needle\n');
    write('z/2.txt', 'needle\n');
    write('z/3.txt', 'needle\n');
    const { data } = expectSuccess(
      await registryFor({ root, maxSearchFiles: 2 }).call('search_code', { pattern: 'needle', directory: 'z' }),
    );
    expect(data).toMatchObject({ total_matches: 2, stopped: 'file limit of 2 files reached' });
  });

  it('matches only the first maxLineLength characters of a line', async () => {
    write('long.txt', `${'x'.repeat(100)}needle\n`);
    const registry = registryFor({ root, maxLineLength: 50 });
    const { data } = expectSuccess(await registry.call('search_code', { pattern: 'needle', directory: 'long.txt' }));
    expect(data).toMatchObject({ total_matches: 0 });
  });
});

describe('a custom FileBackend', () => {
  /** The smallest in-memory backend: proves the interface is all the tools need. */
  function memoryBackend(): FileBackend & { files: Map<string, Uint8Array> } {
    const files = new Map<string, Uint8Array>();
    const entry = (path: string): FileEntry => ({ path, type: 'file', size: files.get(path)?.byteLength ?? 0 });
    return {
      files,
      async stat(path) {
        if (files.has(path)) return entry(path);
        const prefix = path === '/' ? '/' : `${path}/`;
        return [...files.keys()].some((key) => key.startsWith(prefix))
          ? { path, type: 'directory', size: 0 }
          : undefined;
      },
      async read(path, options = {}) {
        const content = files.get(path);
        if (content === undefined) throw new FileAccessError('NOT_FOUND', path, `'${path}' does not exist.`);
        const limit = options.maxBytes ?? Number.POSITIVE_INFINITY;
        if (content.byteLength > limit) {
          throw new FileAccessError('TOO_LARGE', path, 'too large', { size: { actual: content.byteLength, limit } });
        }
        return content;
      },
      async write(path, content) {
        const created = !files.has(path);
        files.set(path, content);
        return { created };
      },
      async list(path) {
        const prefix = path === '/' ? '/' : `${path}/`;
        return [...files.keys()]
          .filter((key) => key.startsWith(prefix) && !key.slice(prefix.length).includes('/'))
          .sort()
          .map(entry);
      },
      async *walk(path = '/') {
        const prefix = path === '/' ? '/' : `${path}/`;
        for (const key of [...files.keys()].sort()) if (key.startsWith(prefix)) yield entry(key);
      },
    };
  }

  it('runs every file tool over it with normalized virtual paths', async () => {
    const backend = memoryBackend();
    const registry = registryFor({ backend });
    expectSuccess(await registry.call('write_file', { path: 'notes\\todo.md', content: 'milk\nbread\n' }));
    expect([...backend.files.keys()]).toEqual(['/notes/todo.md']);
    expect(
      expectSuccess(await registry.call('read_file', { path: '/notes/./todo.md', start_line: 2 })).data,
    ).toMatchObject({
      content: 'bread\n',
    });
    expect(expectSuccess(await registry.call('list_files', { path: 'notes' })).data).toBe(
      'Contents of /notes:\n[FILE] /notes/todo.md (11 bytes)',
    );
    expect(expectSuccess(await registry.call('search_code', { pattern: 'bread' })).data).toMatchObject({
      matches: [{ path: '/notes/todo.md', line: 2, text: 'bread' }],
    });
    expect(expectFailure(await registry.call('read_file', { path: '../x' })).error.code).toBe('INVALID_ARGUMENTS');
  });

  it('needs a root or a backend', () => {
    expect(() => createFileTools({})).toThrow(
      'createFileTools needs a root folder (root) or a file backend (backend).',
    );
  });
});
