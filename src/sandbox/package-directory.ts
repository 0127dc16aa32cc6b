import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The folder of an installed package, as Node resolves it from `from` (a file path or URL): what a
 * sandbox child is allowed to read under the permission model.
 *
 * Works for packages that do not export their `package.json`: it resolves the main entry and walks
 * up to the folder whose `package.json` carries the name.
 *
 * @example
 * ```ts
 * packageDirectory('pyodide'); // '/app/node_modules/pyodide'
 * ```
 */
export function packageDirectory(name: string, from: string | URL = import.meta.url): string {
  const require = createRequire(from);
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    // Not exported; find it from the main entry.
  }
  let folder = dirname(require.resolve(name));
  for (;;) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === name) return folder;
      } catch {
        // An unreadable manifest on the way up: keep climbing.
      }
    }
    const parent = dirname(folder);
    if (parent === folder) throw new Error(`Cannot find the folder of package '${name}' from '${String(from)}'.`);
    folder = parent;
  }
}

/**
 * The version in a package folder's `package.json`, or `'unknown'`.
 *
 * @example
 * ```ts
 * packageVersion(packageDirectory('pyodide')); // '314.0.7'
 * ```
 */
export function packageVersion(folder: string): string {
  try {
    const version = (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version?: unknown }).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}
