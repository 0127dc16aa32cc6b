// (d) The floor for registry.call: Map lookup + Ajv validate + try/catch + await of a sync handler + wrap.
import { ADD_ARGS, add, BAD_ARGS, createFloorDispatcher, runDispatchCase } from '../lib/add-tool.js';
import { check } from '../lib/case.js';

await runDispatchCase('floor', async () => {
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
