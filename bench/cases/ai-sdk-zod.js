// (j') Vercel AI SDK with a zod inputSchema: tool({ inputSchema: z.object(...) }) + safeValidateTypes + await execute.
import { safeValidateTypes } from '@ai-sdk/provider-utils';
import { tool } from 'ai';
import { ADD_ARGS, ADD_DESCRIPTION, add, addZodSchema, BAD_ARGS, runDispatchCase } from '../lib/add-tool.js';
import { check } from '../lib/case.js';

await runDispatchCase('ai-sdk-zod', async () => {
  const addTool = tool({ description: ADD_DESCRIPTION, inputSchema: addZodSchema(), execute: add });
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
