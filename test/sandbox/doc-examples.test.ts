import { afterAll, describe, expect, it } from 'vitest';
import { toModelText } from '../../src/core/tool-result.js';
import { createJavascriptRuntime } from '../../src/sandbox/javascript/javascript-runtime.js';
import { packageDirectory, packageVersion } from '../../src/sandbox/package-directory.js';
import { createPythonRuntime } from '../../src/sandbox/python/python-runtime.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { SandboxError } from '../../src/sandbox/sandbox-error.js';
import { createNamespaceIsolation, findExecutable } from '../../src/sandbox/sandbox-isolation.js';
import { SandboxPool } from '../../src/sandbox/sandbox-pool.js';
import { sandboxToolResult } from '../../src/sandbox/sandbox-tool.js';

// The @example blocks of src/sandbox's TSDoc, run as written (the tools' own examples run in
// execute-tools.test.ts).

describe('documented examples', () => {
  const pools: Sandbox[] = [];
  afterAll(() => Promise.all(pools.map((pool) => pool.close())));

  it('Sandbox', async () => {
    const sandbox: Sandbox = new SandboxPool({ runtime: createJavascriptRuntime() });
    pools.push(sandbox);
    const outcome = await sandbox.run('console.log("hi"); 6 * 7');
    expect(outcome).toMatchObject({ ok: true, stdout: 'hi\n', result: 42 });
    await sandbox.close();
  });

  it('SandboxPool', async () => {
    const pool = new SandboxPool({ runtime: createJavascriptRuntime(), size: 2, timeoutMs: 1_000 });
    pools.push(pool);
    await pool.start();
    const outcome = await pool.run('while (true) {}');
    expect(outcome.ok ? 'ok' : outcome.reason).toBe('timeout');
    expect((await pool.run('1 + 1')).ok).toBe(true);
    await pool.close();
  });

  it('createJavascriptRuntime', async () => {
    const pool = new SandboxPool({ runtime: createJavascriptRuntime() });
    pools.push(pool);
    const outcome = await pool.run('[1, 2, 3].map((n) => n * n)');
    expect(outcome.ok && outcome.result).toEqual([1, 4, 9]);
    await pool.close();
  });

  it('createPythonRuntime and sandboxToolResult', async () => {
    const pool = new SandboxPool({ runtime: createPythonRuntime({ allowedModules: ['json', 'math', 'statistics'] }) });
    pools.push(pool);
    const outcome = await pool.run('import statistics\nstatistics.mean([1, 2, 3, 4])');
    expect(outcome.ok && outcome.result).toBe(2.5);
    const failed = await pool.run('1 / 0');
    expect(toModelText(sandboxToolResult(failed, 'Python', ['json']))).toMatch(
      /^Error \[EXECUTION_FAILED\]: Python raised ZeroDivisionError: division by zero \(line 1\)\.\nTraceback /,
    );
    await pool.close();
  });

  it('SandboxError', async () => {
    const pool = new SandboxPool({
      runtime: createJavascriptRuntime(),
      isolation: { plan: async () => ({ ok: false, reason: 'no namespaces here' }) },
    });
    let seen = '';
    try {
      await pool.start();
    } catch (error) {
      if (SandboxError.isInstance(error) && error.code === 'NETWORK_ISOLATION_UNAVAILABLE') seen = error.message;
    }
    expect(seen).toMatch(/^Refusing to start the JavaScript sandbox/);
  });

  it.runIf(process.platform === 'linux')('findExecutable and createNamespaceIsolation', async () => {
    expect(findExecutable('unshare')).toMatch(/\/unshare$/);
    const plan = await createNamespaceIsolation().plan({ isolateNetwork: true });
    expect(plan.ok ? 'isolated' : plan.reason).toBe('isolated');
  });

  it('packageDirectory and packageVersion', () => {
    expect(packageDirectory('pyodide')).toMatch(/node_modules\/pyodide$/);
    expect(packageVersion(packageDirectory('pyodide'))).toBe('314.0.7');
  });
});
