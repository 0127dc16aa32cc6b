import { isAbsolute, relative, sep } from 'node:path';

/**
 * A path for messages: relative to the working folder when it is inside it, absolute otherwise.
 *
 * @example
 * ```ts
 * displayPath(`${process.cwd()}/src/tools.ts`); // 'src/tools.ts'
 * displayPath('/tmp/tools.ts'); // '/tmp/tools.ts'
 * ```
 */
export function displayPath(file: string): string {
  const shown = relative(process.cwd(), file);
  return shown === '' || shown.startsWith('..') || isAbsolute(shown) ? file : shown;
}

/**
 * `to` relative to the folder `from`, with `/` separators and a leading `./` or `../` (an import path).
 *
 * @example
 * ```ts
 * importPath('/app/tools', '/app/dist/tools.js'); // '../dist/tools.js'
 * importPath('/app', '/app/tools.js'); // './tools.js'
 * ```
 */
export function importPath(from: string, to: string): string {
  const path = relative(from, to);
  if (isAbsolute(path)) return path.split(sep).join('/');
  const posix = path.split(sep).join('/');
  return posix.startsWith('../') ? posix : `./${posix}`;
}
