// node:fs with the one globSync form the conformance suite uses (`**/NAME` under a cwd). Only its
// `tier-check` command calls it; server runs merely need the import to resolve.
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';

export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd();
  const match = /^\*\*\/([^*?/[\]{}]+)$/.exec(pattern);
  if (match === null) throw new Error(`globSync shim supports only '**/NAME' patterns, got '${pattern}'.`);
  const name = match[1];
  const found = [];
  const walk = (relative) => {
    for (const entry of fs.readdirSync(path.join(cwd, relative), { withFileTypes: true })) {
      const child = relative === '' ? entry.name : path.join(relative, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.name === name) found.push(child);
    }
  };
  walk('');
  return found;
}
