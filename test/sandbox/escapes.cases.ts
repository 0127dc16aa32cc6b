import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Expectation, notAllowed, REAL_IMPORT } from './support.js';

// The sandbox escape catalogues, run against the pools (src/sandbox/*/…-escapes.test.ts) and through
// stored code tools of the service (test/server/code-tools.test.ts).

/** The time limit of most attempts; the pool allows up to `PYTHON_ESCAPE_POOL_TIMEOUT_MS` for slow imports. */
export const PYTHON_ESCAPE_TIMEOUT_MS = 1_500;
/** The pool's own limit in the Python catalogue, for the attempts that need longer. */
export const PYTHON_ESCAPE_POOL_TIMEOUT_MS = 5_000;
/** A host file the catalogue tries to write: it must never exist. */
export const PYTHON_ESCAPE_HOST_FILE = join(tmpdir(), `toolshed-sandbox-escape-${process.pid}.txt`);
const BYPASS = REAL_IMPORT;
/** The host folder Pyodide is loaded from: no string the code can read names it. */
const PYODIDE_DIR = 'node_modules/pyodide';

/** One attempt to get out of the sandbox, and how it must end. */
export interface EscapeAttempt {
  name: string;
  code: (port: number) => string;
  expect: Expectation;
  /** The attack takes a while (a loop, a memory bomb): check the host serves meanwhile. */
  long?: boolean;
  /** A time limit other than `ESCAPE_TIMEOUT_MS` (importing urllib takes a while). */
  timeoutMs?: number;
}

const CRASHED_BY_PERMISSION =
  /^The Python sandbox stopped: The runtime failed: Error: Access to this API has been restricted \(ERR_ACCESS_DENIED ChildProcess\); it was replaced and the next call starts fresh\.$/;

/**
 * The Python escape catalogue: the first group meets the friendly first line of defence (the import
 * allowlist); every later one starts by bypassing it, so the process boundary is what holds.
 */
export const PYTHON_ESCAPES: EscapeAttempt[] = [
  // The import allowlist (friendly first line of defence).
  ...['os', 'subprocess', 'socket', 'sys', 'importlib', 'ctypes', 'js', 'pyodide', 'pyodide_js', 'builtins'].map(
    (module): EscapeAttempt => ({
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
      `${BYPASS}f = __import__('json').dumps.__globals__['__builtins__']['open']('${PYTHON_ESCAPE_HOST_FILE}', 'w')\nf.write('pwned')\nf.close()\n'written'`,
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
    timeoutMs: PYTHON_ESCAPE_POOL_TIMEOUT_MS,
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

/** The time limit of the JavaScript attempts. */
export const JAVASCRIPT_ESCAPE_TIMEOUT_MS = 1_500;

/** A JavaScript attempt. */
export interface JavascriptAttempt extends EscapeAttempt {
  /** QuickJS stops it by itself: the sandbox is kept, not replaced. */
  keepsSandbox?: boolean;
}

const HOST_NAMES = [
  'process',
  'require',
  'module',
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'WebAssembly',
  'setTimeout',
  'setInterval',
  'std',
  'os',
  'Deno',
  'Bun',
  'Buffer',
  'global',
];

/**
 * The JavaScript escape catalogue: QuickJS offers no host object at all, so most attempts find
 * nothing to reach; the rest are resource attacks stopped by QuickJS's own limits (memory, stack,
 * deadline interrupt) inside a child process.
 */
export const JAVASCRIPT_ESCAPES: JavascriptAttempt[] = [
  {
    name: 'require("child_process")',
    code: () => 'require("child_process").execSync("id")',
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'ReferenceError',
      message: "JavaScript threw ReferenceError: 'require' is not defined (line 1).",
    },
  },
  {
    name: 'import("fs")',
    code: () => 'import("fs").then((fs) => fs.readFileSync("/etc/passwd", "utf8"))',
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'ReferenceError',
      message: "JavaScript threw ReferenceError: could not load module 'fs'.",
    },
  },
  {
    name: 'look for host objects on globalThis',
    code: () => `${JSON.stringify(HOST_NAMES)}.filter((name) => name in globalThis)`,
    expect: { ok: true, result: [] },
  },
  {
    name: 'reach process through the Function constructor',
    code: () => '(function () {}).constructor("return typeof process + typeof require")()',
    expect: { ok: true, result: 'undefinedundefined' },
  },
  {
    name: 'fetch from a loopback server on the host',
    code: (port) => `fetch("http://127.0.0.1:${port}/")`,
    expect: {
      ok: false,
      reason: 'exception',
      errorType: 'ReferenceError',
      message: "JavaScript threw ReferenceError: 'fetch' is not defined (line 1).",
    },
  },
  {
    name: 'open a WebSocket to the loopback server',
    code: (port) => `new WebSocket("ws://127.0.0.1:${port}/")`,
    expect: { ok: false, reason: 'exception', errorType: 'ReferenceError' },
  },
  {
    name: 'compile WebAssembly',
    code: () => 'new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]))',
    expect: { ok: false, reason: 'exception', errorType: 'ReferenceError' },
  },
  {
    name: 'leave a prototype change for the next call',
    code: () => 'Object.prototype.polluted = "yes"; ({}).polluted',
    expect: { ok: true, result: 'yes' },
  },
  {
    name: "find the previous call's prototype change",
    code: () => '({}).polluted',
    expect: { ok: true, result: undefined },
  },
  {
    name: 'an infinite loop',
    code: () => 'while (true) {}',
    expect: {
      ok: false,
      reason: 'timeout',
      message: 'JavaScript code ran longer than the 1.5 s time limit and was stopped.',
    },
    long: true,
    keepsSandbox: true,
  },
  {
    name: 'an infinite loop that catches every error',
    code: () => 'while (true) { try { for (;;) {} } catch (error) {} }',
    expect: { ok: false, reason: 'timeout' },
    long: true,
    keepsSandbox: true,
  },
  {
    name: 'an infinite loop inside a getter that console.log reads',
    code: () => 'console.log({ get trap() { for (;;) {} } })',
    expect: { ok: false, reason: 'timeout' },
    long: true,
    keepsSandbox: true,
  },
  {
    name: 'a promise chain that never ends',
    code: () => 'const spin = () => { Promise.resolve().then(spin); }; spin(); new Promise(() => {})',
    expect: { ok: false, reason: 'timeout' },
    long: true,
  },
  {
    name: 'an ArrayBuffer of 1 GB',
    code: () => 'new ArrayBuffer(2 ** 30).byteLength',
    expect: { ok: false, reason: 'memory' },
  },
  {
    name: 'an array that grows forever',
    // 100 000 elements an array, so the memory limit comes in a few dozen steps, not at the time limit.
    code: () => 'const items = []; while (true) items.push(new Array(100_000).fill(1));',
    expect: { ok: false, reason: 'memory' },
    long: true,
  },
  {
    name: 'string doubling',
    code: () => 'let s = "x"; while (true) { s += s; s.charCodeAt(s.length - 1); }',
    expect: { ok: false, reason: 'memory' },
    long: true,
  },
  {
    name: 'deep recursion',
    code: () => 'const f = (n) => f(n + 1) + 1; f(0)',
    expect: { ok: false, reason: 'exception', errorType: 'InternalError', message: /stack overflow/ },
  },
  {
    name: '10 MB of output',
    code: () => 'console.log("A".repeat(10_000_000))',
    expect: { ok: true, truncated: true, stdout: /characters of output truncated/ },
  },
  {
    name: 'a huge result value',
    code: () => '"B".repeat(1_000_000)',
    expect: { ok: true, truncated: true },
  },
  {
    name: 'NUL characters in output',
    code: () => 'console.log("a\\u0000b"); 1',
    expect: { ok: true, stdout: 'a\uFFFDb\n', result: 1 },
  },
];
