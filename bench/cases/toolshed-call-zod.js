// (g) registry.call('add', {a, b}): sync handler, zod `input` (toolshed derives the JSON Schema).
import { ADD_ARGS, add, addZodSchema, runDispatchCase } from '../lib/add-tool.js';
import { createAddRegistry, verifyAddRegistry } from '../lib/toolshed-add.js';

await runDispatchCase('toolshed-call-zod', async () => {
  const registry = createAddRegistry({ handler: add, input: addZodSchema() });
  return {
    call: () => registry.call('add', ADD_ARGS),
    async: true,
    verify: () => verifyAddRegistry(registry, ADD_ARGS),
  };
});
