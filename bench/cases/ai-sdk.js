// (j) Vercel AI SDK: tool({ inputSchema: jsonSchema(ADD_SCHEMA, { validate }) }) + safeValidateTypes + await execute.
// jsonSchema() without a `validate` function skips validation entirely, so the same Ajv validator as
// the floor is passed in: every path compared here validates.
import { safeValidateTypes } from '@ai-sdk/provider-utils';
import { jsonSchema, tool } from 'ai';
import {
  ADD_ARGS,
  ADD_DESCRIPTION,
  ADD_SCHEMA,
  add,
  BAD_ARGS,
  compileAddValidator,
  runDispatchCase,
} from '../lib/add-tool.js';
import { check } from '../lib/case.js';

await runDispatchCase('ai-sdk', async () => {
  const validate = compileAddValidator();
  const addTool = tool({
    description: ADD_DESCRIPTION,
    inputSchema: jsonSchema(ADD_SCHEMA, {
      validate: (value) =>
        validate(value)
          ? { success: true, value }
          : { success: false, error: new Error(JSON.stringify(validate.errors)) },
    }),
    execute: add,
  });
  const executeOptions = { toolCallId: 'call_1', messages: [] };
  /** @param {unknown} value */
  const callTool = async (value) => {
    const parsed = await safeValidateTypes({ value, schema: addTool.inputSchema });
    if (!parsed.success) return { error: parsed.error };
    return await addTool.execute(parsed.value, executeOptions);
  };
  return {
    call: () => callTool(ADD_ARGS),
    async: true,
    verify: async () => {
      check((await callTool(ADD_ARGS)) === 3, 'the AI SDK path did not return 3');
      check((await callTool(BAD_ARGS)).error !== undefined, 'the AI SDK path accepted BAD_ARGS');
    },
  };
});
