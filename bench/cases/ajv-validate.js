// (c) Ajv (draft 2020-12) validate alone, on the arguments of `add`.
import { ADD_ARGS, BAD_ARGS, compileAddValidator, runDispatchCase } from '../lib/add-tool.js';
import { check } from '../lib/case.js';

await runDispatchCase('ajv-validate', async () => {
  const validate = compileAddValidator();
  return {
    call: () => validate(ADD_ARGS),
    async: false,
    verify: async () => {
      check(validate(ADD_ARGS) === true, 'Ajv rejected ADD_ARGS');
      check(validate(BAD_ARGS) === false, 'Ajv accepted BAD_ARGS');
    },
  };
});
