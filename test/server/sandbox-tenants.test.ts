import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltins } from '../../src/builtins/index.js';
import { createServer, createServiceBuiltins, type ServiceBuiltinsOptions } from '../../src/server/index.js';
import { createStore, type ToolshedStore } from '../../src/store/index.js';

// Workspace A's call plants every persistence trick known to work in a Pyodide process that serves
// more than one call; workspace B's calls, right after on a pool with one warm process, must see none
// of it and A must learn nothing. By default the same holds for A's own next call.

/** Reaches the real builtins past the import allowlist, as every trick below must. */
const BYPASS = "imp = __import__('json').dumps.__globals__['__builtins__']['__import__']\n";

const PLANT = `${BYPASS}sys = imp('sys')
gc = imp('gc')
json = imp('json')
re = imp('re')
ast = imp('ast')
os = imp('os')
real_open = json.dumps.__globals__['__builtins__']['open']
planted = []
def attempt(name, action):
    try:
        action()
        planted.append(name)
    except BaseException as error:
        planted.append(f'{name}: {type(error).__name__}')
loot = []
json._loot = loot
def run_channel_reader():
    api = sys.modules.get('pyodide_js') or imp('pyodide_js')
    read = api.FS.filesystems.NODEFS.stream_ops.read
    api._api.scheduleCallback(lambda: read, 0)
attempt('reader on the run channel', run_channel_reader)
def loaders():
    loader = next(holder for holder in gc.get_objects() if type(holder).__name__ == 'JsLoader')
    loader.jsproxy._api.scheduleCallback(lambda: None, 0)
attempt('reader through the import loaders', loaders)
def timers():
    api = imp('pyodide_js')
    def again():
        api._api.scheduleCallback(again, 0)
    for _ in range(1000):
        again()
attempt('1000 self-rescheduling timers', timers)
def function_named(name):
    return next(holder for holder in gc.get_objects() if getattr(holder, '__name__', None) == name and hasattr(holder, '__globals__'))
def widen():
    function_named('_guarded_import').__globals__['_ALLOWED'] = frozenset(['os', 'sys', 'json', 're', 'typing', 'math', 'datetime'])
attempt('import allowlist widened', widen)
def no_check():
    namespace = function_named('_toolshed_run').__globals__
    namespace['_fingerprint'] = lambda: namespace['_BASELINE']
attempt('patched-module check disabled', no_check)
def parse_hook():
    original = ast.parse
    def spy(source, *args, **kwargs):
        loot.append(source)
        return original(source, *args, **kwargs)
    ast.parse = spy
attempt('ast.parse hook', parse_hook)
def profiler():
    def spy(frame, event, arg):
        if event == 'call' and frame.f_code.co_filename == '<code>':
            loot.append(repr(frame.f_locals)[:200])
    sys.setprofile(spy)
attempt('sys.setprofile', profiler)
def tmp_file():
    with real_open('/tmp/planted', 'w') as handle:
        handle.write('planted by A')
attempt('file in /tmp', tmp_file)
attempt('sys.setrecursionlimit(40)', lambda: sys.setrecursionlimit(40))
def poison():
    json.loads = lambda *args, **kwargs: 'poisoned'
    re.sub = lambda *args, **kwargs: 'poisoned'
    re._cache2 = {}
attempt('poisoned json.loads and re', poison)
class Ghost:
    def __del__(self):
        print('ghost of A')
        loot.append('ghost')
def ghost():
    gc.disable()
    first, second = Ghost(), Ghost()
    first.other, second.other = second, first
attempt('__del__ in a reference cycle', ghost)
def memfs():
    with real_open('/tmp/big', 'wb') as handle:
        handle.write(b'x' * (20 * 2 ** 20))
attempt('20 MB in the in-memory file system', memfs)
planted`;

/** What a victim's call sees: every line fails if one of the tricks above is still in place. */
const VICTIM = `SECRET = 'the-secret-of-B'
import json, re
report = {'loads': json.loads('{"a": 1}'), 'sub': re.sub('a', 'b', 'aaa')}
try:
    import os
    report['import os'] = 'allowed'
except ImportError:
    report['import os'] = 'refused'
def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)
report['depth'] = depth(200)
imp = __import__('json').dumps.__globals__['__builtins__']['__import__']
report['tmp'] = sorted(imp('os').listdir('/tmp'))
report['loot'] = getattr(imp('json'), '_loot', None)
report['profiler'] = imp('sys').getprofile() is not None
report`;

const CLEAN = { loads: { a: 1 }, sub: 'bbb', 'import os': 'refused', depth: 200, tmp: [], loot: null, profiler: false };

interface Service {
  store: ToolshedStore;
  app: ReturnType<typeof createServer>;
  call(workspace: string, code: string): Promise<{ status: string; data?: unknown; error?: unknown }>;
}

async function startService(sandbox: NonNullable<ServiceBuiltinsOptions['sandbox']>): Promise<Service> {
  const store = await createStore(':memory:');
  await store.migrate();
  const shared = createServiceBuiltins(store);
  await store.tools.upsertBuiltins([...createBuiltins(), ...shared.tools]);
  await shared.close();
  const app = createServer({ store, builtins: { sandbox, emails: false } });
  await app.ready();
  const headers = new Map<string, Record<string, string>>();
  for (const id of ['tenant_a', 'tenant_b']) {
    await store.workspaces.create({ id, name: id });
    const { token } = await store.tokens.create(id);
    headers.set(id, { authorization: `Bearer ${token}`, 'x-workspace-id': id, 'content-type': 'application/json' });
  }
  return {
    store,
    app,
    async call(workspace, code) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/tools/execute_python/call',
        headers: headers.get(workspace),
        payload: JSON.stringify({ arguments: { code } }),
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    },
  };
}

function successData(result: { status: string; data?: unknown }): { stdout: string; result: unknown } {
  expect(result.status, JSON.stringify(result)).toBe('success');
  return result.data as { stdout: string; result: unknown };
}

describe('execute_python in the service, with the default isolation (a fresh process per call)', () => {
  let service: Service;

  beforeAll(async () => {
    service = await startService({ size: 1, timeoutMs: 10_000 });
  }, 60_000);

  afterAll(async () => {
    await service?.app.close();
    await service?.store.close();
  }, 30_000);

  it("leaves no trick of workspace A's call for workspace B, and A learns nothing", async () => {
    const planted = successData(await service.call('tenant_a', PLANT)).result as string[];
    // The routes to the host's JavaScript are closed; the Python-level tricks take, in A's own process.
    expect(planted).toEqual([
      'reader on the run channel: ModuleNotFoundError',
      'reader through the import loaders: StopIteration',
      '1000 self-rescheduling timers: ModuleNotFoundError',
      'import allowlist widened',
      'patched-module check disabled',
      'ast.parse hook',
      'sys.setprofile',
      'file in /tmp',
      'sys.setrecursionlimit(40)',
      'poisoned json.loads and re',
      '__del__ in a reference cycle',
      '20 MB in the in-memory file system',
    ]);
    for (let round = 0; round < 3; round++) {
      const victim = successData(await service.call('tenant_b', VICTIM));
      expect(victim.result).toEqual(CLEAN);
      expect(victim.stdout).toBe('');
    }
    const after = successData(await service.call('tenant_a', VICTIM));
    expect(after.result).toEqual(CLEAN);
    expect(JSON.stringify(after)).not.toContain('the-secret-of-B');
  });
});

describe('execute_python in the service, with processes reused within a workspace', () => {
  let service: Service;

  beforeAll(async () => {
    service = await startService({ size: 1, timeoutMs: 10_000, maxRunsPerSandbox: 20 });
  }, 60_000);

  afterAll(async () => {
    await service?.app.close();
    await service?.store.close();
  }, 30_000);

  it("never runs workspace B's code in the process workspace A planted its tricks in", async () => {
    successData(await service.call('tenant_a', PLANT));
    for (let round = 0; round < 3; round++) {
      const victim = successData(await service.call('tenant_b', VICTIM));
      expect(victim.result).toEqual(CLEAN);
      expect(victim.stdout).toBe('');
    }
  });

  it("lets A's own next calls see what A left, as the option says", async () => {
    // The planted profiler and __del__ run in A's next call: its code fails and the ghost prints.
    const own = await service.call('tenant_a', '1 + 1');
    expect(JSON.stringify(own)).toContain('ghost of A');
  });
});
