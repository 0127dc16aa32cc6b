import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectOutcome } from '../../../test/sandbox/support.js';
import { SandboxPool } from '../sandbox-pool.js';
import type { ChildLauncher, ChildLaunchOptions } from '../sandbox-runtime.js';
import { createPythonRuntime, DEFAULT_PYTHON_MODULES } from './python-runtime.js';

// The Python runtime's snapshot cache, driven with a fake launcher (no Pyodide), and one real cold start.

const scratch = mkdtempSync(join(tmpdir(), 'toolshed-python-runtime-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A launcher that "makes" a snapshot by writing `bytes` bytes where it is told to. */
function fakeLauncher(bytes: number, calls: ChildLaunchOptions[] = []): ChildLauncher {
  return async (options) => {
    calls.push(options);
    writeFileSync(String(options.config.snapshotPath), Buffer.alloc(bytes));
    return { type: 'prepared', bytes };
  };
}

describe('createPythonRuntime', () => {
  it('allows json, re, typing, math and datetime by default', () => {
    expect(DEFAULT_PYTHON_MODULES).toEqual(['json', 're', 'typing', 'math', 'datetime']);
    expect(createPythonRuntime().childConfig()).toMatchObject({
      mode: 'serve',
      allowedModules: ['datetime', 'json', 'math', 're', 'typing'],
    });
  });

  it('makes a snapshot once in a child that may write only that file, then reuses it', async () => {
    const folder = join(scratch, 'cache');
    const calls: ChildLaunchOptions[] = [];
    const first = createPythonRuntime({ snapshotDir: folder });
    await first.prepare?.(fakeLauncher(4 * 2 ** 20, calls));
    expect(calls).toHaveLength(1);
    expect(calls[0]?.writePaths).toEqual([calls[0]?.config.snapshotPath]);
    expect(calls[0]?.config).toMatchObject({ mode: 'snapshot' });
    const snapshot = first.childConfig().snapshotPath as string;
    expect(snapshot).toMatch(/pyodide-314\.0\.7-[0-9a-f]{16}\.snapshot$/);
    expect(first.readPaths()).toContain(snapshot);
    expect(readdirSync(folder)).toEqual([snapshot.split('/').pop()]);

    const second = createPythonRuntime({ snapshotDir: folder });
    await second.prepare?.(fakeLauncher(4 * 2 ** 20, calls));
    expect(calls).toHaveLength(1);
    expect(second.childConfig().snapshotPath).toBe(snapshot);

    // A sandbox that fails to start with it drops it: the next start is cold.
    second.startFailed?.(new Error('damaged snapshot'));
    expect(existsSync(snapshot)).toBe(false);
    expect(second.childConfig().snapshotPath).toBeUndefined();
  });

  it('removes snapshots of other versions nobody used for ten minutes', async () => {
    const folder = join(scratch, 'stale');
    mkdirSync(folder, { mode: 0o700 });
    const stale = join(folder, 'pyodide-313.0.0-0000000000000000.snapshot');
    const recent = join(folder, 'pyodide-313.0.0-1111111111111111.snapshot');
    const unrelated = join(folder, 'notes.txt');
    for (const file of [stale, recent, unrelated]) writeFileSync(file, 'x');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(stale, hourAgo, hourAgo);
    utimesSync(unrelated, hourAgo, hourAgo);
    const runtime = createPythonRuntime({ snapshotDir: folder });
    await runtime.prepare?.(fakeLauncher(4 * 2 ** 20));
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(existsSync(unrelated)).toBe(true);
  });

  it('starts cold when the snapshot could not be made', async () => {
    const runtime = createPythonRuntime({ snapshotDir: join(scratch, 'empty') });
    await runtime.prepare?.(fakeLauncher(10));
    expect(runtime.childConfig().snapshotPath).toBeUndefined();
    await runtime.prepare?.(async () => {
      throw new Error('the snapshot child failed');
    });
    expect(runtime.childConfig().snapshotPath).toBeUndefined();
  });

  it('does not use a snapshot folder that others can write to', async () => {
    const folder = join(scratch, 'shared');
    mkdirSync(folder);
    chmodSync(folder, 0o777);
    const calls: ChildLaunchOptions[] = [];
    const runtime = createPythonRuntime({ snapshotDir: folder });
    await runtime.prepare?.(fakeLauncher(4 * 2 ** 20, calls));
    expect(calls).toHaveLength(0);
    expect(runtime.childConfig().snapshotPath).toBeUndefined();
  });

  it('runs code without any snapshot (a cold start)', async () => {
    const pool = new SandboxPool({ runtime: createPythonRuntime({ snapshotDir: false }), size: 1 });
    try {
      expectOutcome(await pool.run('import json\njson.dumps({"cold": True})'), { ok: true, result: '{"cold": true}' });
    } finally {
      await pool.close();
    }
  });
});
