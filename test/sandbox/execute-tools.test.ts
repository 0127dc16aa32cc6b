import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toModelText } from '../../src/core/tool-result.js';
import { ToolRegistry } from '../../src/registry/tool-registry.js';
import { createExecuteJavascriptTool } from '../../src/sandbox/javascript/execute-javascript-tool.js';
import { createJavascriptRuntime } from '../../src/sandbox/javascript/javascript-runtime.js';
import { createExecutePythonTool } from '../../src/sandbox/python/execute-python-tool.js';
import { createPythonRuntime } from '../../src/sandbox/python/python-runtime.js';
import type { SandboxIsolation } from '../../src/sandbox/sandbox-isolation.js';
import { SandboxPool } from '../../src/sandbox/sandbox-pool.js';
import { HOST_STALL_LIMIT_MS, untilAllIdle, watchEventLoop } from './support.js';

// execute_python and execute_javascript through a registry, with their default limits (5 s, 50 MB).

const ALLOWED = ['datetime', 'json', 'math', 're', 'statistics', 'typing'];

describe('execute_python and execute_javascript', () => {
  const registry = new ToolRegistry();
  const javascriptPool = new SandboxPool({ runtime: createJavascriptRuntime(), size: 2 });
  const pythonPool = new SandboxPool({ runtime: createPythonRuntime({ allowedModules: ALLOWED }), size: 2 });
  const python = createExecutePythonTool({ allowedModules: ALLOWED, sandbox: pythonPool });
  const javascript = createExecuteJavascriptTool({ sandbox: javascriptPool });
  registry.register(python);
  registry.register(javascript);

  beforeAll(async () => {
    // The first calls start both pools.
    await Promise.all([registry.call('execute_python', { code: '1' }), javascriptPool.start()]);
  });

  afterAll(() => Promise.all([javascriptPool.close(), pythonPool.close()]));

  it('are built-in code tools with a CLI keyword, read-only hints and guidance', () => {
    expect(python).toMatchObject({
      name: 'execute_python',
      category: 'code',
      cli: 'python',
      annotations: { readOnly: true, destructive: false, idempotent: false, openWorld: false },
      inputSchema: { type: 'object', required: ['code'], additionalProperties: false },
    });
    expect(python.description).toContain('Modules that can be imported: datetime, json, math, re, statistics, typing.');
    expect(python.description).toContain('Limits: 5 s, 50 MB of memory');
    expect(python.whenToUse).toMatch(/exact computation/);
    expect(javascript).toMatchObject({ name: 'execute_javascript', category: 'code', cli: 'js' });
    expect(javascript.whenToUse).toBeDefined();
  });

  it("mark the code's media type for editors; OpenAI strict and Gemini drop it without a warning", () => {
    const code = (schema: unknown) => (schema as { properties: { code: Record<string, unknown> } }).properties.code;
    expect(code(python.inputSchema).contentMediaType).toBe('text/x-python');
    expect(code(javascript.inputSchema).contentMediaType).toBe('text/javascript');
    expect(registry.toAnthropicTools().tools.map((tool) => code(tool.input_schema).contentMediaType)).toEqual([
      'text/javascript',
      'text/x-python',
    ]);
    expect(registry.toMcpTools().tools.map((tool) => code(tool.inputSchema).contentMediaType)).toEqual([
      'text/javascript',
      'text/x-python',
    ]);
    const strict = registry.toOpenAITools({ api: 'chat', strict: true });
    expect(strict.tools.map((tool) => Object.keys(code(tool.function.parameters)))).toEqual([
      ['type', 'description'],
      ['type', 'description'],
    ]);
    const gemini = registry.toGeminiTools();
    expect(
      gemini.tools.flatMap((tool) => tool.functionDeclarations.map((entry) => Object.keys(code(entry.parameters)))),
    ).toEqual([
      ['type', 'description', 'minLength', 'maxLength'],
      ['type', 'description', 'minLength', 'maxLength'],
    ]);
    const warnings = [...strict.warnings, ...gemini.warnings].map((warning) => warning.message);
    expect(warnings.filter((message) => message.includes('contentMediaType'))).toEqual([]);
  });

  it('return stdout, stderr and the last expression (the documented examples)', async () => {
    const pythonResult = await registry.call('execute_python', {
      code: 'import math\nprint(math.factorial(20))\nmath.pi',
    });
    expect(pythonResult).toMatchObject({
      status: 'success',
      data: { stdout: '2432902008176640000\n', stderr: '', result: Math.PI },
    });
    const javascriptResult = await registry.call('execute_javascript', {
      code: 'console.log("hi"); [3, 1, 2].sort()',
    });
    expect(javascriptResult).toMatchObject({
      status: 'success',
      data: { stdout: 'hi\n', stderr: '', result: [1, 2, 3] },
    });
  });

  it('accept the arguments as JSON text and import a configured module', async () => {
    const result = await registry.call(
      'execute_python',
      '{"code": "import statistics\\nstatistics.mean([1, 2, 3, 4])"}',
    );
    expect(result).toMatchObject({ status: 'success', data: { result: 2.5 } });
  });

  it('turn an exception into EXECUTION_FAILED with the traceback and the output before it', async () => {
    const result = await registry.call('execute_python', { code: 'print("step 1")\nvalues = [1, 0]\n1 / values[1]' });
    expect(result.status).toBe('error');
    if (result.status !== 'error') return;
    expect(result.error).toMatchObject({
      code: 'EXECUTION_FAILED',
      retryable: false,
      hint: 'Fix the code and run it again.',
      details: { reason: 'exception', errorType: 'ZeroDivisionError', line: 3, stdout: 'step 1\n' },
    });
    expect(toModelText(result)).toBe(
      [
        'Error [EXECUTION_FAILED]: Python raised ZeroDivisionError: division by zero (line 3).',
        'Traceback (most recent call last):',
        '  line 3, in <module>',
        '    1 / values[1]',
        'ZeroDivisionError: division by zero',
        'Output before the error:',
        'step 1',
        'Hint: Fix the code and run it again.',
      ].join('\n'),
    );
  });

  it('tell a model what a QuickJS script lacks when its JavaScript reaches for it', async () => {
    const hintOf = async (code: string) => {
      const result = await registry.call('execute_javascript', { code });
      return result.status === 'error' ? result.error.hint : `unexpected ${result.status}`;
    };
    expect(await hintOf('const data = await fetch("https://example.com");\ndata')).toBe(
      'Top-level await is not supported: wrap the code in (async () => { ...; return value; })(); its promise is awaited and its value returned.',
    );
    expect(await hintOf('const fs = require("fs");')).toBe(
      'The sandbox runs plain JavaScript: there is no require, fetch, process, Buffer, timer or DOM. Compute with the language and its built-ins (Math, JSON, Date, RegExp, ...), with the data in the code.',
    );
    expect(await hintOf('import fs from "fs";\nfs')).toBe(
      "The sandbox runs one script without modules: 'import' is not available. Use the language's built-ins, with the data in the code.",
    );
    expect(await hintOf('missing + 1')).toBe('Fix the code and run it again.');
    expect(await hintOf('const x = ;')).toBe('Fix the code and run it again.');
    // What the hint for top-level await says works.
    const wrapped = await registry.call('execute_javascript', {
      code: '(async () => { const x = await Promise.resolve(21); return x * 2; })()',
    });
    expect(wrapped).toMatchObject({ status: 'success', data: { result: 42 } });
  });

  it('name the allowed modules when an import is refused', async () => {
    const result = await registry.call('execute_python', { code: 'import os\nos.listdir("/")' });
    expect(result).toMatchObject({
      status: 'error',
      error: {
        code: 'EXECUTION_FAILED',
        message: expect.stringMatching(
          /^Python raised ImportError: module 'os' is not allowed in the sandbox; allowed modules: datetime, json, math, re, statistics, typing \(line 1\)\./,
        ),
        hint: 'Only these modules can be imported: datetime, json, math, re, statistics, typing; write the rest in plain Python.',
      },
    });
  });

  it('answer the default 5 s time limit within 5.25 s while the host keeps serving', async () => {
    // Each Python call takes a fresh process: let the replacements of earlier calls get ready first.
    await Promise.all([untilAllIdle(pythonPool), untilAllIdle(javascriptPool)]);
    const loop = watchEventLoop();
    const started = performance.now();
    const timed = async (name: string, code: string) => {
      const result = await registry.call(name, { code });
      return { result, elapsed: performance.now() - started };
    };
    const runs = Promise.all([
      timed('execute_python', 'while True:\n    pass'),
      timed('execute_javascript', 'for (;;) {}'),
    ]);
    // Both tools still answer other calls meanwhile.
    expect(await registry.call('execute_python', { code: '2 + 2' })).toMatchObject({ data: { result: 4 } });
    expect(await registry.call('execute_javascript', { code: '2 + 2' })).toMatchObject({ data: { result: 4 } });
    const [pythonRun, javascriptRun] = await runs;
    const { longestGapMs } = loop.stop();
    for (const [run, language] of [
      [pythonRun, 'Python'],
      [javascriptRun, 'JavaScript'],
    ] as const) {
      expect(run.result).toMatchObject({
        status: 'timeout',
        error: {
          code: 'TIMEOUT',
          retryable: false,
          message: `${language} code ran longer than the 5 s time limit and was stopped.`,
          hint: 'Look for an infinite loop, or do less work per call.',
        },
      });
      expect(run.elapsed).toBeGreaterThanOrEqual(4_990);
      expect(run.elapsed).toBeLessThan(5_250);
    }
    expect(longestGapMs).toBeLessThan(HOST_STALL_LIMIT_MS);
  }, 20_000);

  it('report the memory limit with a hint', async () => {
    const result = await registry.call('execute_python', { code: 'data = bytearray(100 * 2**20)' });
    expect(result).toMatchObject({
      status: 'error',
      error: {
        code: 'EXECUTION_FAILED',
        message: 'Python code went over the 50 MB memory limit (MemoryError) and was stopped (line 1).',
        hint: 'Use less memory: process the data in smaller pieces instead of building huge lists or strings.',
      },
    });
  });

  it('mark cut output', async () => {
    const result = await registry.call('execute_javascript', { code: 'console.log("z".repeat(100000))' });
    expect(result).toMatchObject({ status: 'success', data: { truncated: true } });
    if (result.status === 'success') expect((result.data as { stdout: string }).stdout.length).toBeLessThan(20_100);
  });

  it('refuse missing, empty and oversized code before running anything', async () => {
    expect(await registry.call('execute_python', {})).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
    expect(await registry.call('execute_python', { code: '' })).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
    expect(await registry.call('execute_javascript', { code: 'x'.repeat(100_001) })).toMatchObject({
      error: { code: 'INVALID_ARGUMENTS' },
    });
  });

  it('cancel a run when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await registry.call('execute_javascript', { code: 'for (;;) {}' }, { signal: controller.signal });
    expect(result.status).toBe('cancelled');
  });
});

describe('a code tool on a host without network isolation', () => {
  const failing: SandboxIsolation = {
    plan: async () => ({ ok: false, reason: 'unshare: unshare failed: Operation not permitted' }),
  };

  it('fails every call with the reason and how to enable isolation', async () => {
    const registry = new ToolRegistry();
    registry.register(createExecuteJavascriptTool({ isolation: failing }));
    const result = await registry.call('execute_javascript', { code: '1 + 1' });
    expect(result).toMatchObject({
      status: 'error',
      error: {
        code: 'EXECUTION_FAILED',
        retryable: false,
        message: expect.stringMatching(
          /^Refusing to start the JavaScript sandbox: .*\(unshare: unshare failed: Operation not permitted\).*pass allowNetwork: true/,
        ),
        hint: 'JavaScript code cannot run on this host until the sandbox can start; tell the user.',
      },
    });
  });
});

describe('createExecutePythonTool', () => {
  it('rejects module names that are not top-level names', () => {
    expect(() => createExecutePythonTool({ allowedModules: ['json', 'os.path'] })).toThrow(
      "allowedModules must be top-level module names such as 'json'; got 'os.path'.",
    );
  });
});
