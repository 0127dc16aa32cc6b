// (h) registry.call('add', '{"a":1,"b":2}'): sync handler, arguments as the JSON text a model sends.
import { ADD_ARGS_JSON, add, runDispatchCase } from '../lib/add-tool.js';
import { createAddRegistry, verifyAddRegistry } from '../lib/toolshed-add.js';

await runDispatchCase('toolshed-call-json', async () => {
  const registry = createAddRegistry({ handler: add });
  return {
    call: () => registry.call('add', ADD_ARGS_JSON),
    async: true,
    verify: () => verifyAddRegistry(registry, ADD_ARGS_JSON),
  };
});
