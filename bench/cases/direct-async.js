// (b) A direct call of an async handler, awaited: the cost of one `await` on this machine.
import { ADD_ARGS, addAsync, runDispatchCase } from '../lib/add-tool.js';
import { check } from '../lib/case.js';

await runDispatchCase('direct-async', async () => ({
  call: () => addAsync(ADD_ARGS),
  async: true,
  verify: async () => check((await addAsync(ADD_ARGS)) === 3, 'addAsync(ADD_ARGS) did not resolve to 3'),
}));
