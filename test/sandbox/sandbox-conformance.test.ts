import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJavascriptRuntime } from '../../src/sandbox/javascript/javascript-runtime.js';
import { createPythonRuntime } from '../../src/sandbox/python/python-runtime.js';
import type { SandboxLanguage } from '../../src/sandbox/sandbox.js';
import { SandboxPool } from '../../src/sandbox/sandbox-pool.js';
import type { SandboxRuntime } from '../../src/sandbox/sandbox-runtime.js';
import { CASE_OUTPUT_CHARS, CASE_TIMEOUT_MS, SANDBOX_CASES } from './sandbox.cases.js';
import { expectOutcome, untilAllIdle } from './support.js';

// The shared suite: every runtime runs every case that applies to it (one pool per runtime).
const RUNTIMES: Array<{ language: SandboxLanguage; create: () => SandboxRuntime }> = [
  { language: 'python', create: () => createPythonRuntime() },
  { language: 'javascript', create: () => createJavascriptRuntime() },
];

process.env.TOOLSHED_SANDBOX_SECRET = 'must-not-reach-the-sandbox';

for (const { language, create } of RUNTIMES) {
  describe(`the ${language} sandbox`, () => {
    let pool: SandboxPool;

    beforeAll(async () => {
      pool = new SandboxPool({
        runtime: create(),
        size: 2,
        timeoutMs: CASE_TIMEOUT_MS,
        maxOutputChars: CASE_OUTPUT_CHARS,
      });
      await pool.start();
    });

    afterAll(() => pool.close());

    for (const testCase of SANDBOX_CASES) {
      const code = testCase.code[language];
      if (code === undefined) {
        it.skip(`${testCase.name} (skipped: ${testCase.skip?.[language] ?? 'no code for this language'})`, () => {});
        continue;
      }
      it(testCase.name, async () => {
        const before = testCase.before?.[language];
        if (before !== undefined) await pool.run(before);
        // A deadline is about the run, not the wait for a process: start from a warm pool.
        if (testCase.withinMs !== undefined) await untilAllIdle(pool);
        const startedAt = performance.now();
        const outcome = await pool.run(code);
        const elapsed = performance.now() - startedAt;
        const expected = 'ok' in testCase.expect ? testCase.expect : testCase.expect[language];
        if (expected === undefined) throw new Error(`Case '${testCase.name}' has no expectation for ${language}.`);
        expectOutcome(outcome, expected);
        if (testCase.withinMs !== undefined) expect(elapsed).toBeLessThan(testCase.withinMs);
      });
    }
  });
}
