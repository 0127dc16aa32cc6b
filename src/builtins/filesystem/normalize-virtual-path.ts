import { FileAccessError } from './file-access-error.js';

/** The longest path the file tools accept, in characters (Linux's `PATH_MAX`). */
export const MAX_PATH_LENGTH = 4096;

/**
 * Turn a path from a model into the canonical virtual path of a {@link FileBackend}: `/a/b/c.txt`.
 *
 * The root of the backend is `/`. A leading `/` means that root (as in a virtual filesystem), so
 * `/etc/passwd` names `etc/passwd` *inside* the root, never the host's file. `\` is read as `/`
 * (models trained on Windows paths send `..\\..\\x`), `.` and empty segments are dropped, and `..`
 * steps up one folder. Throws {@link FileAccessError}:
 * `OUTSIDE_ROOT` when `..` would climb above the root, `INVALID_PATH` for a NUL or control character,
 * a drive letter (`C:\\x`) or a path over {@link MAX_PATH_LENGTH} characters.
 *
 * @example
 * ```ts
 * normalizeVirtualPath('data/./inputs/../report.txt'); // '/data/report.txt'
 * normalizeVirtualPath('/'); // '/'
 * normalizeVirtualPath('../secrets'); // throws FileAccessError OUTSIDE_ROOT
 * ```
 */
export function normalizeVirtualPath(input: string): string {
  if (typeof input !== 'string') {
    throw new FileAccessError('INVALID_PATH', String(input), `The path must be a string, got ${typeof input}.`);
  }
  if (input.length > MAX_PATH_LENGTH) {
    throw new FileAccessError(
      'INVALID_PATH',
      input,
      `The path '${shorten(input)}' is ${input.length} characters long; the limit is ${MAX_PATH_LENGTH}.`,
    );
  }
  if (input.includes('\u0000')) {
    throw new FileAccessError('INVALID_PATH', input, `The path '${quote(input)}' contains a NUL byte.`);
  }
  if (hasControlCharacter(input)) {
    throw new FileAccessError('INVALID_PATH', input, `The path '${quote(input)}' contains a control character.`);
  }
  if (/^[A-Za-z]:/.test(input)) {
    throw new FileAccessError(
      'INVALID_PATH',
      input,
      `The path '${shorten(input)}' has a drive letter; paths are relative to the workspace root ('/').`,
    );
  }
  const segments: string[] = [];
  for (const segment of input.replaceAll('\\', '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) {
        throw new FileAccessError(
          'OUTSIDE_ROOT',
          input,
          `The path '${shorten(input)}' leads outside the workspace root; '..' cannot climb above '/'.`,
        );
      }
      segments.pop();
      continue;
    }
    segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/**
 * The segments of a normalized virtual path (`[]` for `/`).
 *
 * @example
 * ```ts
 * virtualSegments('/a/b.txt'); // ['a', 'b.txt']
 * ```
 */
export function virtualSegments(path: string): string[] {
  return path === '/' ? [] : path.slice(1).split('/');
}

/**
 * Join a normalized virtual folder path and a child name.
 *
 * @example
 * ```ts
 * joinVirtual('/', 'a'); // '/a'
 * joinVirtual('/a', 'b'); // '/a/b'
 * ```
 */
export function joinVirtual(directory: string, name: string): string {
  return directory === '/' ? `/${name}` : `${directory}/${name}`;
}

function shorten(path: string): string {
  return path.length > 80 ? `${path.slice(0, 60)}...${path.slice(-12)}` : path;
}

function quote(path: string): string {
  return shorten(JSON.stringify(path).slice(1, -1));
}

/**
 * True when `text` holds a C0 control character or DEL: legal in POSIX names, but they only show up in
 * paths by mistake or by attack, and they would break the one-entry-per-line listing format.
 *
 * @example
 * ```ts
 * hasControlCharacter('a\nb'); // true
 * ```
 */
export function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
