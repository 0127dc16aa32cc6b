// (k) OpenAI Agents JS: tool({ parameters: zod }).invoke(runContext, jsonText), as the runner calls it.
import { RunContext, tool } from '@openai/agents';
import { ADD_ARGS_JSON, ADD_DESCRIPTION, add, addZodSchema, runDispatchCase } from '../lib/add-tool.js';
import { check } from '../lib/case.js';

await runDispatchCase('openai-agents', async () => {
  const addTool = tool({ name: 'add', description: ADD_DESCRIPTION, parameters: addZodSchema(), execute: add });
  // One context per agent run, reused across its tool calls, as Runner does.
  const runContext = new RunContext({});
  return {
    call: () => addTool.invoke(runContext, ADD_ARGS_JSON),
    async: true,
    verify: async () => {
      const result = await addTool.invoke(runContext, ADD_ARGS_JSON);
      check(String(result) === '3', `invoke returned ${JSON.stringify(result)}`);
      const rejected = await addTool.invoke(runContext, '{"a":"x","b":2}');
      check(String(rejected) !== 'x2', `invoke ran the handler on bad arguments: ${JSON.stringify(rejected)}`);
    },
  };
});
