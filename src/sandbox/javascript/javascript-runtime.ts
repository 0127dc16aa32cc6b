import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageDirectory } from '../package-directory.js';
import type { SandboxRuntime } from '../sandbox-runtime.js';

/** Options of {@link createJavascriptRuntime}. */
export interface JavascriptRuntimeOptions {
  /** The folder of `quickjs-emscripten` to load QuickJS from (default: the installed package). */
  quickjsDir?: string;
}

/**
 * The JavaScript runtime: QuickJS (quickjs-emscripten, the release-sync WebAssembly build) in a
 * child process per sandbox; each run gets a fresh QuickJS runtime with the pool's memory limit, a
 * 256 KB stack and an interrupt at the deadline. Pass it to a {@link SandboxPool};
 * `createExecuteJavascriptTool` does.
 *
 * @example
 * ```ts
 * const pool = new SandboxPool({ runtime: createJavascriptRuntime() });
 * const outcome = await pool.run('[1, 2, 3].map((n) => n * n)');
 * console.log(outcome.ok && outcome.result); // [1, 4, 9]
 * await pool.close();
 * ```
 */
export function createJavascriptRuntime(options: JavascriptRuntimeOptions = {}): SandboxRuntime {
  const quickjsDir = options.quickjsDir ?? packageDirectory('quickjs-emscripten');
  const from = join(quickjsDir, 'package.json');
  const coreDir = packageDirectory('quickjs-emscripten-core', from);
  const variantDir = packageDirectory('@jitl/quickjs-wasmfile-release-sync', from);
  const ffiTypesDir = packageDirectory('@jitl/quickjs-ffi-types', join(coreDir, 'package.json'));
  const childScript = fileURLToPath(new URL('./javascript-child.mjs', import.meta.url));
  const config = {
    coreEntry: join(coreDir, 'dist', 'index.mjs'),
    variantEntry: join(variantDir, 'dist', 'index.mjs'),
  };
  return {
    language: 'javascript',
    displayName: 'JavaScript',
    childScript,
    nodeFlags: ['--max-old-space-size=128'],
    dataLimitBytes: 384 * 2 ** 20,
    // QuickJS answers its own deadline through the interrupt handler; SIGKILL is the backup.
    killGraceMs: 150,
    freshInterpreterPerRun: true,
    readPaths: () => [coreDir, variantDir, ffiTypesDir],
    childConfig: () => ({ ...config }),
  };
}
