import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { ToolRegistry } from '../registry/tool-registry.js';
import { canonicalJson, MemoryApprovalStore } from './approvals.js';
import { defineTool } from './define-tool.js';
import { ToolshedError } from './errors/toolshed-error.js';
import { type ToolPendingApproval, type ToolResult, toModelText } from './tool-result.js';

function expectPending(result: ToolResult): ToolPendingApproval {
  if (result.status !== 'pending_approval')
    throw new Error(`expected a pending approval, got ${JSON.stringify(result)}`);
  return result;
}

async function rejection(promise: Promise<unknown>): Promise<ToolshedError<string>> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ToolshedError.isInstance(error)) throw new Error(`expected a ToolshedError, got ${String(error)}`);
  return error;
}

function transferRegistry() {
  const handler = vi.fn((args: { to: string; amount: number; memo: string }) => `sent ${args.amount} to ${args.to}`);
  const registry = new ToolRegistry();
  registry.register(
    defineTool<{ to: string; amount: number; memo: string }>({
      name: 'transfer',
      description: 'Transfer money.',
      requiresApproval: true,
      inputSchema: {
        type: 'object',
        properties: { to: { type: 'string' }, amount: { type: 'number' }, memo: { type: 'string', default: '' } },
        required: ['to', 'amount'],
      },
      handler,
    }),
  );
  return { registry, handler };
}

describe('approvals', () => {
  it('returns pending_approval with an id and a canonical copy of the arguments instead of running', async () => {
    const { registry, handler } = transferRegistry();
    const result = expectPending(
      await registry.call('transfer', '{"to": "bob", "amount": 5}', { toolCallId: 'call_9' }),
    );
    expect(result.approval.id).toMatch(/^appr_[0-9a-f]{32}$/);
    expect(result.approval.arguments).toEqual({ amount: 5, memo: '', to: 'bob' });
    expect(Object.keys(result.approval.arguments as object)).toEqual(['amount', 'memo', 'to']);
    expect(result.metadata).toMatchObject({ tool: 'transfer', toolCallId: 'call_9' });
    expect(toModelText(result)).toBe(
      `Approval required: the call to 'transfer' is waiting for a person to approve it (approval id ${result.approval.id}).`,
    );
    expect(handler).not.toHaveBeenCalled();
    expect(await registry.approvals.get(result.approval.id)).toMatchObject({
      id: result.approval.id,
      tool: 'transfer',
      arguments: '{"amount":5,"memo":"","to":"bob"}',
      toolCallId: 'call_9',
    });
  });

  it('runs an approved call exactly once, with the stored arguments', async () => {
    const { registry, handler } = transferRegistry();
    const { approval } = expectPending(await registry.call('transfer', { to: 'bob', amount: 5 }));
    const result = await registry.resolveApproval(approval.id, 'approve');
    expect(result.status === 'success' && result.data).toBe('sent 5 to bob');
    expect(result.metadata).toMatchObject({ tool: 'transfer', approvalId: approval.id });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(handler.mock.calls[0]?.[0]).toEqual({ amount: 5, memo: '', to: 'bob' });
  });

  it('refuses a replayed approval with APPROVAL_INVALID', async () => {
    const { registry, handler } = transferRegistry();
    const { approval } = expectPending(await registry.call('transfer', { to: 'bob', amount: 5 }));
    await registry.resolveApproval(approval.id, 'approve');
    const error = await rejection(registry.resolveApproval(approval.id, 'approve'));
    expect(error.code).toBe('APPROVAL_INVALID');
    expect(error.message).toBe(`Approval '${approval.id}' is unknown or was already decided.`);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('runs the call once when the same approval arrives twice at the same time', async () => {
    const { registry, handler } = transferRegistry();
    const { approval } = expectPending(await registry.call('transfer', { to: 'bob', amount: 5 }));
    const outcomes = await Promise.allSettled([
      registry.resolveApproval(approval.id, 'approve'),
      registry.resolveApproval(approval.id, 'approve'),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('refuses an approval given for tampered arguments and keeps it pending', async () => {
    const { registry, handler } = transferRegistry();
    const { approval } = expectPending(await registry.call('transfer', { to: 'bob', amount: 5 }));
    const error = await rejection(
      registry.resolveApproval(approval.id, 'approve', { expectedArguments: { to: 'mallory', amount: 5, memo: '' } }),
    );
    expect(error.code).toBe('APPROVAL_INVALID');
    expect(error.message).toBe(
      `Approval '${approval.id}' was given for other arguments than the stored call; refusing to run it.`,
    );
    expect(handler).not.toHaveBeenCalled();
    // The arguments the approver saw, in any key order, still approve it.
    const result = await registry.resolveApproval(approval.id, 'approve', {
      expectedArguments: { to: 'bob', memo: '', amount: 5 },
    });
    expect(result.status).toBe('success');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('returns CANCELLED for a denied approval and never runs it', async () => {
    const { registry, handler } = transferRegistry();
    const { approval } = expectPending(await registry.call('transfer', { to: 'bob', amount: 5 }));
    const result = await registry.resolveApproval(approval.id, 'deny');
    expect(result.status).toBe('cancelled');
    expect(result.status === 'cancelled' && result.error).toEqual({
      code: 'CANCELLED',
      message: "The call to 'transfer' was denied by the approver; do not retry it.",
      retryable: false,
    });
    expect(result.metadata).toMatchObject({ tool: 'transfer', approvalId: approval.id });
    expect((await rejection(registry.resolveApproval(approval.id, 'approve'))).code).toBe('APPROVAL_INVALID');
    expect(handler).not.toHaveBeenCalled();
  });

  it('refuses an unknown approval id', async () => {
    const { registry } = transferRegistry();
    const error = await rejection(registry.resolveApproval('appr_nope', 'approve'));
    expect(error.message).toBe("Approval 'appr_nope' is unknown or was already decided.");
  });

  it('validates the arguments before asking for approval', async () => {
    const { registry } = transferRegistry();
    const result = await registry.call('transfer', { to: 'bob' });
    expect(result.status === 'error' && result.error.code).toBe('INVALID_ARGUMENTS');
  });

  it('asks only when a predicate over the arguments says so', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool<{ amount: number }>({
        name: 'pay',
        description: 'Pay.',
        requiresApproval: ({ amount }) => amount > 100,
        inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
        handler: ({ amount }) => `paid ${amount}`,
      }),
    );
    expect((await registry.call('pay', { amount: 10 })).status).toBe('success');
    expect((await registry.call('pay', { amount: 1000 })).status).toBe('pending_approval');
  });

  it('asks when the registry approval rule says so', async () => {
    const registry = new ToolRegistry({ approvalRule: (tool) => tool.annotations.destructive === true });
    registry.register(
      defineTool({ name: 'drop_table', description: 'Drop.', annotations: { destructive: true }, handler: () => 1 }),
    );
    registry.register(
      defineTool({ name: 'select', description: 'Select.', annotations: { readOnly: true }, handler: () => 2 }),
    );
    expect((await registry.call('drop_table')).status).toBe('pending_approval');
    expect((await registry.call('select')).status).toBe('success');
  });

  it('returns TOOL_NOT_FOUND for an approved call whose tool was removed', async () => {
    const { registry } = transferRegistry();
    const { approval } = expectPending(await registry.call('transfer', { to: 'bob', amount: 5 }));
    registry.unregister('transfer');
    const result = await registry.resolveApproval(approval.id, 'approve');
    expect(result.status === 'error' && result.error.message).toBe(
      "Tool 'transfer' was removed before its approved call could run.",
    );
  });
});

describe('canonicalJson', () => {
  it('sorts object keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 3 } })).toBe('{"a":{"c":3,"d":[{"y":2,"z":1}]},"b":1}');
  });

  it('gives equal text for equal objects written in different orders', () => {
    expect(canonicalJson({ to: 'bob', amount: 5 })).toBe(canonicalJson({ amount: 5, to: 'bob' }));
  });

  // What canonicalJson has always written: JSON.stringify with a replacer that sorts each object.
  const reference = (value: unknown) =>
    JSON.stringify(value, (_key, child: unknown) => {
      if (child === null || typeof child !== 'object' || Array.isArray(child)) return child;
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(child).sort()) sorted[key] = (child as Record<string, unknown>)[key];
      return sorted;
    });

  it('writes any JSON value, parsed or built, as the sorting replacer does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
        expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(reference(value));
      }),
      { numRuns: 500 },
    );
  });

  it('writes values JSON has no plain form for as JSON.stringify does', () => {
    fc.assert(
      fc.property(fc.anything({ withDate: true, withMap: true, withSet: true, withNullPrototype: true }), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 500 },
    );
    const cases: unknown[] = [
      { 10: 'ten', 9: 'nine', b: 1, a: 2 },
      JSON.parse('{"__proto__": {"x": 1}, "a": 1}'),
      JSON.parse('{"__proto__": 5}'),
      { when: new Date(0), toJSON: undefined },
      { custom: { toJSON: () => ({ z: 1, y: 2 }) } },
      [undefined, () => 1, Symbol('s'), Number.NaN, -0, Number.POSITIVE_INFINITY],
      { skipped: undefined, fn: () => 1, kept: null },
      '\ud800 lone surrogate',
    ];
    for (const value of cases) expect(canonicalJson(value)).toBe(reference(value));
    let deep: unknown = 1;
    for (let level = 0; level < 200; level++) deep = { level, next: [deep] };
    expect(canonicalJson(deep)).toBe(reference(deep));
  });

  it('throws for a cycle and a BigInt, as it always has', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(() => reference(cycle)).toThrow(RangeError);
    expect(() => canonicalJson(cycle)).toThrow(RangeError);
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
  });
});

describe('MemoryApprovalStore', () => {
  it('hands out an approval once', () => {
    const store = new MemoryApprovalStore();
    store.save({ id: 'a', tool: 't', arguments: '{}', createdAt: '2024-01-01T00:00:00.000Z' });
    expect(store.take('a')?.id).toBe('a');
    expect(store.take('a')).toBeUndefined();
  });

  it('drops the oldest approvals past its capacity', () => {
    const store = new MemoryApprovalStore(2);
    for (const id of ['a', 'b', 'c'])
      store.save({ id, tool: 't', arguments: '{}', createdAt: '2024-01-01T00:00:00.000Z' });
    expect(store.get('a')).toBeUndefined();
    expect(store.get('b')?.id).toBe('b');
    expect(store.get('c')?.id).toBe('c');
  });
});
