import type { SandboxLanguage } from '../../src/sandbox/sandbox.js';
import type { Expectation } from './support.js';

/** The time limit the shared suite runs with (short, so the loops it stops cost little). */
export const CASE_TIMEOUT_MS = 1_500;
/** The output limit the shared suite runs with. */
export const CASE_OUTPUT_CHARS = 2_000;

/**
 * One behaviour every sandbox runtime must have. `code` per language (a language without code is
 * skipped with the reason in `skip`); `before` runs first on the same pool; `expect` applies to
 * every language unless given per language.
 */
export interface SandboxCase {
  name: string;
  code: Partial<Record<SandboxLanguage, string>>;
  skip?: Partial<Record<SandboxLanguage, string>>;
  before?: Partial<Record<SandboxLanguage, string>>;
  expect: Expectation | Partial<Record<SandboxLanguage, Expectation>>;
  /** The answer must come within this many milliseconds of the call. */
  withinMs?: number;
}

/** The shared sandbox suite (run by sandbox-conformance.test.ts for every runtime). */
export const SANDBOX_CASES: SandboxCase[] = [
  {
    name: 'returns what the code printed and the value of its last expression',
    code: { python: 'print("hello")\n6 * 7', javascript: 'console.log("hello");\n6 * 7' },
    expect: { ok: true, stdout: 'hello\n', stderr: '', result: 42, truncated: false },
  },
  {
    name: 'returns structured data as JSON',
    code: {
      python: '{"a": [1, 2.5, None, True], "b": "x"}',
      javascript: '({ a: [1, 2.5, null, true], b: "x" })',
    },
    expect: { ok: true, result: { a: [1, 2.5, null, true], b: 'x' } },
  },
  {
    name: 'returns no result when the code ends with a statement',
    code: { python: 'x = 1', javascript: 'let x = 1;' },
    expect: { ok: true, stdout: '', result: undefined },
  },
  {
    name: 'returns a value that is not JSON as text',
    code: { python: '{1, 2}', javascript: 'Symbol("s")' },
    expect: { python: { ok: true, result: '{1, 2}' }, javascript: { ok: true, result: 'Symbol(s)' } },
  },
  {
    name: 'keeps standard error apart from standard output',
    code: { javascript: 'console.log("out");\nconsole.error("err");' },
    skip: { python: 'writing to stderr needs the sys module, which the default allowlist leaves out' },
    expect: { ok: true, stdout: 'out\n', stderr: 'err\n' },
  },
  {
    name: 'reports an exception with its type, message and line',
    code: {
      python: 'x = 1\nraise ValueError("bad input")',
      javascript: 'const x = 1;\nthrow new RangeError("bad input");',
    },
    expect: {
      python: {
        ok: false,
        reason: 'exception',
        errorType: 'ValueError',
        line: 2,
        message: 'Python raised ValueError: bad input (line 2).',
      },
      javascript: {
        ok: false,
        reason: 'exception',
        errorType: 'RangeError',
        line: 2,
        message: 'JavaScript threw RangeError: bad input (line 2).',
      },
    },
  },
  {
    name: 'cuts a huge exception message',
    code: { python: 'raise ValueError("x" * 1_000_000)', javascript: 'throw new Error("x".repeat(1_000_000));' },
    expect: {
      ok: false,
      reason: 'exception',
      // The message keeps its first 500 characters; the traceback, in the details, its first 8 000.
      message: /^(Python raised ValueError|JavaScript threw Error): x{460,500}\.\.\. \(line 1\)\.$/,
    },
  },
  {
    name: 'keeps the output printed before an exception',
    code: { python: 'print("step 1")\n1 / 0', javascript: 'console.log("step 1");\nnull.x;' },
    expect: {
      python: { ok: false, reason: 'exception', errorType: 'ZeroDivisionError', stdout: 'step 1\n', line: 2 },
      javascript: { ok: false, reason: 'exception', errorType: 'TypeError', stdout: 'step 1\n', line: 2 },
    },
  },
  {
    name: 'reports a syntax error',
    code: { python: 'x = (1,\n', javascript: 'let = ;' },
    expect: {
      python: { ok: false, reason: 'exception', errorType: 'SyntaxError', message: /^Python raised SyntaxError: / },
      javascript: {
        ok: false,
        reason: 'exception',
        errorType: 'SyntaxError',
        message: /^JavaScript threw SyntaxError: /,
      },
    },
  },
  {
    name: 'stops an infinite loop at the time limit',
    code: { python: 'while True:\n    pass', javascript: 'while (true) {}' },
    expect: {
      python: {
        ok: false,
        reason: 'timeout',
        message: 'Python code ran longer than the 1.5 s time limit and was stopped.',
      },
      javascript: {
        ok: false,
        reason: 'timeout',
        message: 'JavaScript code ran longer than the 1.5 s time limit and was stopped.',
      },
    },
    withinMs: CASE_TIMEOUT_MS + 500,
  },
  {
    name: 'stops a loop that catches every exception at the time limit',
    code: {
      python: 'while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass',
      javascript: 'while (true) { try { for (;;) {} } catch (error) {} }',
    },
    expect: { ok: false, reason: 'timeout' },
    withinMs: CASE_TIMEOUT_MS + 500,
  },
  {
    name: 'stops a list that grows without bound at the memory limit',
    code: {
      python: 'items = []\nwhile True:\n    items.append("x" * 100_000 + str(len(items)))',
      // 100 kB an item, as in Python: the limit is reached in a few hundred steps, long before the time
      // limit even on a slow host (at 1 kB an item, a loaded 2-core host ran out of time first).
      javascript: 'const items = [];\nwhile (true) items.push("x".repeat(100_000) + items.length);',
    },
    expect: {
      python: {
        ok: false,
        reason: 'memory',
        errorType: 'MemoryError',
        message: 'Python code went over the 50 MB memory limit (MemoryError) and was stopped (line 3).',
      },
      javascript: {
        ok: false,
        reason: 'memory',
        message: 'JavaScript code went over the 50 MB memory limit (InternalError) and was stopped.',
      },
    },
  },
  {
    name: 'stops a single huge allocation at the memory limit',
    code: { python: 'bytearray(200 * 2**20)', javascript: 'new ArrayBuffer(200 * 2 ** 20)' },
    expect: { ok: false, reason: 'memory' },
  },
  {
    name: 'stops string doubling at the memory limit',
    code: {
      python: 's = "ab"\nwhile True:\n    s = s + s',
      javascript: 'let s = "ab";\nwhile (true) { s = s + s; s.charCodeAt(s.length - 1); }',
    },
    expect: { ok: false, reason: 'memory' },
  },
  {
    name: 'reports runaway recursion as an error',
    code: { python: 'def f(n):\n    return f(n + 1)\nf(0)', javascript: 'function f(n) { return f(n + 1); }\nf(0);' },
    expect: {
      python: {
        ok: false,
        reason: 'exception',
        errorType: 'RecursionError',
        message: /^Python raised RecursionError: maximum recursion depth exceeded/,
      },
      javascript: {
        ok: false,
        reason: 'exception',
        errorType: 'InternalError',
        message: /^JavaScript threw InternalError: stack overflow/,
      },
    },
  },
  {
    name: 'cuts 10 MB of output to the limit with a marker',
    code: { python: 'print("x" * 10_000_000)', javascript: 'console.log("x".repeat(10_000_000));' },
    expect: {
      ok: true,
      truncated: true,
      stdout: new RegExp(
        `^x{${CASE_OUTPUT_CHARS * 0.75}}\\n\\[\\.\\.\\. 9998001 characters of output truncated \\.\\.\\.\\]\\nx{${CASE_OUTPUT_CHARS * 0.25 - 1}}\\n$`,
      ),
    },
  },
  {
    name: 'keeps the beginning and the end of output made of many small writes',
    code: {
      python: 'for i in range(50_000):\n    print(i)',
      javascript: 'for (let i = 0; i < 50000; i++) console.log(i);',
    },
    expect: { ok: true, truncated: true, stdout: /^0\n1\n2\n[\s\S]*characters of output truncated[\s\S]*\n49999\n$/ },
  },
  {
    name: 'keeps Unicode output intact',
    code: { python: 'print("héllo ✓ 😀")', javascript: 'console.log("héllo ✓ 😀");' },
    expect: { ok: true, stdout: 'héllo ✓ 😀\n' },
  },
  {
    name: 'does not keep variables from one call to the next',
    before: { python: 'secret = 41', javascript: 'var secret = 41;' },
    code: { python: 'secret + 1', javascript: 'secret + 1' },
    expect: {
      python: { ok: false, reason: 'exception', errorType: 'NameError' },
      javascript: { ok: false, reason: 'exception', errorType: 'ReferenceError' },
    },
  },
  {
    name: 'does not keep changes to built-ins from one call to the next',
    before: { python: '__builtins__["len"] = lambda value: 0', javascript: 'Array.prototype.map = null;' },
    code: { python: 'len([1, 2])', javascript: '[1, 2].map((n) => n).length' },
    expect: { ok: true, result: 2 },
  },
  {
    name: "does not let one call's patching of a module reach the next call",
    before: {
      python: 'import json\njson.dumps = lambda *args, **kwargs: "patched"',
      javascript: 'JSON.stringify = () => "patched";',
    },
    code: { python: 'import json\njson.dumps([1])', javascript: 'JSON.stringify([1])' },
    expect: { ok: true, result: '[1]' },
  },
  {
    name: 'answers the next call after a timeout',
    before: { python: 'while True:\n    pass', javascript: 'while (true) {}' },
    code: { python: '1 + 1', javascript: '1 + 1' },
    expect: { ok: true, result: 2 },
  },
  {
    name: 'cannot load host modules',
    code: { python: 'import os', javascript: 'require("fs")' },
    expect: {
      python: {
        ok: false,
        reason: 'exception',
        errorType: 'ImportError',
        message:
          "Python raised ImportError: module 'os' is not allowed in the sandbox; allowed modules: datetime, json, math, re, typing (line 1).",
      },
      javascript: {
        ok: false,
        reason: 'exception',
        errorType: 'ReferenceError',
        message: "JavaScript threw ReferenceError: 'require' is not defined (line 1).",
      },
    },
  },
  {
    name: "cannot see the host's environment variables",
    code: {
      python: `${"imp = __import__('json').dumps.__globals__['__builtins__']['__import__']\n"}'TOOLSHED_SANDBOX_SECRET' in imp('os').environ`,
      javascript: 'typeof process',
    },
    expect: { python: { ok: true, result: false }, javascript: { ok: true, result: 'undefined' } },
  },
];
