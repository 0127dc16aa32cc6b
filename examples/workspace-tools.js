// The built-in file tools, confined to ./workspace. (A `builtins:` entry confines them to the folder of
// toolshed.yaml; this module picks another root.) toolshed.yaml lists this file under `tools:`, and
// every tool it exports is registered.
import { fileURLToPath } from 'node:url';
import { createBuiltins } from 'toolshed/builtins';

const root = fileURLToPath(new URL('./workspace/', import.meta.url));
const tools = new Map(
  createBuiltins({ files: { root }, only: ['read_file', 'list_files', 'search_code'] }).map((tool) => [
    tool.name,
    tool,
  ]),
);

export const readFile = tools.get('read_file');
export const listFiles = tools.get('list_files');
export const searchCode = tools.get('search_code');
