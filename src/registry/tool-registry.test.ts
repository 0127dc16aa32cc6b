import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineTool } from '../core/define-tool.js';
import { ToolNotFoundError } from '../core/errors/tool-not-found-error.js';
import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';
import { ToolshedError } from '../core/errors/toolshed-error.js';
import type { ToolProtocol } from '../core/tool-protocol.js';
import { ToolResult, type ToolSuccess } from '../core/tool-result.js';
import type { RegistryChange } from './registration.js';
import { ToolRegistry } from './tool-registry.js';

function expectSuccess(result: ToolResult): ToolSuccess {
  if (result.status !== 'success') throw new Error(`expected a success, got ${JSON.stringify(result)}`);
  return result;
}

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the action to throw');
}

const tool = (name: string, result: unknown = name) =>
  defineTool({ name, description: `The ${name} tool.`, handler: () => result });

describe('register', () => {
  it('registers a spec and returns it', () => {
    const registry = new ToolRegistry();
    const spec = tool('search');
    expect(registry.register(spec)).toBe(spec);
    expect(registry.get('search')).toBe(spec);
    expect(registry.size).toBe(1);
  });

  it('refuses a taken name with DUPLICATE_TOOL', () => {
    const registry = new ToolRegistry();
    registry.register(tool('search'));
    const error = thrownBy(() => registry.register(tool('search', 'second')));
    expect(ToolRegistrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'DUPLICATE_TOOL',
      toolName: 'search',
      message: "Tool 'search' is already registered; pass allowOverride: true to replace it.",
    });
    expect(registry.get('search').handler({}, undefined as never)).toBe('search');
  });

  it('replaces a tool with allowOverride', async () => {
    const registry = new ToolRegistry();
    registry.register(tool('search'));
    registry.register(tool('search', 'second'), { allowOverride: true });
    expect(expectSuccess(await registry.call('search')).data).toBe('second');
  });

  it('registers spec-shaped plain options', async () => {
    const registry = new ToolRegistry();
    registry.register({ name: 'plain', description: 'Plain options.', handler: () => 'plain' });
    expect(expectSuccess(await registry.call('plain')).data).toBe('plain');
  });

  it('refuses an invalid definition with INVALID_DEFINITION', () => {
    const registry = new ToolRegistry();
    const error = thrownBy(() => registry.register({ name: 'x', description: '', handler: () => 1 }));
    expect(error).toMatchObject({
      code: 'INVALID_DEFINITION',
      message: `Tool 'x' needs a non-empty description, got "".`,
    });
    expect(registry.list()).toEqual([]);
  });

  it('registers all of a list or none of it', () => {
    const registry = new ToolRegistry();
    registry.register(tool('b'));
    expect(() => registry.registerAll([tool('a'), tool('b'), tool('c')])).toThrow(
      "Tool 'b' is already registered; pass allowOverride: true to replace it.",
    );
    expect(registry.list()).toEqual(['b']);
    registry.registerAll([tool('a'), tool('c')]);
    expect(registry.list()).toEqual(['a', 'b', 'c']);
  });

  it('reports a name given twice in one list', () => {
    const registry = new ToolRegistry();
    expect(() => registry.registerAll([tool('a'), tool('a')])).toThrow("Tool 'a' is defined twice.");
    expect(registry.list()).toEqual([]);
  });
});

describe('the structural tool protocol', () => {
  it('registers an object with a sync execute', async () => {
    const registry = new ToolRegistry();
    const echo: ToolProtocol = {
      name: 'echo',
      description: 'Repeat the text back.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: (args) => args.text,
    };
    registry.register(echo);
    expect(expectSuccess(await registry.call('echo', { text: 'hi' })).data).toBe('hi');
    expect((await registry.call('echo', {})).status).toBe('error');
  });

  it('registers an object with executeAsync', async () => {
    const registry = new ToolRegistry();
    registry.register({
      name: 'later',
      description: 'Answer later.',
      parameters: { type: 'object', properties: {} },
      executeAsync: async () => 'later',
    });
    expect(expectSuccess(await registry.call('later')).data).toBe('later');
  });

  it('registers a class instance and calls its methods with this bound', async () => {
    class Counter implements ToolProtocol {
      readonly name = 'counter';
      readonly description = 'Count calls.';
      readonly parameters = { type: 'object' as const, properties: { by: { type: 'integer' as const, default: 1 } } };
      readonly category = 'math';
      #count = 0;
      execute(args: Record<string, unknown>) {
        this.#count += args.by as number;
        return ToolResult.success(this.#count, { counter: true });
      }
    }
    const registry = new ToolRegistry();
    const spec = registry.register(new Counter());
    expect(spec.category).toBe('math');
    await registry.call('counter');
    const result = expectSuccess(await registry.call('counter', { by: 5 }));
    expect(result.data).toBe(6);
    expect(result.metadata.counter).toBe(true);
  });

  it('registers a class with getters, as the Python guide writes them', async () => {
    class ReadFile {
      get name() {
        return 'read_file';
      }
      get description() {
        return 'Read a file.';
      }
      get parameters() {
        return { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] };
      }
      async executeAsync(args: Record<string, unknown>) {
        return `contents of ${String(args.file_path)}`;
      }
    }
    const registry = new ToolRegistry();
    registry.register(new ReadFile() as unknown as ToolProtocol);
    expect(expectSuccess(await registry.call('read_file', { file_path: '/a' })).data).toBe('contents of /a');
  });

  it('prefers executeAsync over execute when both exist', async () => {
    const registry = new ToolRegistry();
    registry.register({
      name: 'both',
      description: 'Both.',
      parameters: { type: 'object', properties: {} },
      execute: () => 'sync',
      executeAsync: async () => 'async',
    });
    expect(expectSuccess(await registry.call('both')).data).toBe('async');
  });

  it('refuses a protocol object with an invalid parameters schema', () => {
    const registry = new ToolRegistry();
    expect(() =>
      registry.register({ name: 'bad', description: 'Bad.', parameters: { type: 'array' }, execute: () => 1 }),
    ).toThrow(`Tool 'bad': inputSchema must have type "object", got "array".`);
  });
});

describe('registerFactory', () => {
  it('runs the factory once, on the first get', () => {
    const factory = vi.fn(() => tool('heavy'));
    const registry = new ToolRegistry();
    registry.registerFactory('heavy', factory);
    expect(registry.has('heavy')).toBe(true);
    expect(registry.list()).toEqual(['heavy']);
    expect(factory).not.toHaveBeenCalled();
    registry.get('heavy');
    registry.get('heavy');
    expect(factory).toHaveBeenCalledTimes(1);
  });

  it('runs the factory once, on the first call', async () => {
    const factory = vi.fn(() => tool('heavy', 'made'));
    const registry = new ToolRegistry();
    registry.registerFactory('heavy', factory);
    expect(expectSuccess(await registry.call('heavy')).data).toBe('made');
    expect(expectSuccess(await registry.call('heavy')).data).toBe('made');
    expect(factory).toHaveBeenCalledTimes(1);
  });

  it('refuses a factory whose tool has another name', async () => {
    const registry = new ToolRegistry();
    registry.registerFactory('heavy', () => tool('light'));
    expect(() => registry.get('heavy')).toThrow("The factory registered as 'heavy' made a tool named 'light'.");
    const result = await registry.call('heavy');
    expect(result.status === 'error' && result.error).toMatchObject({
      code: 'EXECUTION_FAILED',
      message: "Tool 'heavy' could not be created: The factory registered as 'heavy' made a tool named 'light'.",
    });
  });

  it('returns EXECUTION_FAILED from call when the factory throws', async () => {
    const registry = new ToolRegistry();
    registry.registerFactory('flaky', () => {
      throw new Error('no database connection');
    });
    const result = await registry.call('flaky');
    expect(result.status === 'error' && result.error.message).toBe(
      "Tool 'flaky' could not be created: no database connection",
    );
  });

  it('refuses a taken name and a bad name', () => {
    const registry = new ToolRegistry();
    registry.register(tool('taken'));
    expect(() => registry.registerFactory('taken', () => tool('taken'))).toThrow(
      "Tool 'taken' is already registered; pass allowOverride: true to replace it.",
    );
    expect(() => registry.registerFactory('Bad Name', () => tool('x'))).toThrow(ToolRegistrationError);
    expect(() => registry.registerFactory('fine', 'not a function' as never)).toThrow(
      "The factory for 'fine' must be a function.",
    );
  });
});

describe('read API', () => {
  function populated(): ToolRegistry {
    const registry = new ToolRegistry();
    for (const name of ['web_search', 'calculator', 'read_file']) registry.register(tool(name));
    return registry;
  }

  it('lists names sorted', () => {
    expect(populated().list()).toEqual(['calculator', 'read_file', 'web_search']);
  });

  it('returns a copy from list() that callers cannot use to change the registry', () => {
    const registry = populated();
    registry.list().push('injected');
    expect(registry.list()).toEqual(['calculator', 'read_file', 'web_search']);
  });

  it('returns tools and entries in name order', () => {
    const registry = populated();
    expect(registry.tools().map((spec) => spec.name)).toEqual(['calculator', 'read_file', 'web_search']);
    expect(registry.entries().map(([name, spec]) => [name, spec.name])).toEqual([
      ['calculator', 'calculator'],
      ['read_file', 'read_file'],
      ['web_search', 'web_search'],
    ]);
  });

  it('throws ToolNotFoundError from get, with the closest names and the available ones', () => {
    const error = thrownBy(() => populated().get('calculater'));
    expect(ToolNotFoundError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'TOOL_NOT_FOUND',
      toolName: 'calculater',
      suggestions: ['calculator'],
      message:
        "Tool 'calculater' not found. Did you mean 'calculator'? Available tools: calculator, read_file, web_search.",
    });
  });

  it('has() looks at own names only', () => {
    const registry = populated();
    expect(registry.has('calculator')).toBe(true);
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'CALCULATOR'])
      expect(registry.has(name)).toBe(false);
  });

  it('returns no definition for a tool registered in code', () => {
    expect(populated().getDefinition('calculator')).toBeUndefined();
    expect(populated().getDefinition('missing')).toBeUndefined();
  });

  it('unregisters a tool and says whether there was one', async () => {
    const registry = populated();
    expect(registry.unregister('calculator')).toBe(true);
    expect(registry.unregister('calculator')).toBe(false);
    expect(registry.list()).toEqual(['read_file', 'web_search']);
    const result = await registry.call('calculator');
    expect(result.status === 'error' && result.error.code).toBe('TOOL_NOT_FOUND');
  });

  it('clears every tool', () => {
    const registry = populated();
    registry.clear();
    expect(registry.list()).toEqual([]);
    expect(registry.size).toBe(0);
  });

  it('counts its version up on every change', () => {
    const registry = new ToolRegistry();
    const start = registry.version;
    registry.register(tool('a'));
    registry.unregister('a');
    registry.clear();
    expect(registry.version).toBe(start + 3);
  });
});

describe('subset', () => {
  function populated(): ToolRegistry {
    const registry = new ToolRegistry();
    for (const name of ['search', 'fetch_url', 'calculator', 'delete_file']) registry.register(tool(name));
    return registry;
  }

  it('holds only the named tools', async () => {
    const view = populated().subset(['search', 'calculator']);
    expect(view.list()).toEqual(['calculator', 'search']);
    expect(expectSuccess(await view.call('search')).data).toBe('search');
    const result = await view.call('delete_file');
    expect(result.status === 'error' && result.error.message).toBe(
      "Tool 'delete_file' not found. Available tools: calculator, search.",
    );
  });

  it('throws ToolNotFoundError with suggestions for an unknown name when strict', () => {
    const error = thrownBy(() => populated().subset(['search', 'calculater']));
    expect(ToolNotFoundError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      suggestions: ['calculator'],
      message:
        "Tool 'calculater' not found. Did you mean 'calculator'? Available tools: calculator, delete_file, fetch_url, search.",
    });
  });

  it('skips unknown names when not strict', () => {
    expect(populated().subset(['search', 'nope', 'constructor'], { strict: false }).list()).toEqual(['search']);
  });

  it('does not change when the parent registry does', () => {
    const registry = populated();
    const view = registry.subset(['search']);
    registry.unregister('search');
    registry.register(tool('new_tool'));
    expect(view.list()).toEqual(['search']);
  });

  it("hands each tool its config as ctx.config, keeping the caller's other options and leaving them unchanged", async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'search',
        description: 'Search.',
        handler: (_args: Record<string, never>, ctx) => ({ config: ctx.config, region: ctx.env.REGION }),
      }),
    );
    const view = registry.subset(['search'], { config: { search: { region: 'eu' } } });
    expect(expectSuccess(await view.call('search')).data).toEqual({ config: { region: 'eu' } });
    const options = { toolCallId: 'call_1', context: { env: { REGION: 'west' } } };
    const result = expectSuccess(await view.call('search', {}, options));
    expect(result.data).toEqual({ config: { region: 'eu' }, region: 'west' });
    expect(result.metadata.toolCallId).toBe('call_1');
    expect(options).toEqual({ toolCallId: 'call_1', context: { env: { REGION: 'west' } } });
    // A call that brings its own config keeps it.
    const own = await view.call('search', {}, { context: { config: { region: 'us' } } });
    expect(expectSuccess(own).data).toEqual({ config: { region: 'us' } });
  });

  it('shares the settings of the parent registry', async () => {
    const registry = new ToolRegistry({ extraArgs: 'reject' });
    registry.register(tool('search'));
    const result = await registry.subset(['search']).call('search', { extra: 1 });
    expect(result.status === 'error' && result.error.code).toBe('INVALID_ARGUMENTS');
  });
});

describe("on('change')", () => {
  it('fires on register, unregister and clear', () => {
    const registry = new ToolRegistry();
    const changes: RegistryChange[] = [];
    registry.on('change', (change) => changes.push(change));
    registry.register(tool('a'));
    registry.registerAll([tool('b'), tool('c')]);
    registry.unregister('a');
    registry.unregister('missing');
    registry.clear();
    expect(changes).toEqual([
      { type: 'register', names: ['a'] },
      { type: 'register', names: ['b', 'c'] },
      { type: 'unregister', names: ['a'] },
      { type: 'clear', names: ['b', 'c'] },
    ]);
  });

  it('does not fire for a registration that failed', () => {
    const registry = new ToolRegistry();
    registry.register(tool('a'));
    const listener = vi.fn();
    registry.on('change', listener);
    expect(() => registry.register(tool('a'))).toThrow();
    expect(listener).not.toHaveBeenCalled();
  });

  it('stops calling a listener once it is removed', () => {
    const registry = new ToolRegistry();
    const listener = vi.fn();
    const off = registry.on('change', listener);
    registry.register(tool('a'));
    off();
    registry.register(tool('b'));
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("reports a throwing change listener through on('hook-error') and still registers", () => {
    const registry = new ToolRegistry();
    const reported = vi.fn();
    registry.on('hook-error', reported);
    registry.on('change', () => {
      throw new Error('listener broke');
    });
    registry.register(tool('a'));
    expect(registry.has('a')).toBe(true);
    expect(reported).toHaveBeenCalledTimes(1);
  });
});

describe('ToolRegistry.default', () => {
  afterEach(() => ToolRegistry.resetDefault());

  it('returns the same process-wide registry every time', () => {
    const first = ToolRegistry.default();
    first.register(tool('shared'));
    expect(ToolRegistry.default()).toBe(first);
    expect(ToolRegistry.default().has('shared')).toBe(true);
  });

  it('starts a fresh registry after resetDefault', () => {
    const first = ToolRegistry.default();
    first.register(tool('shared'));
    ToolRegistry.resetDefault();
    const second = ToolRegistry.default();
    expect(second).not.toBe(first);
    expect(second.list()).toEqual([]);
  });
});

describe('errors', () => {
  it('are recognised across package copies by isInstance', () => {
    const error = new ToolRegistrationError('DUPLICATE_TOOL', 'taken');
    expect(ToolshedError.isInstance(error)).toBe(true);
    expect(ToolRegistrationError.isInstance(error)).toBe(true);
    expect(ToolNotFoundError.isInstance(error)).toBe(false);
    expect(ToolshedError.isInstance(new Error('plain'))).toBe(false);
    expect(ToolshedError.isInstance(null)).toBe(false);
  });

  it('prefix a registration message with file:line:col when the place is known', () => {
    expect(
      new ToolRegistrationError('INVALID_DEFINITION', 'bad', { file: 'tools/a.yaml', line: 3, column: 5 }).message,
    ).toBe('tools/a.yaml:3:5: bad');
    expect(new ToolRegistrationError('INVALID_DEFINITION', 'bad', { file: 'tools/a.yaml' }).message).toBe(
      'tools/a.yaml: bad',
    );
  });
});
