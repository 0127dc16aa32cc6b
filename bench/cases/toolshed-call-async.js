// (f) registry.call('add', {a, b}): async handler, JSON Schema inputSchema, object arguments.
import { ADD_ARGS, addAsync, runDispatchCase } from '../lib/add-tool.js';
import { createAddRegistry, verifyAddRegistry } from '../lib/toolshed-add.js';

await runDispatchCase('toolshed-call-async', async () => {
  const registry = createAddRegistry({ handler: addAsync });
  return {
    call: () => registry.call('add', ADD_ARGS),
    async: true,
    verify: () => verifyAddRegistry(registry, ADD_ARGS),
  };
});
