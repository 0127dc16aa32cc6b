// (a) A direct sync call of the handler: the limit no dispatcher can beat.
import { ADD_ARGS, add, BAD_ARGS, runDispatchCase } from '../lib/add-tool.js';
import { check } from '../lib/case.js';

await runDispatchCase('direct-sync', async () => ({
  call: () => add(ADD_ARGS),
  async: false,
  verify: async () => {
    check(add(ADD_ARGS) === 3, 'add(ADD_ARGS) did not return 3');
    check(add(BAD_ARGS) === 'x2', 'a direct call does not validate, so BAD_ARGS concatenates');
  },
}));
