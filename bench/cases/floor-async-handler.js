// (d') The floor with an async handler: the fair comparison for registry.call with an async handler.
import { ADD_ARGS, addAsync, BAD_ARGS, createFloorDispatcher, runDispatchCase } from '../lib/add-tool.js';
import { check } from '../lib/case.js';

await runDispatchCase('floor-async-handler', async () => {
  const dispatch = createFloorDispatcher(addAsync);
  return {
    call: () => dispatch('add', ADD_ARGS),
    async: true,
    verify: async () => {
      check((await dispatch('add', ADD_ARGS)).data === 3, 'the floor did not return data 3');
      check((await dispatch('add', BAD_ARGS)).status === 'error', 'the floor accepted BAD_ARGS');
    },
  };
});
