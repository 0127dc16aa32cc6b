import { describe, expect, it } from 'vitest';
import { defineTool } from '../core/define-tool.js';
import type { ToolResult } from '../core/tool-result.js';
import type { BatchCall } from './call-many.js';
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

describe('callMany with entries that are not calls', () => {
  const messages = (results: ToolResult[]) =>
    results.map((result) =>
      result.status === 'success'
        ? result.data
        : result.status === 'error'
          ? `${result.error.code}: ${result.error.message}`
          : result.status,
    );

  it('answers each entry that is not a call with INVALID_ARGUMENTS at its index and runs the others', async () => {
    const record = recorder();
    const registry = registryFor(record);
    const sparse: unknown[] = [{ name: 'read_a', args: { label: 'first' } }];
    sparse[2] = { name: 'write', args: { label: 'last' } };
    const calls = [
      null,
      ...sparse,
      7,
      'read_a',
      ['read_a'],
      {},
      { name: 5 },
      { name: 'read_b', id: 9 },
      () => 'read_a',
    ] as unknown as BatchCall[];
    const results = await registry.callMany(calls);
    expect(results).toHaveLength(calls.length);
    expect(messages(results)).toEqual([
      'INVALID_ARGUMENTS: Call 0 must be an object with a tool name, got null.',
      'first',
      'INVALID_ARGUMENTS: Call 2 must be an object with a tool name, got nothing.',
      'last',
      'INVALID_ARGUMENTS: Call 4 must be an object with a tool name, got 7.',
      'INVALID_ARGUMENTS: Call 5 must be an object with a tool name, got "read_a".',
      'INVALID_ARGUMENTS: Call 6 must be an object with a tool name, got an array.',
      'INVALID_ARGUMENTS: Call 7 must be an object with a tool name, got an object without a string name.',
      'INVALID_ARGUMENTS: Call 8 must be an object with a tool name, got the name 5.',
      'INVALID_ARGUMENTS: Call 9 has the id 9; an id must be a string.',
      'INVALID_ARGUMENTS: Call 10 must be an object with a tool name, got a function.',
    ]);
    const first = results[0];
    expect(first?.status === 'error' && first.error.hint).toBe(
      "Pass an array of calls, each { name: 'tool_name', args: {...}, id?: 'call_id' }.",
    );
    expect(results.map((result) => result.metadata.tool)).toEqual([
      '',
      'read_a',
      '',
      'write',
      '',
      '',
      '',
      '',
      '',
      'read_b',
      '',
    ]);
    expect(record.events).toEqual(['start first', 'end first', 'start last', 'end last']);
  });

  it('answers entries whose properties throw when read, without calling their getters again', async () => {
    const registry = registryFor(recorder());
    let reads = 0;
    const throwingName = {
      get name(): string {
        reads++;
        throw new Error('no name here');
      },
    };
    const throwingProxy = new Proxy(
      {},
      {
        get() {
          throw new TypeError('trap');
        },
      },
    );
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const throwingArgs = {
      name: 'read_a',
      get args(): unknown {
        throw 'a string';
      },
    };
    const results = await registry.callMany([throwingName, throwingProxy, revoked, throwingArgs] as BatchCall[]);
    expect(messages(results)).toEqual([
      `INVALID_ARGUMENTS: Call 0 could not be read: reading its 'name' threw Error "no name here".`,
      `INVALID_ARGUMENTS: Call 1 could not be read: reading its 'name' threw TypeError "trap".`,
      `INVALID_ARGUMENTS: Call 2 could not be read: reading it threw TypeError "Cannot perform 'IsArray' on a proxy that has been revoked".`,
      `INVALID_ARGUMENTS: Call 3 could not be read: reading its 'args' threw "a string".`,
    ]);
    expect(reads).toBe(1);
  });

  it('answers an argument that is not an array with one INVALID_ARGUMENTS result', async () => {
    const registry = registryFor(recorder());
    for (const [calls, shown] of [
      [{ name: 'read_a', args: { label: 'x' } }, 'an object'],
      [null, 'null'],
      [undefined, 'nothing'],
      ['read_a', '"read_a"'],
    ] as const) {
      const results = await registry.callMany(calls as unknown as BatchCall[]);
      expect(messages(results)).toEqual([
        `INVALID_ARGUMENTS: callMany takes an array of calls such as [{ name: 'search', args: { query: 'x' } }], got ${shown}.`,
      ]);
      expect(results[0]?.metadata.tool).toBe('');
    }
  });

  it('answers an array whose length cannot be read with one INVALID_ARGUMENTS result', async () => {
    const registry = registryFor(recorder());
    const calls = new Proxy([], {
      get(target, key) {
        if (key === 'length') throw new RangeError('no length');
        return Reflect.get(target, key);
      },
    });
    expect(messages(await registry.callMany(calls))).toEqual([
      'INVALID_ARGUMENTS: callMany could not read its list of calls: RangeError "no length".',
    ]);
  });

  it('passes entries that are not calls through the hooks, as failed calls', async () => {
    const seen: string[] = [];
    const registry = registryFor(recorder(), {
      hooks: [{ name: 'log', after: (call, result) => void seen.push(`${call.tool}:${result.status}`) }],
    });
    await registry.callMany([null, { name: 'read_a', args: { label: 'a' } }] as unknown as BatchCall[]);
    expect(seen.sort()).toEqual([':error', 'read_a:success']);
  });
});
