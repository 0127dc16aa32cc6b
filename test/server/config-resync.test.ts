import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltins } from '../../src/builtins/index.js';
import type { LoadedTools } from '../../src/cli/load-registry.js';
import { servedConfigOf } from '../../src/cli/serve/served-config-of.js';
import { createServer } from '../../src/server/index.js';
import type { ToolshedStore } from '../../src/store/index.js';
import { loadServeTools, postgresHarness, type ServerStoreHarness, sqliteHarness } from './server-harness.js';

/** A configuration folder with YAML tools named `tools`, an agent using `agentTools`, and the calculator. */
function writeConfig(folder: string, tools: readonly string[], agentTools: readonly string[]): string {
  mkdirSync(join(folder, 'tools'), { recursive: true });
  writeFileSync(join(folder, 'tools', 'handlers.js'), 'export const echo = ({ text }) => text;\n');
  for (const name of tools) {
    writeFileSync(
      join(folder, 'tools', `${name}.yaml`),
      `name: ${name}\ndescription: The ${name} tool echoes a text.\nparameters:\n  type: object\n  properties:\n    text: { type: string }\nhandler: ./handlers.js#echo\n`,
    );
  }
  const file = join(folder, 'toolshed.yaml');
  writeFileSync(
    file,
    `tools: [./tools]\nbuiltins: [calculator]\nagents:\n  - id: synced\n    tools: [${agentTools.join(', ')}]\n`,
  );
  return file;
}

function nextListChanged(client: Client): Promise<void> {
  return new Promise((resolve) => {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
  });
}

describe.each([sqliteHarness(), postgresHarness()] as ServerStoreHarness[])(
  'a configuration that changed between two starts ($dialect)',
  (harness) => {
    const folders: string[] = [];
    const loaded: LoadedTools[] = [];
    const apps: FastifyInstance[] = [];
    const stores: ToolshedStore[] = [];
    let first: ToolshedStore;

    beforeAll(async () => {
      first = await harness.open();
      stores.push(first);
      await first.migrate();
      await first.tools.upsertBuiltins(createBuiltins());
    }, 30_000);

    afterAll(async () => {
      for (const app of apps) await app.close();
      for (const each of loaded) await each.close();
      for (const store of new Set(stores)) await store.close();
      await harness.teardown();
      for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    }, 30_000);

    /** Serve a configuration to workspace `default`, as `toolshed serve --config` does. */
    async function serve(store: ToolshedStore, tools: string[], agentTools: string[]) {
      const folder = mkdtempSync(join(tmpdir(), 'toolshed-resync-'));
      folders.push(folder);
      const config = await loadServeTools(writeConfig(folder, tools, agentTools), folder);
      loaded.push(config);
      const served = servedConfigOf(config, 'default', []);
      const app = createServer({ store, webCatalog: false, builtins: false, ...(served ? { config: served } : {}) });
      apps.push(app);
      await app.listen({ host: '127.0.0.1', port: 0 });
      return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    }

    it('prunes the dropped tool and adds the new one, keeps other sources, and tells the open sessions', async () => {
      const before = await serve(first, ['keep_me', 'drop_me'], ['keep_me', 'drop_me']);
      const { token } = await first.tokens.create('default', { name: 'resync' });
      const headers = { authorization: `Bearer ${token}`, 'x-workspace-id': 'default' };
      // Rows of other sources: a tool and an agent created through the API.
      await first.tools.createWorkspaceTool('default', {
        id: 'own_api',
        description: 'A tool the workspace made.',
        parametersSchema: { type: 'object', properties: {} },
        handlerKey: 'http',
        config: {
          id: 'own_api',
          type: 'rest_api',
          description: 'A tool the workspace made.',
          endpoint: 'https://api.example.com/x',
          method: 'GET',
        },
      });
      const ownBefore = await first.tools.get('default', 'own_api');
      const manual = await first.agents.create('default', { id: 'manual', name: 'Manual' });
      await first.attachments.attach('default', manual.id, 'drop_me');

      const connect = async (path: string) => {
        const client = new Client({ name: 'toolshed-resync', version: '1.0.0' });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(path, before), {
            requestInit: { headers: { authorization: headers.authorization } },
          }),
        );
        return client;
      };
      const whole = await connect('/mcp');
      const agent = await connect('/mcp/agents/synced');
      const manualSession = await connect('/mcp/agents/manual');
      try {
        expect((await agent.listTools()).tools.map((tool) => tool.name)).toEqual(['drop_me', 'keep_me']);
        const told = [nextListChanged(whole), nextListChanged(agent), nextListChanged(manualSession)];

        // The next start (another process on PostgreSQL; the same process on SQLite, whose changes
        // reach only its own listeners) serves the changed configuration.
        const second = harness.dialect === 'postgres' ? await harness.reopen() : first;
        stores.push(second);
        const after = await serve(second, ['keep_me', 'add_me'], ['keep_me', 'add_me']);
        await Promise.all(told);

        const listed = await fetch(`${after}/api/tools`, { headers });
        const rows = ((await listed.json()) as { tools: Array<{ id: string; source: string }> }).tools;
        expect(rows.map((row) => `${row.id}:${row.source}`)).toEqual([
          'add_me:config',
          'calculator:builtin',
          'keep_me:config',
          'own_api:api',
        ]);
        expect(await first.tools.get('default', 'own_api')).toEqual(ownBefore);
        // The API agent lost the pruned tool and does not fall back to the default set.
        expect(await first.attachments.listAttachments('default', 'manual')).toEqual({
          agentId: 'manual',
          fallback: false,
          tools: [],
        });
        expect((await manualSession.listTools()).tools).toEqual([]);
        expect((await agent.listTools()).tools.map((tool) => tool.name)).toEqual(['keep_me']);
        expect((await whole.listTools()).tools.map((tool) => tool.name)).not.toContain('drop_me');
        const synced = await fetch(`${after}/api/agents/synced/tools`, { headers });
        const attached = (await synced.json()) as { tools: Array<{ id: string }> };
        expect(attached.tools.map((tool) => tool.id)).toEqual(['add_me', 'keep_me']);
      } finally {
        await Promise.all([whole.close(), agent.close(), manualSession.close()]);
      }
    }, 60_000);

    it('lists a configuration tool as unavailable on a server that does not serve its configuration, and a call says why', async () => {
      const store = await harness.reopen();
      stores.push(store);
      const app = createServer({ store, webCatalog: false, builtins: false });
      apps.push(app);
      await app.listen({ host: '127.0.0.1', port: 0 });
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const { token } = await store.tokens.create('default', { name: 'plain' });
      const headers = {
        authorization: `Bearer ${token}`,
        'x-workspace-id': 'default',
        'content-type': 'application/json',
      };
      const listed = (await (await fetch(`${base}/api/tools`, { headers })).json()) as {
        tools: Array<{ id: string; available: boolean; unavailable_reason?: string }>;
      };
      const keep = listed.tools.find((tool) => tool.id === 'keep_me');
      expect(keep).toMatchObject({ available: false });
      expect(keep?.unavailable_reason).toMatch(
        /^Tool 'keep_me' is defined in .*toolshed\.yaml, which this server does not serve \(or no longer defines it\); serve that configuration \(toolshed serve --config .*toolshed\.yaml\) to run it\.$/,
      );
      expect(listed.tools.find((tool) => tool.id === 'calculator')).toMatchObject({ available: true });
      const call = await fetch(`${base}/api/tools/keep_me/call`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ arguments: { text: 'hi' } }),
      });
      expect(call.status).toBe(200);
      const result = (await call.json()) as { status: string; error: { code: string; message: string } };
      expect(result).toMatchObject({ status: 'error', error: { code: 'EXECUTION_FAILED' } });
      expect(result.error.message).toBe(keep?.unavailable_reason);
      // MCP lists only what it can run.
      const client = new Client({ name: 'toolshed-unavailable', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL('/mcp', base), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      try {
        const names = (await client.listTools()).tools.map((tool) => tool.name);
        expect(names).toContain('calculator');
        expect(names).not.toContain('keep_me');
      } finally {
        await client.close();
      }
    }, 60_000);

    it('keeps the file tools of a configuration without workspace: in the database, one store for all four', async () => {
      const folder = mkdtempSync(join(tmpdir(), 'toolshed-files-'));
      folders.push(folder);
      const file = join(folder, 'toolshed.yaml');
      writeFileSync(file, 'builtins: [read_file, write_file, list_files, search_code]\n');
      const config = await loadServeTools(file, folder);
      loaded.push(config);
      const store = await harness.reopen();
      stores.push(store);
      await store.workspaces.create({ id: 'files', name: 'Files' });
      const served = servedConfigOf(config, 'files', []);
      const app = createServer({ store, webCatalog: false, builtins: false, ...(served ? { config: served } : {}) });
      apps.push(app);
      await app.listen({ host: '127.0.0.1', port: 0 });
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const { token } = await store.tokens.create('files', { name: 'files' });
      const headers = {
        authorization: `Bearer ${token}`,
        'x-workspace-id': 'files',
        'content-type': 'application/json',
      };
      const call = async (tool: string, args: Record<string, unknown>) => {
        const response = await fetch(`${base}/api/tools/${tool}/call`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ arguments: args }),
        });
        return JSON.stringify(await response.json());
      };
      expect(await call('write_file', { path: '/notes/plan.md', content: 'RESTOCK on Friday' })).toContain(
        '"status":"success"',
      );
      expect(await call('read_file', { path: '/notes/plan.md' })).toContain('RESTOCK on Friday');
      expect(await call('list_files', { path: '/notes' })).toContain('plan.md');
      expect(await call('search_code', { pattern: 'RESTOCK' })).toContain('/notes/plan.md');
      // In the database, not beside the configuration file.
      expect(readdirSync(folder).sort()).toEqual(['toolshed.yaml']);
      expect(new TextDecoder().decode(await store.files('files').read('/notes/plan.md'))).toBe('RESTOCK on Friday');
    }, 60_000);
  },
);
