import { describe, expect, it, vi } from 'vitest';
import { ToolRegistry } from '../registry/tool-registry.js';
import { defineTool } from './define-tool.js';
import type { CallHook, CallInfo } from './dispatch.js';
import { TimeoutError } from './errors/timeout-error.js';
import { ToolCallError } from './errors/tool-call-error.js';
import { ToolshedError } from './errors/toolshed-error.js';
import { type ToolFailure, ToolResult, type ToolSuccess, toModelText } from './tool-result.js';
import type { ToolContext } from './tool-spec.js';

function expectFailure(result: ToolResult): ToolFailure {
  if (result.status === 'success' || result.status === 'pending_approval') {
    throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  }
  return result;
}

function expectSuccess(result: ToolResult): ToolSuccess {
  if (result.status !== 'success') throw new Error(`expected a success, got ${JSON.stringify(result)}`);
  return result;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const never = () => new Promise<never>(() => {});

function registryWith(...tools: Parameters<ToolRegistry['register']>[0][]): ToolRegistry {
  const registry = new ToolRegistry({ env: {} });
  for (const tool of tools) registry.register(tool);
  return registry;
}

describe('handler failures', () => {
  it('returns EXECUTION_FAILED with the error class and message when a handler throws', async () => {
    const registry = registryWith(
      defineTool({
        name: 'parse',
        description: 'Parse.',
        handler: () => {
          throw new TypeError("Cannot read properties of undefined (reading 'x')");
        },
      }),
    );
    const result = expectFailure(await registry.call('parse'));
    expect(result.status).toBe('error');
    expect(result.error).toEqual({
      code: 'EXECUTION_FAILED',
      message: "Tool 'parse' failed: TypeError: Cannot read properties of undefined (reading 'x')",
      retryable: false,
      details: { errorClass: 'TypeError' },
    });
  });

  it('names a subclass of Error by its class name', async () => {
    class QuotaExceeded extends Error {}
    const registry = registryWith(
      defineTool({
        name: 'upload',
        description: 'Upload.',
        handler: () => {
          throw new QuotaExceeded('Disk quota of 10 GB exceeded.');
        },
      }),
    );
    expect(expectFailure(await registry.call('upload')).error.message).toBe(
      "Tool 'upload' failed: QuotaExceeded: Disk quota of 10 GB exceeded.",
    );
  });

  it('names an error by its name property when it sets one', async () => {
    const registry = registryWith(
      defineTool({
        name: 'fetch_page',
        description: 'Fetch.',
        handler: async () => {
          const error = new Error('429 Too Many Requests');
          error.name = 'HttpError';
          throw error;
        },
      }),
    );
    expect(expectFailure(await registry.call('fetch_page')).error.message).toBe(
      "Tool 'fetch_page' failed: HttpError: 429 Too Many Requests",
    );
  });

  it('never shows the stack trace to the model', async () => {
    const registry = registryWith(
      defineTool({
        name: 'crash',
        description: 'Crash.',
        handler: () => {
          throw new Error('boom');
        },
      }),
    );
    const result = expectFailure(await registry.call('crash'));
    expect(result.error.message).toBe("Tool 'crash' failed: Error: boom");
    const text = `${toModelText(result)}${JSON.stringify(result)}`;
    expect(text).not.toMatch(/\bat /);
    expect(text).not.toContain('dispatch-execution.test');
  });

  it('returns EXECUTION_FAILED when an async handler rejects', async () => {
    const registry = registryWith(
      defineTool({
        name: 'later',
        description: 'Later.',
        handler: async () => {
          await sleep(1);
          throw new RangeError('offset out of range');
        },
      }),
    );
    expect(expectFailure(await registry.call('later')).error.message).toBe(
      "Tool 'later' failed: RangeError: offset out of range",
    );
  });

  it.each([
    ['a string', 'oops', 'it threw "oops".', 'string'],
    ['a number', 42, 'it threw 42.', 'number'],
    ['null', null, 'it threw null.', 'object'],
    ['undefined', undefined, 'it threw nothing.', 'undefined'],
    ['a plain object', { code: 'E_FAIL' }, 'it threw an object.', 'object'],
  ])('reports a handler that throws %s', async (_label, thrown, words, errorClass) => {
    const registry = registryWith(
      defineTool({
        name: 'odd',
        description: 'Odd.',
        handler: () => {
          throw thrown;
        },
      }),
      defineTool({ name: 'odd_async', description: 'Odd, later.', handler: () => Promise.reject(thrown) }),
    );
    for (const name of ['odd', 'odd_async']) {
      const result = expectFailure(await registry.call(name));
      expect(result.error).toEqual({
        code: 'EXECUTION_FAILED',
        message: `Tool '${name}' failed: ${words}`,
        retryable: false,
        details: { errorClass },
      });
    }
  });
});

describe('timeouts', () => {
  const stuck = defineTool({ name: 'stuck', description: 'Never finishes.', handler: never });

  it('returns TIMEOUT after the registry default', async () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 20 });
    registry.register(stuck);
    const result = expectFailure(await registry.call('stuck'));
    expect(result.status).toBe('timeout');
    expect(result.error).toEqual({
      code: 'TIMEOUT',
      message: "Tool 'stuck' timed out after 20 ms.",
      retryable: true,
      hint: 'Try again, or ask for less work in one call.',
      details: { timeoutMs: 20, maxTotalMs: undefined },
    });
    expect(result.metadata.durationMs).toBeGreaterThanOrEqual(19);
  });

  it("uses the tool's timeoutMs over the registry default", async () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 60_000 });
    registry.register(defineTool({ ...stuck, timeoutMs: 25 }));
    expect(expectFailure(await registry.call('stuck')).error.message).toBe("Tool 'stuck' timed out after 25 ms.");
  });

  it("uses the call's timeoutMs over the tool's", async () => {
    const registry = new ToolRegistry();
    registry.register(defineTool({ ...stuck, timeoutMs: 60_000 }));
    expect(expectFailure(await registry.call('stuck', {}, { timeoutMs: 15 })).error.message).toBe(
      "Tool 'stuck' timed out after 15 ms.",
    );
  });

  it('aborts ctx.signal with a TimeoutError when the deadline passes', async () => {
    let seen: unknown;
    const registry = new ToolRegistry({ defaultTimeoutMs: 20 });
    registry.register(
      defineTool({
        name: 'watcher',
        description: 'Watch the signal.',
        handler: (_args, context) =>
          new Promise((resolve) => {
            context.signal.addEventListener('abort', () => {
              seen = context.signal.reason;
              resolve('too late');
            });
          }),
      }),
    );
    expect(expectFailure(await registry.call('watcher')).error.code).toBe('TIMEOUT');
    expect(seen).toBeInstanceOf(TimeoutError);
    expect((seen as Error).message).toBe("Tool 'watcher' timed out after 20 ms.");
  });

  it('aborts ctx.signal even when the handler first reads it after the deadline', async () => {
    let context: ToolContext | undefined;
    const registry = new ToolRegistry({ defaultTimeoutMs: 15 });
    registry.register(
      defineTool({
        name: 'lazy',
        description: 'Lazy.',
        handler: (_args, ctx) => {
          context = ctx;
          return never();
        },
      }),
    );
    await registry.call('lazy');
    expect(context?.signal.aborted).toBe(true);
  });

  it('does not time out a handler that finishes in time', async () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 200 });
    registry.register(defineTool({ name: 'quick', description: 'Quick.', handler: async () => 'done' }));
    expect(expectSuccess(await registry.call('quick')).data).toBe('done');
  });

  it('refuses a registry default timeout that is not positive', () => {
    expect(() => new ToolRegistry({ defaultTimeoutMs: 0 })).toThrow('defaultTimeoutMs must be greater than 0, got 0.');
  });

  // Margins are wide on purpose: a loaded machine delays timers, and these tests must not depend on it.
  function progressing(options: {
    resetOnProgress?: boolean;
    maxTotalMs?: number;
    timeoutMs: number;
    reports: number;
    intervalMs: number;
  }) {
    return defineTool({
      name: 'indexer',
      description: 'Index files, reporting progress.',
      timeoutMs: options.timeoutMs,
      ...(options.resetOnProgress === undefined ? {} : { resetOnProgress: options.resetOnProgress }),
      ...(options.maxTotalMs === undefined ? {} : { maxTotalMs: options.maxTotalMs }),
      handler: async (_args, context) => {
        for (let step = 1; step <= options.reports && !context.signal.aborted; step++) {
          // intervalMs 0: report on every turn of the event loop.
          await (options.intervalMs === 0
            ? new Promise((resolve) => setImmediate(resolve))
            : sleep(options.intervalMs));
          context.progress(step, options.reports);
        }
        return 'indexed';
      },
    });
  }

  it('extends the deadline each time the tool reports progress with resetOnProgress', async () => {
    // 12 reports 50 ms apart: 600 ms in all, past the 400 ms timeout, but never 400 ms without progress.
    const registry = registryWith(progressing({ resetOnProgress: true, timeoutMs: 400, reports: 12, intervalMs: 50 }));
    expect(expectSuccess(await registry.call('indexer')).data).toBe('indexed');
  });

  it('keeps the deadline fixed without resetOnProgress', async () => {
    const registry = registryWith(progressing({ timeoutMs: 400, reports: 12, intervalMs: 50 }));
    expect(expectFailure(await registry.call('indexer')).error.message).toBe("Tool 'indexer' timed out after 400 ms.");
  });

  it('caps an extended deadline at maxTotalMs', async () => {
    // Progress on every event-loop turn keeps the 10 s timeout from ever firing: only the cap can.
    const registry = registryWith(
      progressing({ resetOnProgress: true, maxTotalMs: 90, timeoutMs: 10_000, reports: 10_000_000, intervalMs: 0 }),
    );
    const result = expectFailure(await registry.call('indexer'));
    expect(result.error.code).toBe('TIMEOUT');
    expect(result.error.message).toBe("Tool 'indexer' ran past its total limit of 90 ms.");
    expect(result.error.details).toEqual({ timeoutMs: 10_000, maxTotalMs: 90 });
    // Timers may fire a millisecond or two early; the point is that the call ran until the cap.
    expect(result.metadata.durationMs).toBeGreaterThanOrEqual(80);
  });
});

describe('cancellation', () => {
  it('returns CANCELLED without running the handler when the signal is already aborted', async () => {
    const handler = vi.fn(() => 'ran');
    const registry = registryWith(defineTool({ name: 'job', description: 'A job.', handler }));
    const controller = new AbortController();
    controller.abort();
    const result = expectFailure(await registry.call('job', {}, { signal: controller.signal }));
    expect(result.status).toBe('cancelled');
    expect(result.error).toEqual({ code: 'CANCELLED', message: "The call to 'job' was cancelled.", retryable: false });
    expect(handler).not.toHaveBeenCalled();
  });

  it('returns CANCELLED when the signal aborts during the call, and aborts ctx.signal', async () => {
    let handlerSignal: AbortSignal | undefined;
    const registry = registryWith(
      defineTool({
        name: 'job',
        description: 'A job.',
        handler: (_args, context) => {
          handlerSignal = context.signal;
          return never();
        },
      }),
    );
    const controller = new AbortController();
    const pending = registry.call('job', {}, { signal: controller.signal });
    await sleep(5);
    controller.abort('the user pressed stop');
    const result = expectFailure(await pending);
    expect(result.error.message).toBe("The call to 'job' was cancelled: the user pressed stop.");
    expect(handlerSignal?.aborted).toBe(true);
    expect(handlerSignal?.reason).toBe('the user pressed stop');
  });

  it('quotes an Error given as the abort reason', async () => {
    const registry = registryWith(defineTool({ name: 'job', description: 'A job.', handler: never }));
    const controller = new AbortController();
    const pending = registry.call('job', {}, { signal: controller.signal });
    controller.abort(new Error('shutting down'));
    expect(expectFailure(await pending).error.message).toBe("The call to 'job' was cancelled: shutting down.");
  });

  it('keeps the result of a handler that finished before the abort', async () => {
    const registry = registryWith(defineTool({ name: 'job', description: 'A job.', handler: async () => 'finished' }));
    const controller = new AbortController();
    const result = await registry.call('job', {}, { signal: controller.signal });
    controller.abort();
    expect(expectSuccess(result).data).toBe('finished');
  });
});

describe('the handler context', () => {
  it('sends ctx.progress and ctx.log to context.onProgress and context.onLog', async () => {
    const onProgress = vi.fn();
    const onLog = vi.fn();
    const registry = registryWith(
      defineTool({
        name: 'reporter',
        description: 'Report.',
        handler: async (_args, context) => {
          context.progress(1, 4, 'a quarter');
          context.progress(2);
          context.log('info', { step: 'two' });
          context.log('warning', 'disk almost full');
          return 'ok';
        },
      }),
    );
    await registry.call('reporter', {}, { context: { onProgress, onLog } });
    expect(onProgress.mock.calls).toEqual([[{ progress: 1, total: 4, message: 'a quarter' }], [{ progress: 2 }]]);
    expect(onLog.mock.calls).toEqual([
      ['info', { step: 'two' }],
      ['warning', 'disk almost full'],
    ]);
  });

  it('ignores ctx.progress and ctx.log when the caller listens to neither', async () => {
    const registry = registryWith(
      defineTool({
        name: 'reporter',
        description: 'Report.',
        handler: (_args, context) => {
          context.progress(1);
          context.log('debug', 'x');
          return 'ok';
        },
      }),
    );
    expect(expectSuccess(await registry.call('reporter')).data).toBe('ok');
  });

  it('hands the handler its tool name, call id, config and env', async () => {
    let seen: Record<string, unknown> = {};
    const registry = new ToolRegistry({ env: { REGION: 'eu' } });
    registry.register(
      defineTool({
        name: 'inspect',
        description: 'Inspect the context.',
        handler: (_args, context) => {
          seen = {
            tool: context.tool,
            toolCallId: context.toolCallId,
            config: context.config,
            region: context.env.REGION,
          };
          return 'ok';
        },
      }),
    );
    const result = await registry.call(
      'inspect',
      {},
      { toolCallId: 'call_42', context: { config: { inbox: 'sales' } } },
    );
    expect(seen).toEqual({ tool: 'inspect', toolCallId: 'call_42', config: { inbox: 'sales' }, region: 'eu' });
    expect(result.metadata.toolCallId).toBe('call_42');
    await registry.call('inspect');
    expect(seen.toolCallId).toMatch(/^call_[0-9a-z]+$/);
    expect(seen.config).toEqual({});
  });

  it('gives each call its own default config, the same object for the whole call', async () => {
    const configs: unknown[] = [];
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'remember',
        description: 'Write to the config.',
        handler: (_args, context) => {
          expect(context.config).toBe(context.config);
          configs.push(context.config);
          context.config.seen = true;
          return 'ok';
        },
      }),
    );
    await registry.call('remember');
    await registry.call('remember');
    expect(configs).toEqual([{ seen: true }, { seen: true }]);
    expect(configs[0]).not.toBe(configs[1]);
  });

  it('rejects ctx.elicit with a clear message when the caller offers none', async () => {
    const registry = registryWith(
      defineTool({
        name: 'ask',
        description: 'Ask the user.',
        handler: async (_args, context) =>
          context.elicit('Which folder?', { type: 'object', properties: { folder: { type: 'string' } } }),
      }),
    );
    expect(expectFailure(await registry.call('ask')).error.message).toBe(
      "Tool 'ask' failed: CallerCapabilityError: Tool 'ask' asked the user a question, but this caller cannot ask (elicitation needs an MCP client that supports it).",
    );
  });

  it('rejects ctx.sample with a clear message when the caller offers none', async () => {
    const registry = registryWith(
      defineTool({
        name: 'summarize',
        description: 'Summarize with the client model.',
        handler: async (_args, context) =>
          context.sample({
            messages: [{ role: 'user', content: { type: 'text', text: 'Summarize' } }],
            maxTokens: 100,
          }),
      }),
    );
    expect(expectFailure(await registry.call('summarize')).error.message).toBe(
      "Tool 'summarize' failed: CallerCapabilityError: Tool 'summarize' asked for a model completion, but this caller cannot provide one (sampling needs an MCP client that supports it).",
    );
  });

  it('passes ctx.elicit and ctx.sample through to a caller that offers them', async () => {
    const elicit = vi.fn(async () => ({ action: 'accept' as const, content: { folder: '/tmp' } }));
    const sample = vi.fn(async () => ({
      role: 'assistant' as const,
      content: { type: 'text' as const, text: 'short' },
    }));
    const registry = registryWith(
      defineTool({
        name: 'both',
        description: 'Ask and sample.',
        handler: async (_args, context) => {
          const answer = await context.elicit('Which folder?', {
            type: 'object',
            properties: { folder: { type: 'string' } },
          });
          const summary = await context.sample({
            messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }],
            maxTokens: 5,
          });
          return { answer, summary };
        },
      }),
    );
    const result = expectSuccess(await registry.call('both', {}, { context: { elicit, sample } }));
    expect(result.data).toEqual({
      answer: { action: 'accept', content: { folder: '/tmp' } },
      summary: { role: 'assistant', content: { type: 'text', text: 'short' } },
    });
    expect(elicit).toHaveBeenCalledWith(
      'Which folder?',
      { type: 'object', properties: { folder: { type: 'string' } } },
      { signal: expect.any(AbortSignal) },
    );
    expect(sample).toHaveBeenCalledWith(
      { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 5 },
      { signal: expect.any(AbortSignal) },
    );
  });
});

describe('output', () => {
  it('returns OUTPUT_INVALID when the output does not match the output schema', async () => {
    const registry = registryWith(
      defineTool({
        name: 'count',
        description: 'Count.',
        outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
        handler: () => ({ n: '3' }),
      }),
    );
    const result = expectFailure(await registry.call('count'));
    expect(result.error.code).toBe('OUTPUT_INVALID');
    expect(result.error.message).toBe(
      `Tool 'count' returned output that does not match its output schema: 'n' must be an integer, got string "3".`,
    );
    expect(result.error.hint).toBe('This is a fault in the tool, not in your arguments; try another approach.');
    expect(result.error.retryable).toBe(false);
  });

  it('says the output, not the arguments, is wrong when the whole output has the wrong type', async () => {
    const registry = registryWith(
      defineTool({ name: 'total', description: 'Total.', outputSchema: { type: 'number' }, handler: () => 'seven' }),
    );
    expect(expectFailure(await registry.call('total')).error.message).toBe(
      `Tool 'total' returned output that does not match its output schema: the output must be a number, got string "seven".`,
    );
  });

  it('validates the data of a ToolResult.success envelope', async () => {
    const registry = registryWith(
      defineTool({
        name: 'total',
        description: 'Total.',
        outputSchema: { type: 'object', properties: { sum: { type: 'number' } } },
        handler: () => ToolResult.success({ sum: 'x' }),
      }),
    );
    expect(expectFailure(await registry.call('total')).error.code).toBe('OUTPUT_INVALID');
  });

  it('accepts output that matches the output schema', async () => {
    const registry = registryWith(
      defineTool({ name: 'total', description: 'Total.', outputSchema: { type: 'number' }, handler: () => 7 }),
    );
    expect(expectSuccess(await registry.call('total')).data).toBe(7);
  });
});

describe('output budget', () => {
  const digits = Array.from({ length: 1000 }, (_, index) => String(index % 10)).join('');
  const big = defineTool({ name: 'big', description: 'Big output.', maxOutputChars: 100, handler: () => digits });

  it('truncates long output head and tail with a marker and keeps the full text behind a handle', async () => {
    const registry = registryWith(big);
    const result = expectSuccess(await registry.call('big'));
    const handle = result.metadata.outputHandle;
    expect(handle).toMatch(/^out_/);
    expect(result.metadata.truncated).toBe(true);
    expect(result.data).toBe(
      `${digits.slice(0, 70)}\n\n[... 900 characters truncated; call read_tool_output with {"handle": "${handle}", "offset": 70} to read them ...]\n\n${digits.slice(970)}`,
    );
  });

  it('reads the rest back with the auto-registered read_tool_output tool', async () => {
    const registry = registryWith(big);
    expect(registry.list()).toEqual(['big', 'read_tool_output']);
    const handle = expectSuccess(await registry.call('big')).metadata.outputHandle;
    const rest = expectSuccess(await registry.call('read_tool_output', { handle, offset: 70 }));
    expect(rest.data).toEqual({ handle, text: digits.slice(70), offset: 70, totalChars: 1000 });
    const page = expectSuccess(await registry.call('read_tool_output', { handle, offset: 70, limit: 400 }));
    expect(page.data).toEqual({ handle, text: digits.slice(70, 470), offset: 70, nextOffset: 470, totalChars: 1000 });
  });

  it('answers an unknown handle with INVALID_ARGUMENTS', async () => {
    const registry = registryWith(big);
    const result = expectFailure(await registry.call('read_tool_output', { handle: 'out_nope' }));
    expect(result.error).toEqual({
      code: 'INVALID_ARGUMENTS',
      message: "No stored output has the handle 'out_nope'; it may have expired.",
      retryable: false,
      hint: 'Call the original tool again to get a fresh handle.',
    });
  });

  it('leaves output within the budget untouched', async () => {
    const registry = registryWith(defineTool({ ...big, name: 'small', handler: () => 'short' }));
    const result = expectSuccess(await registry.call('small'));
    expect(result.data).toBe('short');
    expect(result.metadata).not.toHaveProperty('truncated');
    expect(result.metadata).not.toHaveProperty('outputHandle');
  });

  it('truncates the JSON text of structured output', async () => {
    const rows = Array.from({ length: 100 }, (_, id) => ({ id }));
    const registry = registryWith(defineTool({ ...big, name: 'rows', handler: () => rows }));
    const result = expectSuccess(await registry.call('rows'));
    const handle = result.metadata.outputHandle;
    const text = JSON.stringify(rows);
    expect(result.data).toBe(
      `${text.slice(0, 70)}\n\n[... ${text.length - 100} characters truncated; call read_tool_output with {"handle": "${handle}", "offset": 70} to read them ...]\n\n${text.slice(-30)}`,
    );
    const page = expectSuccess(await registry.call('read_tool_output', { handle, limit: 100_000 }));
    expect(JSON.parse((page.data as { text: string }).text)).toEqual(rows);
  });

  it('applies the registry maxOutputChars to tools that set none', async () => {
    const registry = new ToolRegistry({ maxOutputChars: 10 });
    registry.register(defineTool({ name: 'chatty', description: 'Chatty.', handler: () => 'x'.repeat(50) }));
    expect(registry.has('read_tool_output')).toBe(true);
    expect(expectSuccess(await registry.call('chatty')).metadata.truncated).toBe(true);
  });

  it('returns OUTPUT_TOO_LARGE for output beyond what the output store can keep', async () => {
    const registry = new ToolRegistry({ outputStoreChars: 500 });
    registry.register(big);
    const result = expectFailure(await registry.call('big'));
    expect(result.error).toEqual({
      code: 'OUTPUT_TOO_LARGE',
      message: "Tool 'big' returned 1000 characters, more than the 500 that can be kept.",
      retryable: false,
      hint: 'Ask for less: narrow the query or request a smaller range.',
    });
  });

  it('keeps read_tool_output callable after clear() while the registry still truncates output', async () => {
    const registry = new ToolRegistry({ maxOutputChars: 10 });
    registry.clear();
    registry.register(defineTool({ name: 'chatty', description: 'Chatty.', handler: () => 'x'.repeat(50) }));
    const handle = expectSuccess(await registry.call('chatty')).metadata.outputHandle;
    const page = expectSuccess(await registry.call('read_tool_output', { handle }));
    expect((page.data as { text: string }).text).toBe('x'.repeat(50));
  });

  it('reads back output truncated in a subset that names read_tool_output explicitly', async () => {
    const registry = registryWith(big);
    const view = registry.subset(['big', 'read_tool_output']);
    const handle = expectSuccess(await view.call('big')).metadata.outputHandle;
    const page = expectSuccess(await view.call('read_tool_output', { handle }));
    expect((page.data as { text: string }).text).toBe(digits);
  });

  it('reads back output truncated in a subset that leaves read_tool_output out', async () => {
    const registry = registryWith(big);
    const view = registry.subset(['big']);
    expect(view.list()).toEqual(['big', 'read_tool_output']);
    const handle = expectSuccess(await view.call('big')).metadata.outputHandle;
    const page = expectSuccess(await view.call('read_tool_output', { handle }));
    expect((page.data as { text: string }).text).toBe(digits);
  });
});

describe('result envelopes from handlers', () => {
  it('keeps the data and extra metadata of ToolResult.success', async () => {
    const registry = registryWith(
      defineTool({
        name: 'cached',
        description: 'Cached.',
        handler: () => ToolResult.success({ rows: 2 }, { source: 'cache' }),
      }),
    );
    const result = expectSuccess(await registry.call('cached', {}, { toolCallId: 'call_1' }));
    expect(result.data).toEqual({ rows: 2 });
    expect(result.metadata).toMatchObject({ tool: 'cached', source: 'cache', toolCallId: 'call_1' });
  });

  it("does not let a handler's metadata overwrite the tool name or duration", async () => {
    const registry = registryWith(
      defineTool({
        name: 'spoof',
        description: 'Spoof.',
        handler: () => ToolResult.success(1, { tool: 'other', durationMs: -5 }),
      }),
    );
    const result = await registry.call('spoof');
    expect(result.metadata.tool).toBe('spoof');
    expect(result.metadata.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('returns a deliberate ToolResult.error as the failure, with its hint', async () => {
    const registry = registryWith(
      defineTool({
        name: 'read_file',
        description: 'Read.',
        handler: async () =>
          ToolResult.error('EXECUTION_FAILED', "File 'missing.txt' does not exist.", {
            hint: 'Call list_files first.',
          }),
      }),
    );
    const result = expectFailure(await registry.call('read_file'));
    expect(result.metadata.tool).toBe('read_file');
    expect(toModelText(result)).toBe(
      "Error [EXECUTION_FAILED]: File 'missing.txt' does not exist.\nHint: Call list_files first.",
    );
  });

  it('keeps the status of a deliberate RATE_LIMITED or TIMEOUT error', async () => {
    const registry = registryWith(
      defineTool({
        name: 'limited',
        description: 'Limited.',
        handler: () => ToolResult.error('RATE_LIMITED', 'Slow down.'),
      }),
      defineTool({
        name: 'upstream',
        description: 'Upstream.',
        handler: () => ToolResult.error('TIMEOUT', 'Upstream timed out.'),
      }),
    );
    const limited = expectFailure(await registry.call('limited'));
    expect([limited.status, limited.error.retryable]).toEqual(['error', true]);
    const upstream = expectFailure(await registry.call('upstream'));
    expect([upstream.status, upstream.error.code]).toEqual(['timeout', 'TIMEOUT']);
  });

  it('passes content blocks through', async () => {
    const registry = registryWith(
      defineTool({
        name: 'chart',
        description: 'Draw a chart.',
        handler: () =>
          ToolResult.content([
            { type: 'text', text: 'Sales by month:' },
            { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          ]),
      }),
    );
    const result = expectSuccess(await registry.call('chart'));
    expect(result.content).toEqual([
      { type: 'text', text: 'Sales by month:' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ]);
    expect(toModelText(result)).toBe('Sales by month:\n[image image/png]');
  });

  it('wraps a plain return value as success data', async () => {
    const registry = registryWith(
      defineTool({
        name: 'plain',
        description: 'Plain.',
        handler: () => ({ status: 'error', error: 'not an envelope' }),
      }),
    );
    expect(expectSuccess(await registry.call('plain')).data).toEqual({ status: 'error', error: 'not an envelope' });
  });

  it('awaits a thenable that is not a Promise', async () => {
    const registry = registryWith(
      defineTool({
        name: 'thenable',
        description: 'Thenable.',
        handler: () =>
          // biome-ignore lint/suspicious/noThenProperty: the handler must return a thenable that is not a Promise.
          ({ then: (resolve: (value: unknown) => void) => resolve('resolved') }) as unknown as Promise<string>,
      }),
    );
    expect(expectSuccess(await registry.call('thenable')).data).toBe('resolved');
  });

  it('fills metadata with the tool name and a duration', async () => {
    const registry = registryWith(defineTool({ name: 'timed', description: 'Timed.', handler: () => 1 }));
    const result = await registry.call('timed');
    expect(result.metadata.tool).toBe('timed');
    expect(Number.isFinite(result.metadata.durationMs)).toBe(true);
    expect(result.metadata.durationMs).toBeGreaterThanOrEqual(0);
  });
});

describe('callOrThrow', () => {
  it('returns the data of a success', async () => {
    const registry = registryWith(defineTool({ name: 'add', description: 'Add.', handler: () => 3 }));
    await expect(registry.callOrThrow('add', { a: 1, b: 2 })).resolves.toBe(3);
  });

  it('throws a ToolCallError carrying the failed result and the model text', async () => {
    const registry = registryWith(defineTool({ name: 'add', description: 'Add.', handler: () => 3 }));
    const error = await registry.callOrThrow('ad').catch((caught: unknown) => caught);
    expect(ToolCallError.isInstance(error)).toBe(true);
    expect(ToolshedError.isInstance(error)).toBe(true);
    const callError = error as ToolCallError;
    expect(callError.code).toBe('TOOL_CALL_FAILED');
    expect(callError.message).toBe(
      "Error [TOOL_NOT_FOUND]: Tool 'ad' not found. Did you mean 'add'? Available tools: add.\nHint: Call one of the available tools by its exact name.",
    );
    expect(callError.result.error.code).toBe('TOOL_NOT_FOUND');
  });

  it('throws for a call that waits for approval', async () => {
    const registry = registryWith(
      defineTool({ name: 'wipe', description: 'Wipe.', requiresApproval: true, handler: () => 1 }),
    );
    const error = (await registry.callOrThrow('wipe').catch((caught: unknown) => caught)) as ToolCallError;
    expect(ToolCallError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /^Approval required: the call to 'wipe' is waiting for a person to approve it \(approval id appr_[0-9a-f]{32}\)\.$/,
    );
  });
});

describe('middleware hooks', () => {
  it('runs before and after around the call with the call info and the result', async () => {
    const events: string[] = [];
    const seen: { before?: CallInfo; after?: [CallInfo, ToolResult] } = {};
    const hook: CallHook = {
      name: 'recorder',
      before: (call) => {
        events.push('before');
        seen.before = call;
      },
      after: (call, result) => {
        events.push('after');
        seen.after = [call, result];
      },
    };
    const registry = new ToolRegistry({ hooks: [hook] });
    registry.register(
      defineTool({
        name: 'work',
        description: 'Work.',
        handler: () => {
          events.push('handler');
          return 'done';
        },
      }),
    );
    const result = await registry.call('work', '{"a": 1}', { toolCallId: 'call_7' });
    expect(events).toEqual(['before', 'handler', 'after']);
    expect(seen.before).toMatchObject({ tool: 'work', args: '{"a": 1}', toolCallId: 'call_7' });
    expect(seen.after?.[1]).toBe(result);
  });

  it('adds hooks with use()', async () => {
    const after = vi.fn();
    const registry = new ToolRegistry().use({ after });
    registry.register(defineTool({ name: 'work', description: 'Work.', handler: () => 'done' }));
    await registry.call('work');
    expect(after).toHaveBeenCalledTimes(1);
  });

  it("reports a throwing hook through on('hook-error') without breaking the call", async () => {
    const failing: CallHook = {
      name: 'metrics',
      before: () => {
        throw new Error('statsd down');
      },
      after: async () => {
        throw new Error('still down');
      },
    };
    const registry = new ToolRegistry({ hooks: [failing] });
    registry.register(defineTool({ name: 'work', description: 'Work.', handler: () => 'done' }));
    const reports: Array<[string, string | undefined, string]> = [];
    registry.on('hook-error', (error, hook, call) => reports.push([(error as Error).message, hook.name, call.tool]));
    const result = await registry.call('work');
    expect(expectSuccess(result).data).toBe('done');
    expect(reports).toEqual([
      ['statsd down', 'metrics', 'work'],
      ['still down', 'metrics', 'work'],
    ]);
  });

  it('keeps running the other hooks when one fails', async () => {
    const after = vi.fn();
    const registry = new ToolRegistry({
      hooks: [
        {
          after: () => {
            throw new Error('first fails');
          },
        },
        { after },
      ],
    });
    registry.on('hook-error', () => {});
    registry.register(defineTool({ name: 'work', description: 'Work.', handler: () => 'done' }));
    await registry.call('work');
    expect(after).toHaveBeenCalledTimes(1);
  });

  it('lets a hook see a failed call', async () => {
    const after = vi.fn();
    const registry = new ToolRegistry({ hooks: [{ after }] });
    registry.register(
      defineTool({
        name: 'work',
        description: 'Work.',
        inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
        handler: () => 1,
      }),
    );
    await registry.call('work', {});
    expect((after.mock.calls[0]![1] as ToolFailure).error.code).toBe('INVALID_ARGUMENTS');
  });

  it('runs hooks around a call to an unknown tool', async () => {
    const before = vi.fn();
    const after = vi.fn();
    const registry = new ToolRegistry({ hooks: [{ before, after }] });
    registry.register(defineTool({ name: 'work', description: 'Work.', handler: () => 1 }));
    const result = await registry.call('wrok', {});
    expect(before).toHaveBeenCalledTimes(1);
    expect(after).toHaveBeenCalledWith(expect.objectContaining({ tool: 'wrok' }), result);
  });
});
