#!/usr/bin/env node
import module from 'node:module';

// Node >= 22.1 can keep compiled code between runs, which shortens every later start (tsc does the
// same); on older Nodes this is a no-op. The CLI is imported after it so its modules are cached too.
// dist/cli-bundle is the compiled CLI bundled into a few files (scripts/bundle-cli.mjs), which Node
// loads much faster than the hundreds of modules of dist/cli and the packages it imports.
module.enableCompileCache?.();
const { main } = await import('../dist/cli-bundle/main.js');
await main();
