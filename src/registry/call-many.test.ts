import { describe, expect, it } from 'vitest';
import { defineTool } from '../core/define-tool.js';
import type { ToolResult } from '../core/tool-result.js';
import { ToolRegistry } from './tool-registry.js';

const tick = (ms = 2) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Records when each call starts and ends, and how many run at once (overall and per tool). */
function recorder() {
  const events: string[] = [];
  const active = new Map<string, number>();
  let activeTotal = 0;
  const peak = { total: 0, byTool: new Map<string, number>() };
  return {
    events,
    peak,
    async run(tool: string, label: string, ms = 2) {
      events.push(`start ${label}`);
      activeTotal++;
      active.set(tool, (active.get(tool) ?? 0) + 1);
      peak.total = Math.max(peak.total, activeTotal);
      peak.byTool.set(tool, Math.max(peak.byTool.get(tool) ?? 0, active.get(tool) ?? 0));
      await tick(ms);
      activeTotal--;
      active.set(tool, (active.get(tool) ?? 1) - 1);
      events.push(`end ${label}`);
      return label;
    },
  };
}

function registryFor(record: ReturnType<typeof recorder>, options: ConstructorParameters<typeof ToolRegistry>[0] = {}) {
  const registry = new ToolRegistry(options);
  const args = {
    type: 'object' as const,
    properties: { label: { type: 'string' as const }, ms: { type: 'integer' as const } },
  };
  for (const name of ['read_a', 'read_b']) {
    registry.register(
      defineTool<{ label: string; ms?: number }>({
        name,
        description: 'A read-only tool.',
        annotations: { readOnly: true },
        inputSchema: args,
        handler: ({ label, ms }) => record.run(name, label, ms),
      }),
    );
  }
  registry.register(
    defineTool<{ label: string; ms?: number }>({
      name: 'read_limited',
      description: 'A read-only tool that allows two calls at a time.',
      annotations: { readOnly: true },
      maxConcurrency: 2,
      inputSchema: args,
      handler: ({ label, ms }) => record.run('read_limited', label, ms),
    }),
  );
  registry.register(
    defineTool<{ label: string; ms?: number }>({
      name: 'write',
      description: 'A tool with side effects.',
      inputSchema: args,
      handler: ({ label, ms }) => record.run('write', label, ms),
    }),
  );
  return registry;
}

function happenedBefore(events: string[], first: string, second: string): boolean {
  const left = events.indexOf(first);
  const right = events.indexOf(second);
  return left >= 0 && right >= 0 && left < right;
}

const data = (results: ToolResult[]) =>
  results.map((result) => (result.status === 'success' ? result.data : result.status));

describe('callMany', () => {
  it('runs read-only tools concurrently', async () => {
    const record = recorder();
    const registry = registryFor(record);
    const results = await registry.callMany([
      { name: 'read_a', args: { label: 'a1' } },
      { name: 'read_b', args: { label: 'b1' } },
      { name: 'read_a', args: { label: 'a2' } },
    ]);
    expect(data(results)).toEqual(['a1', 'b1', 'a2']);
    expect(record.peak.total).toBe(3);
    // Every call started before any ended.
    expect(record.events.slice(0, 3).every((event) => event.startsWith('start'))).toBe(true);
  });

  it('runs mutators one at a time, in the order given, after everything before them', async () => {
    const record = recorder();
    const registry = registryFor(record);
    await registry.callMany([
      { name: 'read_a', args: { label: 'r1' } },
      { name: 'read_b', args: { label: 'r2' } },
      { name: 'write', args: { label: 'w1' } },
      { name: 'write', args: { label: 'w2', ms: 1 } },
      { name: 'read_a', args: { label: 'r3' } },
      { name: 'write', args: { label: 'w3' } },
    ]);
    expect(happenedBefore(record.events, 'start r2', 'end r1')).toBe(true);
    expect(record.events.slice(4)).toEqual([
      'start w1',
      'end w1',
      'start w2',
      'end w2',
      'start r3',
      'end r3',
      'start w3',
      'end w3',
    ]);
    expect(record.peak.byTool.get('write')).toBe(1);
  });

  it('returns results in the order of the calls, not of completion', async () => {
    const record = recorder();
    const registry = registryFor(record);
    const results = await registry.callMany([
      { id: 'call_1', name: 'read_a', args: { label: 'slow', ms: 30 } },
      { id: 'call_2', name: 'read_b', args: { label: 'fast', ms: 1 } },
      { id: 'call_3', name: 'read_a', args: { label: 'medium', ms: 10 } },
    ]);
    expect(happenedBefore(record.events, 'end fast', 'end slow')).toBe(true);
    expect(data(results)).toEqual(['slow', 'fast', 'medium']);
    expect(results.map((result) => result.metadata.toolCallId)).toEqual(['call_1', 'call_2', 'call_3']);
  });

  it("bounds a tool's concurrent calls by its maxConcurrency", async () => {
    const record = recorder();
    const registry = registryFor(record);
    const results = await registry.callMany([
      ...Array.from({ length: 6 }, (_, index) => ({ name: 'read_limited', args: { label: `l${index}` } })),
      { name: 'read_a', args: { label: 'a' } },
    ]);
    expect(data(results)).toEqual(['l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'a']);
    expect(record.peak.byTool.get('read_limited')).toBe(2);
    // The limit of one tool does not hold back the others.
    expect(record.peak.total).toBe(3);
  });

  it('bounds all concurrent calls by the registry maxConcurrency', async () => {
    const record = recorder();
    const registry = registryFor(record, { maxConcurrency: 3 });
    const calls = Array.from({ length: 10 }, (_, index) => ({
      name: index % 2 === 0 ? 'read_a' : 'read_b',
      args: { label: `c${index}` },
    }));
    const results = await registry.callMany(calls);
    expect(data(results)).toEqual(calls.map((call) => call.args.label));
    expect(record.peak.total).toBe(3);
  });

  it('returns TOOL_NOT_FOUND in place for an unknown tool', async () => {
    const record = recorder();
    const registry = registryFor(record);
    const results = await registry.callMany([
      { name: 'read_a', args: { label: 'a' } },
      { name: 'raed_a', args: { label: 'typo' } },
      { name: 'write', args: '{"label": "w"}' },
    ]);
    expect(data(results)).toEqual(['a', 'error', 'w']);
    const missing = results[1];
    expect(missing?.status === 'error' && missing.error.message).toBe(
      "Tool 'raed_a' not found. Did you mean 'read_a'? Available tools: read_a, read_b, read_limited, write.",
    );
  });

  it('returns failures in place without stopping the batch', async () => {
    const record = recorder();
    const registry = registryFor(record);
    const results = await registry.callMany([
      { name: 'write', args: '{bad json' },
      { name: 'write', args: { label: 'after' } },
    ]);
    expect(data(results)).toEqual(['error', 'after']);
  });

  it('returns EXECUTION_FAILED in place for a tool whose factory throws', async () => {
    const registry = new ToolRegistry();
    registry.registerFactory('broken', () => {
      throw new Error('no database connection');
    });
    registry.register(defineTool({ name: 'fine', description: 'Fine.', handler: () => 'fine' }));
    const results = await registry.callMany([{ name: 'broken' }, { name: 'fine' }]);
    expect(data(results)).toEqual(['error', 'fine']);
    const broken = results[0];
    expect(broken?.status === 'error' && broken.error.message).toBe(
      "Tool 'broken' could not be created: no database connection",
    );
  });

  it('cancels the calls of an aborted batch', async () => {
    const record = recorder();
    const registry = registryFor(record);
    const controller = new AbortController();
    controller.abort();
    const results = await registry.callMany(
      [
        { name: 'read_a', args: { label: 'a' } },
        { name: 'write', args: { label: 'w' } },
      ],
      { signal: controller.signal },
    );
    expect(data(results)).toEqual(['cancelled', 'cancelled']);
    expect(record.events).toEqual([]);
  });

  it('returns an empty list for no calls', async () => {
    expect(await new ToolRegistry().callMany([])).toEqual([]);
  });
});
