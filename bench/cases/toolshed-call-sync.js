// (e) registry.call('add', {a, b}): sync handler, JSON Schema inputSchema, object arguments.
import { ADD_ARGS, add, runDispatchCase } from '../lib/add-tool.js';
import { createAddRegistry, verifyAddRegistry } from '../lib/toolshed-add.js';

await runDispatchCase('toolshed-call-sync', async () => {
  const registry = createAddRegistry({ handler: add });
  return {
    call: () => registry.call('add', ADD_ARGS),
    async: true,
    verify: () => verifyAddRegistry(registry, ADD_ARGS),
  };
});
