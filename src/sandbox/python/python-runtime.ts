import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageDirectory, packageVersion } from '../package-directory.js';
import type { ChildLauncher, SandboxRuntime } from '../sandbox-runtime.js';

/** The modules Python code may import by default. */
export const DEFAULT_PYTHON_MODULES: readonly string[] = Object.freeze(['json', 're', 'typing', 'math', 'datetime']);

const MODULE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Options of {@link createPythonRuntime}. */
export interface PythonRuntimeOptions {
  /**
   * Top-level module names the code may import (default {@link DEFAULT_PYTHON_MODULES}). The friendly
   * first line of defence: anything else fails with "module 'x' is not allowed in the sandbox".
   */
  allowedModules?: readonly string[];
  /**
   * Folder for the cached Pyodide memory snapshot, which makes a sandbox start in ~0.4 s instead of
   * ~3 s (default: `<tmpdir>/toolshed-sandbox-<uid>`, created with mode 0700). `false` starts every
   * sandbox cold. A folder that others can write to is not used.
   */
  snapshotDir?: string | false;
  /** Pyodide's folder (default: the installed `pyodide` package). */
  pyodideDir?: string;
}

/** The snapshot being made per file, so pools starting together make it once. */
const snapshotsInFlight = new Map<string, Promise<boolean>>();

/**
 * The Python runtime: Pyodide (CPython compiled to WebAssembly, standard library only) in a child
 * process per sandbox. Pass it to a {@link SandboxPool}; `createExecutePythonTool` does.
 *
 * Before the first sandbox starts, `prepare` makes a memory snapshot of a freshly loaded Pyodide in
 * a child that runs no user code and may write only that one file; later sandboxes restore it.
 *
 * @example
 * ```ts
 * const pool = new SandboxPool({ runtime: createPythonRuntime({ allowedModules: ['json', 'math', 'statistics'] }) });
 * const outcome = await pool.run('import statistics\nstatistics.mean([1, 2, 3, 4])');
 * console.log(outcome.ok && outcome.result); // 2.5
 * await pool.close();
 * ```
 */
export function createPythonRuntime(options: PythonRuntimeOptions = {}): SandboxRuntime {
  const allowedModules = [...new Set(options.allowedModules ?? DEFAULT_PYTHON_MODULES)].sort();
  const invalid = allowedModules.filter((name) => !MODULE_NAME.test(name));
  if (invalid.length > 0) {
    throw new TypeError(
      `allowedModules must be top-level module names such as 'json'; got ${invalid.map((name) => `'${name}'`).join(', ')}.`,
    );
  }
  const pyodideDir = options.pyodideDir ?? packageDirectory('pyodide');
  const childScript = fileURLToPath(new URL('./python-child.mjs', import.meta.url));
  const hostScript = fileURLToPath(new URL('../child-host.mjs', import.meta.url));
  const snapshotDir =
    options.snapshotDir === false
      ? undefined
      : (options.snapshotDir ?? join(tmpdir(), `toolshed-sandbox-${process.getuid?.() ?? 'user'}`));
  let snapshotPath: string | undefined;

  const snapshotFile = (folder: string): string => {
    // The snapshot depends on Pyodide, Node and what the child preloads: any change makes a new file.
    const hash = createHash('sha256')
      .update(packageVersion(pyodideDir))
      .update(process.version)
      .update(existsSync(childScript) ? readFileSync(childScript) : '')
      .update(existsSync(hostScript) ? readFileSync(hostScript) : '')
      .digest('hex')
      .slice(0, 16);
    return join(folder, `pyodide-${packageVersion(pyodideDir)}-${hash}.snapshot`);
  };

  return {
    language: 'python',
    displayName: 'Python',
    childScript,
    nodeFlags: ['--max-old-space-size=256'],
    dataLimitBytes: 640 * 2 ** 20,
    killGraceMs: 0,
    readPaths: () => (snapshotPath === undefined ? [pyodideDir] : [pyodideDir, snapshotPath]),
    childConfig: () => ({ mode: 'serve', pyodideDir, snapshotPath, allowedModules }),
    async prepare(launch: ChildLauncher) {
      if (snapshotDir === undefined || !privateFolder(snapshotDir)) return;
      const file = snapshotFile(snapshotDir);
      if (ownFile(file)) {
        snapshotPath = file;
        return;
      }
      let pending = snapshotsInFlight.get(file);
      if (pending === undefined) {
        pending = makeSnapshot(launch, pyodideDir, file).finally(() => snapshotsInFlight.delete(file));
        snapshotsInFlight.set(file, pending);
      }
      if (await pending) snapshotPath = file;
    },
    startFailed() {
      // A damaged snapshot would fail every start: drop it and start cold.
      if (snapshotPath !== undefined) rmSync(snapshotPath, { force: true });
      snapshotPath = undefined;
    },
  };
}

async function makeSnapshot(launch: ChildLauncher, pyodideDir: string, file: string): Promise<boolean> {
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await launch({
      config: { mode: 'snapshot', pyodideDir, snapshotPath: temporary },
      writePaths: [temporary],
      timeoutMs: 120_000,
    });
    if (!ownFile(temporary)) return false;
    renameSync(temporary, file);
    removeStaleSnapshots(file);
    return true;
  } catch {
    // No snapshot is not fatal: sandboxes start cold (slower) and report their own errors.
    return false;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Snapshots of other Pyodide or toolshed versions, and temporary files left by a killed host, once
 * nobody has touched them for ten minutes (a different version running alongside keeps its own).
 */
function removeStaleSnapshots(current: string): void {
  const folder = dirname(current);
  const cutoff = Date.now() - 10 * 60_000;
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (path === current || !/^pyodide-.*\.snapshot(\.[0-9a-f]+\.tmp)?$/.test(name)) continue;
    try {
      if (lstatSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
    } catch {
      // Gone already.
    }
  }
}

/** Create the folder (0700) if missing; true when it is ours and nobody else can write to it. */
function privateFolder(folder: string): boolean {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const stats = lstatSync(folder);
    const uid = process.getuid?.();
    return stats.isDirectory() && (uid === undefined || stats.uid === uid) && (stats.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** A regular file of ours, not writable by others, big enough to be a snapshot. */
function ownFile(file: string): boolean {
  try {
    const stats = lstatSync(file);
    const uid = process.getuid?.();
    return (
      stats.isFile() && (uid === undefined || stats.uid === uid) && (stats.mode & 0o022) === 0 && stats.size > 2 ** 20
    );
  } catch {
    return false;
  }
}
