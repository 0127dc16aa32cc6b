// (i) JSON.parse of the model's argument text + the floor: the comparison for registry.call with JSON text.
import { ADD_ARGS_JSON, add, createFloorDispatcher, runDispatchCase } from '../lib/add-tool.js';
import { check } from '../lib/case.js';

await runDispatchCase('floor-json', async () => {
  const dispatch = createFloorDispatcher(add);
  return {
    call: () => dispatch('add', JSON.parse(ADD_ARGS_JSON)),
    async: true,
    verify: async () => {
      check((await dispatch('add', JSON.parse(ADD_ARGS_JSON))).data === 3, 'the floor did not return data 3');
      check(
        (await dispatch('add', JSON.parse('{"a":"x","b":2}'))).status === 'error',
        'the floor accepted bad JSON args',
      );
    },
  };
});
