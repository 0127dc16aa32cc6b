/**
 * The Python sandbox child: Pyodide in a Node process started by the pool under the permission
 * model, in its own network and pid namespaces. See ../child-host.mjs for the protocol.
 *
 * Modes (from the `init` message's config):
 * - `snapshot`: load Pyodide cold, import the common modules, write a memory snapshot to
 *   `snapshotPath` (the only file this child may write), say `prepared`, exit. Runs no user code.
 * - `serve` (default): load Pyodide (from `snapshotPath` when given), install the prelude, serve runs.
 */

import { constants as fsConstants, readFileSync, writeFileSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { byteWriter, serveSandbox } from '../child-host.mjs';

// Pyodide's NODEFS reads process.binding('constants'), which the permission model forbids. Offer
// exactly those constants and nothing else.
const bindingConstants = Object.freeze({ fs: fsConstants, os: osConstants });
Object.defineProperty(process, 'binding', {
  value: (name) => {
    if (name === 'constants') return bindingConstants;
    throw new Error(`process.binding('${String(name)}') is not available in the sandbox.`);
  },
  writable: false,
  configurable: false,
});

/** Modules imported before a snapshot is taken, so runs that use them start warm. */
const PRELOADED = 'import json, re, typing, math, datetime, ast, traceback, gc, io';

/**
 * The prelude: the friendly first line of defence (an import allowlist, no open() or input()) and
 * the runner. The real boundary is the process around it: anything here can be bypassed by code
 * that reaches object.__subclasses__() or a module's __builtins__, and that is fine.
 */
const PRELUDE = String.raw`
import builtins as _builtins, sys as _sys, json as _json, ast as _ast, traceback as _traceback, gc as _gc, io as _io

_FILENAME = '<code>'
_REAL_IMPORT = _builtins.__import__
_ALLOWED = frozenset()
_MAX_FRAMES = 12

# Modules are shared by every run in this process. A run that replaces something in the modules
# code may import (json.dumps = ..., a method's __code__, sys.modules['json']) would change what
# later runs see, so such a run asks for its sandbox to be replaced. The check walks with C-level
# iterators (well under a millisecond). Code that escapes the allowlist can hide deeper changes;
# that is what maxRunsPerSandbox: 1 is for.
from itertools import chain as _chain
from operator import attrgetter as _attrgetter, methodcaller as _methodcaller
_WATCHED = _NAMESPACES = _CLASSES = _FUNCTIONS = ()
_BASELINE = None

def _toolshed_configure(allowed_json):
    global _ALLOWED, _WATCHED, _NAMESPACES, _CLASSES, _FUNCTIONS, _BASELINE
    _ALLOWED = frozenset(_json.loads(allowed_json))
    for name in _ALLOWED:
        try:
            _REAL_IMPORT(name)
        except ImportError:
            pass
    _WATCHED = tuple(sorted(name for name in _sys.modules if name.partition('.')[0] in _ALLOWED))
    watched = set(_WATCHED)
    _NAMESPACES = tuple(vars(_sys.modules[name]) for name in _WATCHED)
    _CLASSES = tuple(value for namespace in _NAMESPACES for value in namespace.values()
                     if type(value) is type and getattr(value, '__module__', None) in watched)
    function = type(_toolshed_configure)
    _FUNCTIONS = tuple(value for namespace in _NAMESPACES + tuple(vars(cls) for cls in _CLASSES)
                       for value in namespace.values() if type(value) is function)
    _BASELINE = _fingerprint()

def _fingerprint(_hash=hash, _tuple=tuple, _map=map, _id=id, _flat=_chain.from_iterable,
                 _values=_methodcaller('values'), _vars=vars, _code=_attrgetter('__code__'), _modules=_sys.modules):
    return _hash((
        _tuple(_map(_id, _map(_modules.get, _WATCHED))),
        _tuple(_map(_id, _flat(_map(_values, _NAMESPACES)))),
        _tuple(_map(_id, _flat(_map(_values, _map(_vars, _CLASSES))))),
        _tuple(_map(_id, _map(_code, _FUNCTIONS))),
    ))

def _not_allowed(name):
    allowed = ', '.join(sorted(_ALLOWED)) or 'none'
    return f"module '{name}' is not allowed in the sandbox; allowed modules: {allowed}"

def _guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0:
        top = name.partition('.')[0]
        if top not in _ALLOWED:
            raise ImportError(_not_allowed(top), name=top)
    return _REAL_IMPORT(name, globals, locals, fromlist, level)

def _no_open(*args, **kwargs):
    raise PermissionError('open() is not available in the sandbox: the code cannot read or write files; put the data in the code instead')

def _no_input(*args, **kwargs):
    raise EOFError('input() is not available in the sandbox: there is no standard input; put the data in the code instead')

_BUILTINS = dict(_builtins.__dict__)
_BUILTINS['__import__'] = _guarded_import
_BUILTINS['open'] = _no_open
_BUILTINS['input'] = _no_input
for _name in ('breakpoint', 'help', 'copyright', 'credits', 'license'):
    _BUILTINS.pop(_name, None)

# Block-buffered streams: one write per 64 KB instead of one per print() call.
def _stream(fd):
    return _io.TextIOWrapper(_io.BufferedWriter(_io.FileIO(fd, 'w', closefd=False), 1 << 16), encoding='utf-8', errors='backslashreplace', line_buffering=False)

_STDOUT = _stream(1)
_STDERR = _stream(2)

def _line_of(error):
    line = None
    if isinstance(error, SyntaxError) and error.filename == _FILENAME:
        line = error.lineno
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == _FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line

def _user_traceback(error, source_lines):
    try:
        frames = [frame for frame in _traceback.extract_tb(error.__traceback__) if frame.filename == _FILENAME]
    except BaseException:
        frames = []
    lines = []
    if frames:
        lines.append('Traceback (most recent call last):')
        if len(frames) > _MAX_FRAMES:
            lines.append(f'  ... {len(frames) - _MAX_FRAMES} more frames ...')
            frames = frames[-_MAX_FRAMES:]
        for frame in frames:
            lines.append(f'  line {frame.lineno}, in {frame.name}')
            if frame.lineno is not None and 0 < frame.lineno <= len(source_lines):
                lines.append('    ' + source_lines[frame.lineno - 1].strip()[:200])
    lines.extend(part.rstrip('\n') for part in _traceback.format_exception_only(type(error), error))
    return '\n'.join(lines)

def _message(error):
    try:
        text = str(error)
    except BaseException:
        text = ''
    return text if len(text) <= 2000 else text[:2000] + '...'

def _failure(error, code):
    memory = isinstance(error, MemoryError)
    name = type(error).__name__
    message = _message(error)
    line = _line_of(error)
    _gc.collect()
    try:
        traceback_text = _user_traceback(error, code.splitlines())
    except BaseException:
        traceback_text = f'{name}: {message}'
    error.__traceback__ = None
    return {'ok': False, 'reason': 'memory' if memory else 'exception', 'errorType': name, 'message': message,
            'traceback': traceback_text, 'line': line, 'recycle': memory}

def _encode(value, limit):
    try:
        text = _json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError, OverflowError):
        text = None
    if text is not None and len(text) <= limit:
        return {'resultJson': text}
    shown = repr(value) if text is None else text
    if len(shown) > limit:
        return {'resultText': shown[:limit] + f'... [{len(shown) - limit} characters truncated]', 'truncated': True}
    return {'resultText': shown}

def _toolshed_seal():
    # Cut every path from Python to the host's JavaScript that Pyodide leaves open: the modules js and
    # pyodide_js (whose FS, _module and _api reach file descriptors, NODEFS and the event loop), and
    # every JsProxy that a module, an import hook or a loader keeps. Only those places are looked at:
    # a walk over every object would cost ~170 ms a process. src/sandbox/python/python-escapes.test.ts makes
    # that walk and fails if anything is left.
    # The C type every kind of JavaScript value derives from. pyodide.ffi.JsProxy is a stand-in whose
    # isinstance check runs Python code, which made this walk take several times as long.
    jsproxy = type(_sys.modules['pyodide_js']).__mro__[-2]
    module_type = type(_sys)
    seen = set()
    removed = [_sys.modules.pop(name) for name in list(_sys.modules)
               if name == 'js' or name.partition('.')[0] == 'pyodide_js']
    def scrub(holder, depth):
        if depth < 0 or id(holder) in seen:
            return
        seen.add(id(holder))
        if type(holder) is list:
            holder[:] = [value for value in holder if not isinstance(value, jsproxy)]
            return
        if type(holder) is dict:
            namespace = holder
        elif isinstance(holder, (module_type, str, bytes, int, float, tuple, frozenset)):
            return
        else:
            namespace = getattr(holder, '__dict__', None)
            for cls in type(holder).__mro__:
                slots = cls.__dict__.get('__slots__', ())
                for name in (slots,) if isinstance(slots, str) else slots:
                    if isinstance(getattr(holder, name, None), jsproxy):
                        delattr(holder, name)
            if namespace is None:
                return
        for key, value in list(namespace.items()):
            if not isinstance(value, jsproxy):
                scrub(value, depth - 1)
            elif type(namespace) is dict:
                del namespace[key]
            else:
                delattr(holder, key)
    # depth: how many levels below the object to look. The import hook keeps its JavaScript modules
    # one dict down, and the loaders of the removed modules (reachable through the gc module) keep
    # theirs as an attribute; modules keep theirs in their own namespace.
    for finder in _sys.meta_path:
        scrub(finder, 2)
    for module in removed:
        for loader in (getattr(module, '__loader__', None), getattr(getattr(module, '__spec__', None), 'loader', None)):
            if loader is not None:
                scrub(loader, 1)
    for module in list(_sys.modules.values()):
        scrub(getattr(module, '__dict__', {}), 0)

def _toolshed_run(code, max_result_chars):
    _sys.stdout, _sys.stderr = _STDOUT, _STDERR
    namespace = {'__name__': '__main__', '__doc__': None, '__builtins__': dict(_BUILTINS)}
    try:
        tree = _ast.parse(code, _FILENAME, 'exec')
        last = None
        if tree.body and isinstance(tree.body[-1], _ast.Expr):
            last = _ast.Expression(tree.body.pop().value)
        exec(compile(tree, _FILENAME, 'exec'), namespace)
        value = None if last is None else eval(compile(last, _FILENAME, 'eval'), namespace)
        payload = {'ok': True}
        if value is not None:
            payload.update(_encode(value, max_result_chars))
    except SystemExit as stop:
        if stop.code is None or stop.code == 0:
            payload = {'ok': True}
        else:
            payload = _failure(stop, code)
            payload['message'] = f'the code exited with status {stop.code!r}'
    except BaseException as error:
        namespace.clear()
        payload = _failure(error, code)
    finally:
        # A profile or trace function the code installed would run inside the host's conversion of
        # the answer.
        _sys.setprofile(None)
        _sys.settrace(None)
        namespace.clear()
        for stream in (_STDOUT, _STDERR):
            try:
                stream.flush()
            except BaseException:
                pass
    if _fingerprint() != _BASELINE:
        payload['recycle'] = True
    return payload
`;

function discard() {}

serveSandbox(async (config) => {
  const { loadPyodide } = await import(pathToFileURL(join(config.pyodideDir, 'pyodide.mjs')).href);
  const options = {
    indexURL: `${config.pyodideDir}/`,
    // The `js` module sees an empty object, not globalThis: `import js` offers nothing to reach.
    jsglobals: Object.freeze(Object.create(null)),
    stdout: discard,
    stderr: discard,
    env: { HOME: '/home/sandbox' },
    args: [],
    // Otherwise sys.executable and $_ would show the host path of this script.
    _sysExecutable: '/usr/bin/python3',
  };

  if (config.mode === 'snapshot') {
    const pyodide = await loadPyodide({ ...options, _makeSnapshot: true });
    pyodide.runPython(PRELOADED);
    const bytes = pyodide.makeMemorySnapshot();
    writeFileSync(config.snapshotPath, bytes);
    return { prepared: { bytes: bytes.length } };
  }

  if (typeof config.snapshotPath === 'string') options._loadSnapshot = readFileSync(config.snapshotPath);
  const pyodide = await loadPyodide(options);
  pyodide.setStdin({ error: true });
  pyodide.runPython(PRELOADED);
  pyodide.runPython(PRELUDE);
  pyodide.globals.get('_toolshed_configure')(JSON.stringify(config.allowedModules ?? []));
  const runner = pyodide.globals.get('_toolshed_run');
  // Compile the paths every run takes (success, exception, traceback) before the first real call.
  runner('value = [1, 2]\nvalue', 100);
  runner('1 / 0', 100);
  // Output goes to the current run's captures; between runs there is none to write to.
  let out;
  let err;
  pyodide.setStdout({ isatty: false, write: (bytes) => out?.write(bytes) ?? bytes.length });
  pyodide.setStderr({ isatty: false, write: (bytes) => err?.write(bytes) ?? bytes.length });
  const memory = pyodide._module.memory;
  pyodide.globals.get('_toolshed_seal')();
  // The API object behind `pyodide_js` loses everything (FS, _module, _api with its host paths and
  // scheduler), in case Python finds a way back to it; the runner above is all this host needs.
  for (const key of Reflect.ownKeys(pyodide)) delete pyodide[key];
  Object.freeze(pyodide);

  return {
    memory,
    run(code, { stdout, stderr, maxResultChars }) {
      out = byteWriter(stdout);
      err = byteWriter(stderr);
      let payload;
      try {
        // A dict of strings, numbers and booleans, converted by Pyodide rather than by Python code
        // that the run could have patched.
        const proxy = runner(code, maxResultChars);
        try {
          payload = proxy.toJs({ dict_converter: Object.fromEntries });
        } finally {
          proxy.destroy();
        }
      } finally {
        out.flush();
        err.flush();
        out = undefined;
        err = undefined;
      }
      if (payload.ok === true) {
        const outcome = { ok: true };
        if (typeof payload.resultJson === 'string') outcome.result = JSON.parse(payload.resultJson);
        else if (typeof payload.resultText === 'string') outcome.result = payload.resultText;
        if (payload.truncated === true) outcome.truncated = true;
        if (payload.recycle === true) outcome.recycle = true;
        return outcome;
      }
      return payload;
    },
  };
});
