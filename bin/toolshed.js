#!/usr/bin/env node
import module from 'node:module';

// Node >= 22.1 can keep compiled code between runs, which shortens every later start (tsc does the
// same); on older Nodes this is a no-op. The CLI is imported after it so its modules are cached too.
module.enableCompileCache?.();
const { main } = await import('../dist/cli/main.js');
await main();
