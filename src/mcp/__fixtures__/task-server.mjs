// A stdio MCP server whose tool runs only as an MCP task (execution.taskSupport 'required'), for the
// tests of tools proxied from another server:
// - `render_video` renders `frames` frames, one every 20 ms, in the background of its task, then
//   stores "rendered <frames> frames"; with TASK_LOG set it appends "created <taskId>" to that file
//   when the task starts and "cancelled <taskId>" when a tasks/cancel stopped it, so a test can
//   follow the task;
// - `ping` is an ordinary tool, run without a task.
import { appendFileSync } from 'node:fs';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const taskStore = new InMemoryTaskStore();
const server = new McpServer(
  { name: 'task-fixture', version: '1.0.0' },
  { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore },
);
server.registerTool('ping', { description: 'Answer pong.' }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
server.experimental.tasks.registerToolTask(
  'render_video',
  {
    description: 'Render a video, frame by frame.',
    inputSchema: { frames: z.number().int().min(1) },
    execution: { taskSupport: 'required' },
  },
  {
    async createTask({ frames }, { taskStore: tasks, taskRequestedTtl }) {
      const task = await tasks.createTask({ ttl: taskRequestedTtl ?? 60_000, pollInterval: 50 });
      if (process.env.TASK_LOG) appendFileSync(process.env.TASK_LOG, `created ${task.taskId}\n`);
      void (async () => {
        for (let frame = 0; frame < frames; frame++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          const now = await taskStore.getTask(task.taskId);
          if (now?.status === 'cancelled') {
            if (process.env.TASK_LOG) appendFileSync(process.env.TASK_LOG, `cancelled ${task.taskId}\n`);
            return;
          }
        }
        await tasks.storeTaskResult(task.taskId, 'completed', {
          content: [{ type: 'text', text: `rendered ${frames} frames` }],
        });
      })();
      return { task };
    },
    getTask: (_args, { taskId, taskStore: tasks }) => tasks.getTask(taskId),
    getTaskResult: (_args, { taskId, taskStore: tasks }) => tasks.getTaskResult(taskId),
  },
);
await server.connect(new StdioServerTransport());
