import { readFileSync } from 'node:fs';

let cached: string | undefined;

/**
 * toolshed's own version, from its `package.json` (read once, then kept): what `toolshed --version`
 * prints, what the MCP server reports in `initialize` and what traces carry as `service.version`.
 * `'0.0.0'` when the file cannot be read or has no version.
 *
 * @example
 * ```ts
 * toolshedVersion(); // '0.4.0'
 * ```
 */
export function toolshedVersion(): string {
  if (cached !== undefined) return cached;
  try {
    // src/registry and dist/registry are both two levels below the package root (the CLI bundle keeps
    // this module's own location for import.meta.url).
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    cached = typeof manifest.version === 'string' ? manifest.version : '0.0.0';
  } catch {
    cached = '0.0.0';
  }
  return cached;
}
