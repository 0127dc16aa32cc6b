import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Expectation, expectOutcome, untilAllIdle } from '../../../test/sandbox/support.js';
import { SandboxPool } from '../sandbox-pool.js';
import { createJavascriptRuntime } from './javascript-runtime.js';

// Code may replace any built-in before `console` prints or its result is encoded: the helpers that
// run after it use built-ins taken before it ran, so it still gets its output and its own result or
// error — never a timeout it did not cause.

const TIMEOUT_MS = 1_500;
const LOOP = '() => { for (;;) {} }';

interface Case {
  name: string;
  code: string;
  expect: Expectation;
  long?: boolean;
}

const CASES: Case[] = [
  {
    name: 'String.prototype.replace replaced before the first console.log',
    code: `String.prototype.replace = ${LOOP}; console.log("a"); 2`,
    expect: { ok: true, stdout: 'a\n', stderr: '', result: 2 },
  },
  {
    name: 'String.prototype.replace replaced after console.log, before the last flush',
    code: `console.log("a"); console.error("b"); String.prototype.replace = ${LOOP}; 3`,
    expect: { ok: true, stdout: 'a\n', stderr: 'b\n', result: 3 },
  },
  {
    name: 'Array.prototype.join and map replaced',
    code: `Array.prototype.join = ${LOOP}; Array.prototype.map = ${LOOP}; console.log(1, "two", [3]); [4, 5]`,
    expect: { ok: true, stdout: '1 two [3]\n', result: [4, 5] },
  },
  {
    name: 'JSON.stringify replaced by one that throws',
    code: 'JSON.stringify = () => { throw new Error("no"); }; console.log({ a: 1 }); ({ b: [2] })',
    expect: { ok: true, stdout: '{"a":1}\n', result: { b: [2] } },
  },
  {
    name: 'every method the helpers could look up replaced, and the global String and globalThis',
    code: [
      `Object.keys = Object.defineProperty = Reflect.apply = ${LOOP};`,
      `Function.prototype.call = Function.prototype.apply = Function.prototype.bind = ${LOOP};`,
      `String.prototype.indexOf = String.prototype.slice = String.prototype.split = ${LOOP};`,
      `Object.prototype.toString = Object.prototype.isPrototypeOf = ${LOOP};`,
      `Array.prototype[Symbol.iterator] = function* () { for (;;) {} };`,
      'Object.prototype.get = function () { return 1; };',
      `globalThis.String = ${LOOP}; globalThis.globalThis = {};`,
      'console.log("still", [1, 2], new RangeError("r"), undefined, 10n, "x\\u0000y");',
      '({ ok: [1] })',
    ].join('\n'),
    expect: { ok: true, stdout: 'still [1,2] RangeError: r undefined 10 x\uFFFDy\n', result: { ok: [1] } },
  },
  {
    name: 'a frozen global object',
    code: 'Object.freeze(globalThis); console.log("frozen"); console.log("again"); 5',
    expect: { ok: true, stdout: 'frozen\nagain\n', result: 5 },
  },
  {
    name: 'a replaced built-in that the code itself calls',
    code: 'String.prototype.replace = () => { throw new Error("mine"); };\nconsole.log("before");\n"x".replace("x", "y")',
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'Error',
      message: 'JavaScript threw Error: mine (line 1).',
      stdout: 'before\n',
    },
  },
  {
    name: 'an Object.prototype.toJSON that would stand for the error thrown',
    code: 'Object.prototype.toJSON = () => ({ name: "Fake", message: "not this one" });\nthrow new TypeError("the real one")',
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'TypeError',
      message: 'JavaScript threw TypeError: the real one (line 2).',
      line: 2,
    },
  },
  {
    name: "an Object.prototype.toJSON that loops, reached by the code's own console.log",
    code: `Object.prototype.toJSON = ${LOOP}; console.log({}); 1`,
    expect: {
      ok: false,
      reason: 'timeout',
      message: 'JavaScript code ran longer than the 1.5 s time limit and was stopped.',
    },
    long: true,
  },
];

describe('JavaScript code that replaces built-ins', () => {
  let pool: SandboxPool;

  beforeAll(async () => {
    pool = new SandboxPool({ runtime: createJavascriptRuntime(), size: 2, timeoutMs: TIMEOUT_MS });
    await pool.start();
  });

  afterAll(async () => {
    await pool.close();
  });

  for (const entry of CASES) {
    it(`answers correctly: ${entry.name}`, async () => {
      if (entry.long === true) await untilAllIdle(pool);
      const outcome = await pool.run(entry.code);
      expectOutcome(outcome, entry.expect);
      if (entry.long !== true) expect(outcome.durationMs).toBeLessThan(TIMEOUT_MS / 2);
      // Nothing of the replaced built-ins reaches the next call.
      expectOutcome(await pool.run('console.log("next".replace("n", "N")); [1].join("")'), {
        ok: true,
        stdout: 'Next\n',
        result: '1',
      });
    });
  }
});
