// (m) LangChain.js core: tool(fn, { schema: zod }).invoke({a, b}).
import { tool } from '@langchain/core/tools';
import { ADD_ARGS, ADD_DESCRIPTION, add, addZodSchema, BAD_ARGS, runDispatchCase } from '../lib/add-tool.js';
import { check } from '../lib/case.js';

await runDispatchCase('langchain', async () => {
  const addTool = tool(add, { name: 'add', description: ADD_DESCRIPTION, schema: addZodSchema() });
  return {
    call: () => addTool.invoke(ADD_ARGS),
    async: true,
    verify: async () => {
      check((await addTool.invoke(ADD_ARGS)) === 3, 'invoke did not return 3');
      const rejected = await addTool.invoke(BAD_ARGS).then(
        () => false,
        () => true,
      );
      check(rejected, 'invoke accepted BAD_ARGS');
    },
  };
});
