import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { ToolshedStore } from '../../src/store/index.js';
import { databaseSnapshot } from './database-snapshot.js';
import { createTestWorkspace, openHostileServer, postgresHarness, sqliteHarness } from './server-harness.js';

// GET /api/tasks/:id and GET /api/tasks: a workspace sees its own MCP tasks and nothing of another's;
// malformed, oversized and hostile ids and queries get the exact error and never a 5xx. A REST tool
// declares execution.task_support, and the tool view and /mcp list it the same way.

for (const harness of [sqliteHarness(), postgresHarness()]) {
  describe(`MCP tasks over REST on ${harness.dialect}`, () => {
    let store: ToolshedStore;
    let app: FastifyInstance;
    let headers: Record<string, string>;
    let otherHeaders: Record<string, string>;
    const logLines: string[] = [];

    const newTask = (workspaceId: string, extra: Record<string, unknown> = {}, now = Date.now()) =>
      store.mcpTasks.create(
        {
          workspaceId,
          tool: 'calculator',
          ttlMs: 60_000,
          pollIntervalMs: 1000,
          owner: 'srv_test',
          leaseExpiresAt: Date.now() + 60_000,
          ...extra,
        },
        now,
      );

    const get = (url: string, as: Record<string, string> = headers) => app.inject({ method: 'GET', url, headers: as });

    beforeAll(async () => {
      ({ store, app, headers } = await openHostileServer(harness, 'ws_tasks', logLines));
      const other = await createTestWorkspace(store, 'ws_tasks_other');
      otherHeaders = { authorization: `Bearer ${other.token}`, 'x-workspace-id': 'ws_tasks_other' };
    }, 30_000);

    afterAll(async () => {
      await app?.close();
      await store?.close();
      await harness.teardown();
    });

    it('shows a task of the workspace with its result, and lists its tasks newest first', async () => {
      const working = await newTask('ws_tasks', {}, Date.now() - 1000);
      const done = await newTask('ws_tasks', { agentId: 'research' });
      const result = { content: [{ type: 'text', text: '4' }] };
      await store.mcpTasks.finish('ws_tasks', done.id, { status: 'completed', result });
      const response = await get(`/api/tasks/${done.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        id: done.id,
        tool: 'calculator',
        agent_id: 'research',
        status: 'completed',
        status_message: null,
        created_at: new Date(done.createdAt).toISOString(),
        updated_at: expect.any(String),
        expires_at: new Date(done.expiresAt).toISOString(),
        ttl_ms: 60_000,
        poll_interval_ms: 1000,
        result,
      });
      const listed = (await get('/api/tasks?limit=1')).json() as {
        tasks: Array<Record<string, unknown>>;
        next: string;
      };
      expect(listed.tasks.map((task) => task.id)).toEqual([done.id]);
      expect(listed.tasks[0]).not.toHaveProperty('result');
      const rest = (await get(`/api/tasks?limit=1&cursor=${listed.next}`)).json() as { tasks: Array<{ id: string }> };
      expect(rest.tasks.map((task) => task.id)).toEqual([working.id]);
      const ofAgent = (await get('/api/tasks?agent_id=research')).json() as {
        tasks: Array<{ id: string }>;
        next: null;
      };
      expect(ofAgent).toEqual({ tasks: [expect.objectContaining({ id: done.id })], next: null });
      const ofDefault = (await get('/api/tasks?agent_id=')).json() as { tasks: Array<{ id: string }> };
      expect(ofDefault.tasks.map((task) => task.id)).toEqual([working.id]);
    });

    it("answers another workspace's task exactly like an unknown one, and lists none of it", async () => {
      const mine = await newTask('ws_tasks');
      const theirs = await get(`/api/tasks/${mine.id}`, otherHeaders);
      const unknown = await get('/api/tasks/task_000000000000000000000000', otherHeaders);
      expect(theirs.statusCode).toBe(404);
      expect(theirs.json()).toEqual({
        error: {
          code: 'NOT_FOUND',
          message: `Task '${mine.id}' does not exist in this workspace (or it expired).`,
        },
      });
      expect(unknown.statusCode).toBe(404);
      expect(Object.keys(unknown.json().error).sort()).toEqual(Object.keys(theirs.json().error).sort());
      expect(((await get('/api/tasks', otherHeaders)).json() as { tasks: unknown[] }).tasks).toEqual([]);
    });

    it.each([
      ['a malformed id', 'not-a-task', "Task 'not-a-task' does not exist in this workspace (or it expired)."],
      [
        'an injection attempt',
        "task_'%20or%201=1--",
        "Task 'task_' or 1=1--' does not exist in this workspace (or it expired).",
      ],
      ['a prototype name', '__proto__', "Task '__proto__' does not exist in this workspace (or it expired)."],
      [
        'an oversized id',
        'x'.repeat(100),
        `Task '${'x'.repeat(79)}…' does not exist in this workspace (or it expired).`,
      ],
    ])('answers %s with the same 404, writing nothing', async (_what, id, message) => {
      const before = await databaseSnapshot(store);
      const response = await get(`/api/tasks/${id}`);
      expect(response.statusCode).toBe(404);
      expect(response.json().error).toMatchObject({ code: 'NOT_FOUND', message });
      expect(await databaseSnapshot(store)).toEqual(before);
    });

    it("answers an id longer than any path segment with the router's 414, writing nothing", async () => {
      const before = await databaseSnapshot(store);
      const response = await get(`/api/tasks/${'x'.repeat(5000)}`);
      expect(response.statusCode).toBe(414);
      expect(response.json().error).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: 'A path segment of the URL is longer than 100 characters; no id is that long.',
      });
      expect(await databaseSnapshot(store)).toEqual(before);
    });

    it.each([
      ['limit=0', 'limit', "'limit' must be a whole number from 1 to 100, got '0'."],
      ['limit=1e9', 'limit', "'limit' must be a whole number from 1 to 100, got '1e9'."],
      ['limit=-1', 'limit', "'limit' must be a whole number from 1 to 100, got '-1'."],
      ['limit=1&limit=2', 'limit', "'limit' must be given once, as at most 200 characters, got an array."],
      ['cursor=bogus', 'cursor', "'cursor' was not handed out by this listing; start again without it."],
      [`cursor=${'a'.repeat(300)}`, 'cursor', expect.stringContaining("'cursor' must be given once")],
      ['status=working', 'status', "Unknown query parameter 'status'; allowed: agent_id, cursor, limit."],
    ])('refuses the listing query %s with a 400 naming the field', async (query, field, message) => {
      const response = await get(`/api/tasks?${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message, details: { field } });
    });

    it('needs a token: no task is shown without one', async () => {
      const task = await newTask('ws_tasks');
      expect((await app.inject({ method: 'GET', url: `/api/tasks/${task.id}` })).statusCode).toBe(401);
    });

    it("keeps a REST tool's execution.task_support, shows it in the tool view and lists it over MCP", async () => {
      const body = {
        id: 'slow_export',
        type: 'rest_api',
        description: 'Export the archive.',
        // A loopback address the service's guard refuses: the call fails without leaving the machine.
        endpoint: 'http://127.0.0.1:9/export',
        parameters: { type: 'object', properties: {} },
        execution: { task_support: 'required' },
      };
      const created = await app.inject({ method: 'POST', url: '/api/tools', headers, payload: body });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json()).toMatchObject({ id: 'slow_export', execution: { taskSupport: 'required' } });
      expect((await get('/api/tools/slow_export')).json()).toMatchObject({ execution: { taskSupport: 'required' } });
      expect((await get('/api/tools/calculator')).json()).not.toHaveProperty('execution');
      const patched = await app.inject({
        method: 'PATCH',
        url: '/api/tools/slow_export',
        headers,
        payload: { execution: { task_support: 'optional' } },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json()).toMatchObject({ execution: { taskSupport: 'optional' } });
      const refused = await app.inject({
        method: 'PATCH',
        url: '/api/tools/slow_export',
        headers,
        payload: { execution: { task_support: 'never' } },
      });
      expect(refused.statusCode).toBe(400);
      expect((await get('/api/tools/slow_export')).json()).toMatchObject({ execution: { taskSupport: 'optional' } });
      const back = await app.inject({
        method: 'PATCH',
        url: '/api/tools/slow_export',
        headers,
        payload: { execution: { task_support: 'required' } },
      });
      expect(back.statusCode).toBe(200);

      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address() as { port: number };
      const client = new Client({ name: 'task-routes-test', version: '1.0.0' });
      const workspaceTransport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${address.port}/mcp`), {
        requestInit: { headers: { authorization: headers.authorization as string } },
      });
      await client.connect(workspaceTransport);
      const attached = await app.inject({
        method: 'POST',
        url: '/api/agents/research/tools',
        headers,
        payload: { tool_id: 'slow_export' },
      });
      expect(attached.statusCode).toBe(201);
      const agentClient = new Client({ name: 'task-routes-test', version: '1.0.0' });
      // The task's last status goes out after its result: live to this client, or kept for its stream.
      const statuses: string[] = [];
      agentClient.fallbackNotificationHandler = async (notification) => {
        if (notification.method === 'notifications/tasks/status') statuses.push(JSON.stringify(notification.params));
      };
      const agentTransport = new StreamableHTTPClientTransport(
        new URL(`http://127.0.0.1:${address.port}/mcp/agents/research`),
        { requestInit: { headers: { authorization: headers.authorization as string } } },
      );
      await agentClient.connect(agentTransport);
      try {
        const listed = await client.listTools();
        expect(listed.tools.find((tool) => tool.name === 'slow_export')?.execution).toEqual({
          taskSupport: 'required',
        });
        // A task started in the agent's view is polled there, not on the workspace's /mcp.
        const created = await agentClient.request(
          { method: 'tools/call', params: { name: 'slow_export', arguments: {}, task: {} } },
          z.object({ task: z.object({ taskId: z.string() }) }),
        );
        const taskId = created.task.taskId;
        expect((await agentClient.experimental.tasks.getTask(taskId)).taskId).toBe(taskId);
        await expect(client.experimental.tasks.getTask(taskId)).rejects.toMatchObject({ code: -32602 });
        await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({ code: -32602 });
        expect((await get(`/api/tasks/${taskId}`)).json()).toMatchObject({ id: taskId, agent_id: 'research' });
        expect((await get(`/api/tasks/${taskId}`, otherHeaders)).statusCode).toBe(404);
        // The call ends (the endpoint is refused) and is in the call log like any call.
        const ended = await agentClient.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
        expect(ended.isError).toBe(true);
        const calls = (await get('/api/calls?tool_id=slow_export')).json() as { calls: Array<Record<string, unknown>> };
        expect(calls.calls).toEqual([expect.objectContaining({ agent_id: 'research', status: 'error' })]);
        // Its last status is sent (or kept) before this test ends, so no later test sees it written.
        await vi.waitFor(async () => {
          const kept = await store.db.selectFrom('mcp_stream_events').select('message').execute();
          const sent = [...statuses, ...kept.map((row) => row.message)];
          expect(sent.some((text) => text?.includes(taskId) && text.includes('failed'))).toBe(true);
        });
      } finally {
        // Ending the sessions drops what their streams kept, and whatever a dropped stream would
        // still keep, so no later test sees a write of this one.
        await workspaceTransport.terminateSession();
        await agentTransport.terminateSession();
        await client.close();
        await agentClient.close();
      }
    });

    it.each([
      [
        { task_support: 'sometimes' },
        'execution',
        `Invalid REST tool: 'execution.task_support' must be one of "forbidden", "optional", "required", got string "sometimes".`,
      ],
      [
        { taskSupport: 'optional' },
        'execution',
        "Invalid REST tool: unknown field 'execution.taskSupport' (did you mean 'execution.task_support'?); allowed fields of 'execution': task_support.",
      ],
      ['optional', 'execution', `Invalid REST tool: 'execution' must be an object, got string "optional".`],
    ])('refuses a REST tool with execution %j, writing nothing', async (execution, field, message) => {
      const before = await databaseSnapshot(store);
      const response = await app.inject({
        method: 'POST',
        url: '/api/tools',
        headers,
        payload: {
          id: 'bad_export',
          type: 'rest_api',
          description: 'Export.',
          endpoint: 'https://api.example.com/export',
          parameters: { type: 'object', properties: {} },
          execution,
        },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
      expect(response.json().error.message).toBe(message);
      expect(await databaseSnapshot(store)).toEqual(before);
    });

    it('refuses task settings the store cannot keep when the server is made', async () => {
      const { createServer } = await import('../../src/server/index.js');
      expect(() => createServer({ store, builtins: false, mcp: { tasks: { maxTtlMs: 30 * 86_400_000 } } })).toThrow(
        new TypeError('tasks.maxTtlMs (2592000000) is above the 604800000 ms the store keeps a task; lower it.'),
      );
      expect(() => createServer({ store, builtins: false, mcp: { taskLeaseMs: 1 } })).toThrow(
        new TypeError('leaseMs must be a whole number of milliseconds of at least 3, got 1.'),
      );
    });

    it('never answered a 5xx', () => {
      expect(logLines.filter((line) => /"statusCode":5\d\d/.test(line))).toEqual([]);
    });
  });
}
