// (d) the floor again, in a process where LangChain's AsyncLocalStorage context is active.
import { ADD_ARGS, add, BAD_ARGS, createFloorDispatcher, runDispatchCase } from '../lib/add-tool.js';
import { check } from '../lib/case.js';
import { enableLangChainContext } from '../lib/langchain-context.js';

await runDispatchCase('floor-with-langchain', async () => {
  await enableLangChainContext();
  const dispatch = createFloorDispatcher(add);
  return {
    call: () => dispatch('add', ADD_ARGS),
    async: true,
    verify: async () => {
      check((await dispatch('add', ADD_ARGS)).data === 3, 'the floor did not return data 3');
      check((await dispatch('add', BAD_ARGS)).status === 'error', 'the floor accepted BAD_ARGS');
    },
  };
});
