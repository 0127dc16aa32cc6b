// (e) registry.call again (sync handler, object arguments), in a process where LangChain's
// AsyncLocalStorage context is active.
import { ADD_ARGS, add, runDispatchCase } from '../lib/add-tool.js';
import { enableLangChainContext } from '../lib/langchain-context.js';
import { createAddRegistry, verifyAddRegistry } from '../lib/toolshed-add.js';

await runDispatchCase('toolshed-call-with-langchain', async () => {
  await enableLangChainContext();
  const registry = createAddRegistry({ handler: add });
  return {
    call: () => registry.call('add', ADD_ARGS),
    async: true,
    verify: () => verifyAddRegistry(registry, ADD_ARGS),
  };
});
