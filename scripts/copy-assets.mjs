#!/usr/bin/env node
// Copies what tsc does not emit into dist/: the generated validators (plain JavaScript) and the
// sandbox's child-process entry scripts (.mjs files run by `node` directly).
import { cpSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
cpSync(join(root, 'src/schema/generated'), join(root, 'dist/schema/generated'), { recursive: true });
cpSync(join(root, 'src/sandbox'), join(root, 'dist/sandbox'), {
  recursive: true,
  filter: (source) => statSync(source).isDirectory() || source.endsWith('.mjs'),
});
