import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBuiltins } from '../builtins/index.js';
import { createStore, type ToolshedStore } from '../store/index.js';
import { CallLimits } from './call-limits.js';
import { CallQuotas } from './call-quotas.js';
import type { ServerContext } from './server-context.js';
import { ServerMetrics } from './server-metrics.js';
import { toolScopeOf } from './tool-scope.js';
import { WorkspaceRegistries } from './workspace-registries.js';

let store: ToolshedStore;
let context: ServerContext;

beforeEach(async () => {
  store = await createStore(':memory:');
  await store.migrate();
  await store.tools.upsertBuiltins(createBuiltins());
  await store.workspaces.create({ id: 'acme', name: 'Acme' });
  context = {
    store,
    registries: new WorkspaceRegistries({ store }),
    metrics: new ServerMetrics(),
    calls: new CallQuotas(),
    limits: new CallLimits(store),
    report: () => {},
    env: {},
  };
});

afterEach(() => store.close());

describe('toolScopeOf', () => {
  it('reuses a view while its tools and attachments are unchanged, and rebuilds it when they change', async () => {
    const agent = await store.agents.create('acme', { name: 'reader' });
    const fallback = await toolScopeOf(context, 'acme', agent.id);
    expect(fallback.names.has('calculator')).toBe(true);
    expect(await toolScopeOf(context, 'acme', agent.id)).toBe(fallback);

    await store.attachments.attach('acme', agent.id, 'read_file', { max_bytes: 64 });
    const attached = await toolScopeOf(context, 'acme', agent.id);
    expect(attached).not.toBe(fallback);
    expect([...attached.names]).toEqual(['read_file']);
    expect(attached.config).toEqual({ read_file: { max_bytes: 64 } });
    expect(await toolScopeOf(context, 'acme', agent.id)).toBe(attached);

    // Detaching the last tool leaves the agent with none: removing access never widens it.
    await store.attachments.detach('acme', agent.id, 'read_file');
    expect([...(await toolScopeOf(context, 'acme', agent.id)).names]).toEqual([]);
  });

  it("serves the workspace's chosen default set to the default view, and every tool to the whole view", async () => {
    await store.workspaces.setDefaultTools('acme', ['calculator']);
    expect([...(await toolScopeOf(context, 'acme', undefined, 'default')).names]).toEqual(['calculator']);
    expect((await toolScopeOf(context, 'acme')).names.has('read_file')).toBe(true);
  });

  it('rebuilds a workspace view once its registry was dropped', async () => {
    const before = await toolScopeOf(context, 'acme');
    expect(await toolScopeOf(context, 'acme')).toBe(before);
    context.registries.drop('acme');
    const after = await toolScopeOf(context, 'acme');
    expect(after).not.toBe(before);
    expect(after.registry).toBe(context.registries.peek('acme'));
  });
});
