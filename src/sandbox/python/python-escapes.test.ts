import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Expectation,
  expectOutcome,
  notAllowed,
  REAL_IMPORT,
  startLoopbackServer,
  untilAllIdle,
  watchEventLoop,
} from '../../../test/sandbox/support.js';
import { SandboxPool } from '../sandbox-pool.js';
import { createPythonRuntime } from './python-runtime.js';

// The Python escape catalogue: each attempt must be contained with the error shown, the host must
// keep serving (a trivial call on another sandbox answers, the event loop keeps ticking), and the
// next call must succeed. The first group meets the friendly first line of defence (the import
// allowlist); every later one starts by bypassing it, so the process boundary is what holds.

/** The time limit of most attempts; the pool allows up to `POOL_TIMEOUT_MS` for slow imports. */
const TIMEOUT_MS = 1_500;
const POOL_TIMEOUT_MS = 5_000;
const HOST_FILE = join(tmpdir(), `toolshed-sandbox-escape-${process.pid}.txt`);
const BYPASS = REAL_IMPORT;
/** The host folder Pyodide is loaded from: no string the code can read names it. */
const PYODIDE_DIR = 'node_modules/pyodide';

interface Attempt {
  name: string;
  code: (port: number) => string;
  expect: Expectation;
  /** The attack takes a while (a loop, a memory bomb): check the host serves meanwhile. */
  long?: boolean;
  /** A time limit other than `TIMEOUT_MS` (importing urllib takes a while). */
  timeoutMs?: number;
}

const CRASHED_BY_PERMISSION =
  /^The Python sandbox stopped: The runtime failed: Error: Access to this API has been restricted \(ERR_ACCESS_DENIED ChildProcess\); it was replaced and the next call starts fresh\.$/;

const ATTEMPTS: Attempt[] = [
  // The import allowlist (friendly first line of defence).
  ...['os', 'subprocess', 'socket', 'sys', 'importlib', 'ctypes', 'js', 'pyodide', 'pyodide_js', 'builtins'].map(
    (module): Attempt => ({
      name: `import ${module}`,
      code: () => `import ${module}`,
      expect: { ok: false, reason: 'exception', errorType: 'ImportError', message: notAllowed(module) },
    }),
  ),
  {
    name: 'from os import path',
    code: () => 'from os import path',
    expect: { ok: false, reason: 'exception', errorType: 'ImportError', message: notAllowed('os') },
  },
  {
    name: '__import__("subprocess")',
    code: () => '__import__("subprocess")',
    expect: { ok: false, reason: 'exception', errorType: 'ImportError', message: notAllowed('subprocess') },
  },
  {
    name: 'from pyodide.code import run_js',
    code: () => 'from pyodide.code import run_js',
    expect: { ok: false, reason: 'exception', errorType: 'ImportError', message: notAllowed('pyodide') },
  },
  {
    name: 'read /etc/passwd with open()',
    code: () => 'open("/etc/passwd").read()',
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'PermissionError',
      message:
        'Python raised PermissionError: open() is not available in the sandbox: the code cannot read or write files; put the data in the code instead (line 1).',
    },
  },
  {
    name: 'read standard input with input()',
    code: () => 'input()',
    expect: { ok: false, reason: 'exception', errorType: 'EOFError' },
  },

  // Past the allowlist: the process boundary.
  {
    name: 'os.system through json.dumps.__globals__',
    code: () => `${BYPASS}imp('os').system('id')`,
    expect: { ok: false, reason: 'crashed', message: CRASHED_BY_PERMISSION },
  },
  {
    name: 'sys.modules through object.__subclasses__() and BuiltinImporter',
    code: () =>
      "importer = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'BuiltinImporter'][0]\nimporter.load_module('sys').modules['os'].system('id')",
    expect: { ok: false, reason: 'crashed', message: CRASHED_BY_PERMISSION },
  },
  {
    name: 'os.system through typing.sys.modules',
    code: () => "import typing\ntyping.sys.modules['os'].system('cat /etc/passwd')",
    expect: { ok: false, reason: 'crashed', message: CRASHED_BY_PERMISSION },
  },
  {
    name: 'system() through ctypes',
    code: () => `${BYPASS}imp('ctypes').CDLL(None).system(b'id')`,
    expect: { ok: false, reason: 'crashed', message: CRASHED_BY_PERMISSION },
  },
  {
    name: 'spawn a process with subprocess.run',
    code: () => `${BYPASS}imp('subprocess').run(['id'])`,
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'OSError',
      message: 'Python raised OSError: [Errno 138] emscripten does not support processes. (line 2).',
    },
  },
  {
    name: 'os.fork()',
    code: () => `${BYPASS}imp('os').fork()`,
    expect: { ok: false, reason: 'exception', errorType: 'OSError', message: /Function not implemented/ },
  },
  {
    name: 'signal pid 1 with os.kill',
    code: () => `${BYPASS}imp('os').kill(1, 9)`,
    expect: { ok: false, reason: 'exception', errorType: 'PermissionError' },
  },
  {
    name: 'read /etc/passwd with os.open',
    code: () => `${BYPASS}imp('os').open('/etc/passwd', 0)`,
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'FileNotFoundError',
      message: "Python raised FileNotFoundError: [Errno 44] No such file or directory: '/etc/passwd' (line 2).",
    },
  },
  {
    name: 'list the root folder (only the virtual file system is there)',
    code: () => `${BYPASS}sorted(imp('os').listdir('/'))`,
    expect: { ok: true, result: ['dev', 'home', 'lib', 'proc', 'tmp'] },
  },
  {
    name: "reach Pyodide's JavaScript API through sys.modules",
    code: () => `${BYPASS}imp('sys').modules['pyodide_js'].FS`,
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'KeyError',
      message: "Python raised KeyError: 'pyodide_js' (line 2).",
    },
  },
  {
    name: "import Pyodide's JavaScript API with the real import",
    code: () => `${BYPASS}imp('pyodide_js')._api.scheduleCallback`,
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'ModuleNotFoundError',
      message: "Python raised ModuleNotFoundError: No module named 'pyodide_js' (line 2).",
    },
  },
  {
    name: 'find a JavaScript object anywhere through the garbage collector',
    code: () =>
      `${BYPASS}gc = imp('gc')\njs_proxy = imp('pyodide.ffi', fromlist=['JsProxy']).JsProxy\nsorted({type(holder).__name__ for holder in gc.get_objects() for value in gc.get_referents(holder) if isinstance(value, js_proxy)})`,
    expect: { ok: true, result: [] },
  },
  {
    name: "find the loaders of Pyodide's JavaScript modules (the way to NODEFS stream_ops and the run channel)",
    code: () =>
      `${BYPASS}gc = imp('gc')\n[type(holder).__name__ for holder in gc.get_objects() if type(holder).__name__ == 'JsLoader' or (type(holder).__name__ == 'ModuleSpec' and holder.name.partition('.')[0] in ('js', 'pyodide_js'))]`,
    expect: { ok: true, result: [] },
  },
  {
    name: "the host's Pyodide folder (the API's indexURL, sys.path, module files, the environment)",
    code: () =>
      `${BYPASS}sys = imp('sys')\nhits = [path for path in sys.path if '${PYODIDE_DIR}' in path]\nfor name, module in list(sys.modules.items()):\n    hits += [name + '.' + key for key, value in list(vars(module).items()) if isinstance(value, str) and '${PYODIDE_DIR}' in value]\nhits += [key for key, value in imp('os').environ.items() if '${PYODIDE_DIR}' in value]\nhits`,
    expect: { ok: true, result: [] },
  },
  {
    name: 'the Function constructor through a JavaScript object made by to_js',
    code: () =>
      `${BYPASS}ffi = imp('pyodide.ffi', fromlist=['to_js'])\nffi.to_js([1]).constructor.constructor('return process')()`,
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'JsException',
      message: /EvalError: Code generation from strings disallowed/,
    },
  },
  {
    name: 'write a file outside with the real open() (lands in the virtual file system)',
    code: () =>
      `${BYPASS}f = __import__('json').dumps.__globals__['__builtins__']['open']('${HOST_FILE}', 'w')\nf.write('pwned')\nf.close()\n'written'`,
    expect: { ok: true, result: 'written' },
  },
  {
    name: 'open a socket to a loopback server on the host',
    code: (port) => `${BYPASS}s = imp('socket').create_connection(('127.0.0.1', ${port}), timeout=1)\ns.send(b'hello')`,
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'OSError',
      message: 'Python raised OSError: [Errno 23] Host is unreachable (line 2).',
    },
  },
  {
    name: 'HTTP request to the loopback server with urllib',
    code: (port) => `${BYPASS}imp('urllib.request', fromlist=['urlopen']).urlopen('http://127.0.0.1:${port}/').read()`,
    expect: { ok: false, reason: 'exception', errorType: 'URLError', message: /Host is unreachable/ },
    timeoutMs: POOL_TIMEOUT_MS,
  },
  {
    name: 'HTTP request to the loopback server with pyodide.http',
    code: (port) => `${BYPASS}imp('pyodide.http', fromlist=['open_url']).open_url('http://127.0.0.1:${port}/')`,
    expect: { ok: false, reason: 'exception', errorType: 'NameError', message: /XMLHttpRequest/ },
  },
  {
    name: 'reach process through the js module',
    code: () => `${BYPASS}imp('js').process`,
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'ModuleNotFoundError',
      message: "Python raised ModuleNotFoundError: No module named 'js' (line 2).",
    },
  },
  {
    name: 'run JavaScript with pyodide.code.run_js',
    code: () => `${BYPASS}imp('sys').modules['pyodide.code'].run_js('process.exit(0)')`,
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'ModuleNotFoundError',
      message: "Python raised ModuleNotFoundError: No module named 'js' (line 2).",
    },
  },
  {
    name: 'forge a protocol message on file descriptor 3',
    code: () => `${BYPASS}imp('os').write(3, b'{"type": "result", "id": 1, "ok": true}\\n')`,
    expect: { ok: false, reason: 'exception', errorType: 'OSError', message: /Bad file descriptor/ },
  },
  {
    name: "read the pool's messages from standard input",
    code: () => `${BYPASS}imp('os').read(0, 100)`,
    expect: { ok: false, reason: 'exception', errorType: 'OSError', message: /I\/O error/ },
  },
  {
    name: 'start a thread',
    code: () => `${BYPASS}imp('threading').Thread(target=print).start()`,
    expect: { ok: false, reason: 'exception', errorType: 'RuntimeError', message: /can't start new thread/ },
  },
  {
    name: "read the host's environment variables",
    code: () => `${BYPASS}sorted(k for k in imp('os').environ if 'SECRET' in k or 'KEY' in k or 'TOKEN' in k)`,
    expect: { ok: true, result: [] },
  },
  {
    name: 'exit the interpreter with sys.exit(3)',
    code: () => `${BYPASS}imp('sys').exit(3)`,
    expect: { ok: false, reason: 'exception', errorType: 'SystemExit', message: /exited with status 3/ },
  },

  // Resources.
  {
    name: 'an infinite loop',
    code: () => 'while True:\n    pass',
    expect: {
      ok: false,
      reason: 'timeout',
      message: 'Python code ran longer than the 1.5 s time limit and was stopped.',
    },
    long: true,
  },
  {
    name: 'an infinite loop that catches BaseException',
    code: () =>
      'while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        continue',
    expect: { ok: false, reason: 'timeout' },
    long: true,
  },
  {
    name: 'a bytearray of 1 GB',
    code: () => 'bytearray(10**9)',
    expect: { ok: false, reason: 'memory', errorType: 'MemoryError' },
    long: true,
  },
  {
    name: 'a list that grows forever',
    code: () => 'items = []\nwhile True:\n    items.append([0] * 1000)',
    expect: { ok: false, reason: 'memory', errorType: 'MemoryError' },
    long: true,
  },
  {
    name: 'string doubling',
    code: () => 's = "x"\nwhile True:\n    s += s',
    expect: { ok: false, reason: 'memory', errorType: 'MemoryError' },
    long: true,
  },
  {
    name: 'deep recursion',
    code: () => 'def f(n):\n    return f(n + 1)\nf(0)',
    expect: { ok: false, reason: 'exception', errorType: 'RecursionError' },
  },
  {
    name: 'deep recursion after sys.setrecursionlimit(10**6)',
    code: () => `${BYPASS}imp('sys').setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\nf(0)`,
    expect: { ok: false, reason: 'crashed', message: /Maximum call stack size exceeded/ },
    long: true,
  },
  {
    name: '10 MB of output',
    code: () => 'print("A" * 10_000_000)',
    expect: { ok: true, truncated: true, stdout: /characters of output truncated/ },
  },
];

describe('the Python escape catalogue', () => {
  let pool: SandboxPool;
  let server: Awaited<ReturnType<typeof startLoopbackServer>>;

  beforeAll(async () => {
    rmSync(HOST_FILE, { force: true });
    server = await startLoopbackServer();
    pool = new SandboxPool({
      runtime: createPythonRuntime(),
      size: 3,
      timeoutMs: POOL_TIMEOUT_MS,
      maxOutputChars: 5_000,
    });
    await pool.start();
  });

  afterAll(async () => {
    await pool.close();
    await server.close();
    rmSync(HOST_FILE, { force: true });
  });

  it('has at least 30 attempts', () => {
    expect(ATTEMPTS.length).toBeGreaterThanOrEqual(30);
  });

  for (const attempt of ATTEMPTS) {
    it(`contains: ${attempt.name}`, async () => {
      if (attempt.long === true) await untilAllIdle(pool);
      const loop = watchEventLoop();
      const attack = pool.run(attempt.code(server.port), { timeoutMs: attempt.timeoutMs ?? TIMEOUT_MS });
      if (attempt.long === true) {
        // While the attack runs, another sandbox answers a trivial call.
        const startedAt = performance.now();
        const bystander = await pool.run('sum(range(10))');
        expectOutcome(bystander, { ok: true, result: 45 });
        expect(performance.now() - startedAt).toBeLessThan(1_500);
      }
      const outcome = await attack;
      const { longestGapMs } = loop.stop();
      expectOutcome(outcome, attempt.expect);
      expect(longestGapMs).toBeLessThan(250);
      // Whatever happened, the next call succeeds (on a replacement sandbox if need be).
      expectOutcome(await pool.run('6 * 7'), { ok: true, result: 42 });
    });
  }

  it('the loopback server received no connection and no byte', () => {
    expect(server.connections()).toBe(0);
    expect(server.bytes()).toBe(0);
  });

  it('no file was written on the host', () => {
    expect(existsSync(HOST_FILE)).toBe(false);
  });

  it('replaced the sandboxes that crashed, timed out or ran out of memory', () => {
    expect(pool.stats().recycled).toBeGreaterThanOrEqual(8);
  });
});
