import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from '../registry/tool-registry.js';
import { defineTool } from './define-tool.js';
import type { ToolFailure, ToolResult, ToolSuccess } from './tool-result.js';
import { toModelText } from './tool-result.js';

function expectFailure(result: ToolResult): ToolFailure {
  if (result.status === 'success' || result.status === 'pending_approval') {
    throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  }
  return result;
}

function expectSuccess(result: ToolResult): ToolSuccess {
  if (result.status !== 'success') throw new Error(`expected a success, got ${JSON.stringify(result)}`);
  return result;
}

const echo = defineTool({
  name: 'echo',
  description: 'Return the arguments it was given.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' }, count: { type: 'integer' } } },
  handler: (args) => args,
});

describe('lookup', () => {
  it('returns TOOL_NOT_FOUND with the closest names', async () => {
    const registry = new ToolRegistry();
    for (const name of ['search', 'fetch_url', 'calculator']) {
      registry.register(defineTool({ name, description: `The ${name} tool.`, handler: () => name }));
    }
    const result = expectFailure(await registry.call('serach', {}));
    expect(result.status).toBe('error');
    expect(result.error).toEqual({
      code: 'TOOL_NOT_FOUND',
      message: "Tool 'serach' not found. Did you mean 'search'? Available tools: calculator, fetch_url, search.",
      retryable: false,
      hint: 'Call one of the available tools by its exact name.',
    });
    expect(result.metadata.tool).toBe('serach');
    expect(toModelText(result)).toBe(
      "Error [TOOL_NOT_FOUND]: Tool 'serach' not found. Did you mean 'search'? Available tools: calculator, fetch_url, search.\nHint: Call one of the available tools by its exact name.",
    );
  });

  it('ranks up to three suggestions by edit distance after stripping namespace prefixes', async () => {
    const registry = new ToolRegistry();
    for (const name of [
      'github__create_issue',
      'gitlab__create_issues',
      'create_issue_comment',
      'jira__create_isue',
      'list_issues',
    ]) {
      registry.register(defineTool({ name, description: 'An issue tool.', handler: () => name }));
    }
    const result = expectFailure(await registry.call('linear__create_issue'));
    expect(result.error.message).toBe(
      "Tool 'linear__create_issue' not found. Did you mean 'github__create_issue' or 'gitlab__create_issues' or 'jira__create_isue'? Available tools: create_issue_comment, github__create_issue, gitlab__create_issues, jira__create_isue, list_issues.",
    );
  });

  it('says so when no tools are available', async () => {
    const result = expectFailure(await new ToolRegistry().call('anything'));
    expect(result.error.message).toBe("Tool 'anything' not found. No tools are available.");
  });

  it('caps the list of available tools at 30 names, sorted', async () => {
    const registry = new ToolRegistry();
    for (let index = 0; index < 45; index++) {
      registry.register(
        defineTool({ name: `tool_${String(index).padStart(2, '0')}`, description: 'A tool.', handler: () => index }),
      );
    }
    const result = expectFailure(await registry.call('zzz'));
    const listed = Array.from({ length: 30 }, (_, index) => `tool_${String(index).padStart(2, '0')}`).join(', ');
    expect(result.error.message).toBe(`Tool 'zzz' not found. Available tools: ${listed}, and 15 more.`);
  });

  it('never dispatches to a near miss', async () => {
    const handler = vi.fn(() => 'ran');
    const registry = new ToolRegistry();
    registry.register(defineTool({ name: 'delete_file', description: 'Delete a file.', handler }));
    for (const name of ['delete_files', 'Delete_File', 'delete_file ', ' delete_file', 'fs__delete_file']) {
      expect(expectFailure(await registry.call(name)).error.code).toBe('TOOL_NOT_FOUND');
    }
    expect(handler).not.toHaveBeenCalled();
  });

  it('shortens a huge unknown name in the message', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    const name = 'x'.repeat(100_000);
    const result = expectFailure(await registry.call(name));
    expect(result.error.message).toBe(`Tool '${'x'.repeat(77)}...' not found. Available tools: echo.`);
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'prototype'])(
    'treats %s as a plain unknown name',
    async (name) => {
      const registry = new ToolRegistry();
      registry.register(echo);
      const result = expectFailure(await registry.call(name, {}));
      expect(result.error.code).toBe('TOOL_NOT_FOUND');
      expect(result.error.message).toBe(`Tool '${name}' not found. Available tools: echo.`);
      expect(registry.has(name)).toBe(false);
    },
  );

  it('registers and calls a real tool named constructor', async () => {
    const registry = new ToolRegistry();
    registry.register(defineTool({ name: 'constructor', description: 'Build things.', handler: () => 'built' }));
    expect(registry.has('constructor')).toBe(true);
    expect(registry.list()).toEqual(['constructor']);
    expect(expectSuccess(await registry.call('constructor', {})).data).toBe('built');
    expect(expectFailure(await registry.call('__proto__', {})).error.message).toBe(
      "Tool '__proto__' not found. Available tools: constructor.",
    );
  });

  it.each(['__proto__', 'toString', 'hasOwnProperty'])(
    'refuses to register %s because it breaks the name rule',
    (name) => {
      const registry = new ToolRegistry();
      expect(() => registry.register({ name, description: 'Sneaky.', handler: () => 1 })).toThrow(
        `Tool name "${name}" is invalid: use 1-64 characters of lowercase letters, digits and underscores, starting with a letter (^[a-z][a-z0-9_]{0,63}$).`,
      );
      expect(registry.list()).toEqual([]);
    },
  );

  it('answers a name that is not a string with TOOL_NOT_FOUND instead of throwing', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    for (const name of [undefined, null, 42, { name: 'echo' }, Symbol('echo')] as unknown[]) {
      const result = await registry.call(name as string, {});
      expect(expectFailure(result).error.code).toBe('TOOL_NOT_FOUND');
      expect(typeof result.metadata.tool).toBe('string');
    }
  });

  it('answers a name object that cannot be turned into a string with TOOL_NOT_FOUND instead of throwing', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    const result = await registry.call(Object.create(null) as string, {});
    expect(expectFailure(result).error.message).toBe("Tool 'an object' not found. Available tools: echo.");
  });

  it('echoes the toolCallId in the metadata of a failed lookup', async () => {
    const result = await new ToolRegistry().call('missing', {}, { toolCallId: 'call_abc' });
    expect(result.metadata).toMatchObject({ tool: 'missing', toolCallId: 'call_abc' });
  });
});

describe('argument parsing', () => {
  it('accepts an object', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    expect(expectSuccess(await registry.call('echo', { text: 'hi' })).data).toEqual({ text: 'hi' });
  });

  it('accepts JSON text', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    expect(expectSuccess(await registry.call('echo', '{"text": "hi", "count": 2}')).data).toEqual({
      text: 'hi',
      count: 2,
    });
  });

  it.each([
    ['an empty string', ''],
    ['blank text', '  \n\t'],
    ['null', null],
    ['undefined', undefined],
  ])('treats %s as no arguments', async (_label, args) => {
    const registry = new ToolRegistry();
    registry.register(echo);
    expect(expectSuccess(await registry.call('echo', args)).data).toEqual({});
  });

  it('quotes the position of a JSON syntax error', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    const result = expectFailure(await registry.call('echo', '{"text": }'));
    expect(result.error).toEqual({
      code: 'INVALID_ARGUMENTS',
      message: "Arguments for 'echo' are not valid JSON: unexpected '}' at position 9 (line 1, column 10).",
      retryable: false,
      hint: 'Send the arguments as one JSON object, such as {"name": "value"}.',
      details: { position: 9, line: 1, column: 10, problem: "unexpected '}'" },
    });
  });

  it('quotes the line and column of an error in multi-line JSON', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    const result = expectFailure(await registry.call('echo', "{\n  'text': 'hi'\n}"));
    expect(result.error.message).toBe(
      "Arguments for 'echo' are not valid JSON: expected a double-quoted property name at position 4 (line 2, column 3).",
    );
  });

  it('reports deeply nested broken JSON as invalid arguments', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    const result = expectFailure(await registry.call('echo', `{"text": ${'['.repeat(20_000)}`));
    expect(result.error.code).toBe('INVALID_ARGUMENTS');
    expect(result.error.message).toMatch(/^Arguments for 'echo' are not valid JSON/);
  });

  it.each([
    ['a JSON array', '[1, 2]', 'a list of 2 items'],
    ['a one-item array', '["x"]', 'a list of 1 item'],
    ['a JSON number', '42', 'number 42'],
    ['a JSON string', '"hello"', 'a string "hello"'],
    ['a JSON boolean', 'true', 'boolean true'],
    ['an array value', [1, 2, 3], 'a list of 3 items'],
    ['a number value', 7, 'number 7'],
    ['a Date', new Date(0), 'an object'],
    ['a Map', new Map([['text', 'hi']]), 'an object'],
    ['an object inheriting from another object', Object.create({ text: 'hi' }), 'an object'],
  ])('refuses %s: arguments must be an object', async (_label, args, shown) => {
    const registry = new ToolRegistry();
    registry.register(echo);
    const result = expectFailure(await registry.call('echo', args));
    expect(result.error).toEqual({
      code: 'INVALID_ARGUMENTS',
      message: `Arguments for 'echo' must be a JSON object, got ${shown}.`,
      retryable: false,
      hint: 'Send the arguments as one JSON object, such as {"name": "value"}.',
    });
  });

  it('accepts an object without a prototype', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    const args = Object.assign(Object.create(null) as Record<string, unknown>, { text: 'bare' });
    expect(expectSuccess(await registry.call('echo', args)).data).toEqual({ text: 'bare' });
  });

  const anything = defineTool({
    name: 'anything',
    description: 'Take any value.',
    inputSchema: { type: 'object', properties: { value: {} } },
    handler: () => 'ran',
  });
  const nestedArrays = (depth: number) => {
    let value: unknown = 1;
    for (let level = 0; level < depth; level++) value = [value];
    return value;
  };

  it('takes arguments nested 200 levels deep, the arguments object being the first', async () => {
    const registry = new ToolRegistry();
    registry.register(anything);
    expect(expectSuccess(await registry.call('anything', { value: nestedArrays(199) })).data).toBe('ran');
  });

  it.each([
    ['an object', { value: nestedArrays(200) }],
    ['JSON text', `{"value": ${'['.repeat(20_000)}1${']'.repeat(20_000)}}`],
    ['an object 100 000 levels deep', { value: nestedArrays(100_000) }],
  ])('refuses arguments nested more than 200 levels deep, given as %s', async (_label, args) => {
    const registry = new ToolRegistry();
    registry.register(anything);
    expect(expectFailure(await registry.call('anything', args)).error).toEqual({
      code: 'INVALID_ARGUMENTS',
      message: "Arguments for 'anything' are nested more than 200 levels deep.",
      retryable: false,
      hint: 'Send arguments with at most 200 levels of nested objects and lists.',
      details: { maxDepth: 200 },
    });
  });
});

describe('extra arguments', () => {
  it('drops undeclared arguments and lists them in metadata.droppedArgs', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    const result = expectSuccess(await registry.call('echo', { text: 'hi', verbose: true, mode: 'x' }));
    expect(result.data).toEqual({ text: 'hi' });
    expect(result.metadata.droppedArgs).toEqual(['verbose', 'mode']);
  });

  it('drops undeclared arguments and still reports what is wrong with the declared ones', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    const result = expectFailure(await registry.call('echo', { text: 5, verbose: true }));
    expect(result.error.message).toBe("Invalid arguments for 'echo': 'text' must be a string, got number 5.");
    expect(result.metadata.droppedArgs).toEqual(['verbose']);
  });

  it("drops undeclared arguments of a tool with defaults without touching the caller's object", async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'paged',
        description: 'Pages.',
        inputSchema: { type: 'object', properties: { page: { type: 'integer', default: 1 } } },
        handler: (args) => args,
      }),
    );
    const args = { verbose: true };
    const result = expectSuccess(await registry.call('paged', args));
    expect(result.data).toEqual({ page: 1 });
    expect(result.metadata.droppedArgs).toEqual(['verbose']);
    expect(args).toEqual({ verbose: true });
  });

  it('names a dropped argument close to a missing required one as its likely misspelling', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'read',
        description: 'Read a file.',
        inputSchema: {
          type: 'object',
          properties: {
            path: { type: 'string' },
            nested: { type: 'object', properties: { depth: { type: 'integer' } }, required: ['depth'] },
          },
          required: ['path'],
        },
        handler: (args) => args,
      }),
    );
    const misspelt = expectFailure(await registry.call('read', { file_path: 'a.txt' }));
    expect(misspelt.error.message).toBe(
      "Invalid arguments for 'read': missing required argument 'path' (a string); 'file_path' was sent: did you mean 'path'?",
    );
    expect(misspelt.metadata.droppedArgs).toEqual(['file_path']);
    // An unrelated name is no suggestion; a nested missing property is not matched against top-level names.
    const unrelated = expectFailure(await registry.call('read', { colour: 'red' }));
    expect(unrelated.error.message).toBe("Invalid arguments for 'read': missing required argument 'path' (a string).");
    const nested = expectFailure(await registry.call('read', { path: 'a', nested: {}, dept: 1 }));
    expect(nested.error.message).toBe(
      "Invalid arguments for 'read': missing required argument 'nested.depth' (an integer).",
    );
  });

  it('leaves metadata.droppedArgs out when nothing was dropped', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    expect(expectSuccess(await registry.call('echo', { text: 'hi' })).metadata).not.toHaveProperty('droppedArgs');
  });

  it('drops an own __proto__ key of an object argument like any other undeclared argument', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    const args = JSON.parse('{"text": "hi", "__proto__": {"polluted": true}}') as Record<string, unknown>;
    const result = expectSuccess(await registry.call('echo', args));
    expect(result.data).toEqual({ text: 'hi' });
    expect(result.metadata.droppedArgs).toEqual(['__proto__']);
  });

  it('refuses a JSON __proto__ key and a key sent twice, as every other surface does', async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    const proto = expectFailure(await registry.call('echo', '{"text": "hi", "__proto__": {"polluted": true}}'));
    expect(proto.error).toEqual({
      code: 'INVALID_ARGUMENTS',
      message:
        "The JSON text of the arguments for 'echo' has the key '__proto__', which is refused: it could change the prototype of an object it is copied into.",
      retryable: false,
      details: { limit: 'refusedKey', key: '__proto__', path: '' },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const twice = expectFailure(await registry.call('echo', '{"text": "hi", "text": "bye"}'));
    expect(twice.error.message).toBe(
      "The JSON text of the arguments for 'echo' has the key 'text' twice; send each key once.",
    );
  });

  it("rejects undeclared arguments with the registry option extraArgs: 'reject'", async () => {
    const registry = new ToolRegistry({ extraArgs: 'reject' });
    registry.register(echo);
    const result = expectFailure(await registry.call('echo', { text: 'hi', verbose: true }));
    expect(result.error).toEqual({
      code: 'INVALID_ARGUMENTS',
      message: "Invalid arguments for 'echo': unexpected argument 'verbose'; accepted arguments are text, count.",
      retryable: false,
      hint: 'Expected arguments: text (string), count (integer).',
      details: { unexpected: ['verbose'] },
    });
  });

  it("rejects undeclared arguments with the tool option extraArgs: 'reject'", async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'strict',
        description: 'Strict about arguments.',
        extraArgs: 'reject',
        inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
        handler: () => 1,
      }),
    );
    registry.register(defineTool({ ...echo, name: 'echo_strict', extraArgs: 'reject' }));
    const result = expectFailure(await registry.call('strict', { a: 1, b: 2, c: 3 }));
    expect(result.error.message).toBe(
      "Invalid arguments for 'strict': unexpected arguments 'b', 'c'; accepted arguments are a.",
    );
    expect(result.error.hint).toBe('Expected arguments: a (number, required).');
    const misspelt = expectFailure(await registry.call('echo_strict', { txet: 'hi', verbose: true }));
    expect(misspelt.error.message).toBe(
      "Invalid arguments for 'echo_strict': unexpected arguments 'txet' (did you mean 'text'?), 'verbose'; accepted arguments are text, count.",
    );
  });

  it('names no accepted arguments for a tool that takes none', async () => {
    const registry = new ToolRegistry({ extraArgs: 'reject' });
    registry.register(defineTool({ name: 'now', description: 'The time.', handler: () => 0 }));
    const result = expectFailure(await registry.call('now', { tz: 'UTC' }));
    expect(result.error.message).toBe(
      "Invalid arguments for 'now': unexpected argument 'tz'; accepted arguments are none.",
    );
    expect(result.error.hint).toBe('This tool takes no arguments; send {}.');
  });

  it("lets a tool's extraArgs: 'drop' win over the registry's reject", async () => {
    const registry = new ToolRegistry({ extraArgs: 'reject' });
    registry.register(defineTool({ ...echo, name: 'lenient', extraArgs: 'drop' }));
    const result = expectSuccess(await registry.call('lenient', { text: 'hi', extra: 1 }));
    expect(result.metadata.droppedArgs).toEqual(['extra']);
  });

  it('keeps undeclared arguments when the schema allows additional properties', async () => {
    const registry = new ToolRegistry({ extraArgs: 'reject' });
    registry.register(
      defineTool({
        name: 'open',
        description: 'Open schema.',
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'number' } },
          additionalProperties: { type: 'string' },
        },
        handler: (args) => args,
      }),
    );
    expect(expectSuccess(await registry.call('open', { a: 1, b: 'x' })).data).toEqual({ a: 1, b: 'x' });
    expect(expectFailure(await registry.call('open', { a: 1, b: 2 })).error.message).toBe(
      "Invalid arguments for 'open': 'b' must be a string, got number 2.",
    );
  });
});

describe('validation', () => {
  const weather = defineTool({
    name: 'weather',
    description: 'Current weather.',
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 1 },
        unit: { type: 'string', enum: ['c', 'f'] },
        days: { type: 'integer', minimum: 1, maximum: 7 },
      },
      required: ['city'],
    },
    handler: (args) => args,
  });

  async function invalid(args: unknown): Promise<ToolFailure> {
    const registry = new ToolRegistry();
    registry.register(weather);
    return expectFailure(await registry.call('weather', args));
  }

  it('names the argument, the expected type and the value received', async () => {
    const result = await invalid({ city: 42 });
    expect(result.error.code).toBe('INVALID_ARGUMENTS');
    expect(result.error.message).toBe("Invalid arguments for 'weather': 'city' must be a string, got number 42.");
    expect(result.error.hint).toBe(
      'Expected arguments: city (string, required), unit (string one of "c", "f"), days (integer).',
    );
    expect(result.error.retryable).toBe(false);
  });

  it('names a missing required argument and its type', async () => {
    expect((await invalid({})).error.message).toBe(
      "Invalid arguments for 'weather': missing required argument 'city' (a string).",
    );
  });

  it('lists the allowed values of an enum', async () => {
    expect((await invalid({ city: 'Oslo', unit: 'k' })).error.message).toBe(
      `Invalid arguments for 'weather': 'unit' must be one of "c", "f", got string "k".`,
    );
  });

  it('names the bounds of minimum and maximum', async () => {
    expect((await invalid({ city: 'Oslo', days: 0 })).error.message).toBe(
      "Invalid arguments for 'weather': 'days' must be >= 1, got number 0.",
    );
    expect((await invalid({ city: 'Oslo', days: 8 })).error.message).toBe(
      "Invalid arguments for 'weather': 'days' must be <= 7, got number 8.",
    );
  });

  it('names a minLength', async () => {
    expect((await invalid({ city: '' })).error.message).toBe(
      `Invalid arguments for 'weather': 'city' must be at least 1 character long, got string "".`,
    );
  });

  it('does not coerce strings to numbers', async () => {
    expect((await invalid({ city: 'Oslo', days: '3' })).error.message).toBe(
      `Invalid arguments for 'weather': 'days' must be an integer, got string "3".`,
    );
  });

  it('reports up to three issues at once and counts the rest', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'many',
        description: 'Many arguments.',
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'string' }, c: { type: 'boolean' }, d: { type: 'integer' } },
          required: ['a', 'b', 'c', 'd'],
        },
        handler: () => 1,
      }),
    );
    const two = expectFailure(await registry.call('many', { a: 'x', b: 1, c: true, d: 1 }));
    expect(two.error.message).toBe(
      `Invalid arguments for 'many': 'a' must be a number, got string "x"; 'b' must be a string, got number 1.`,
    );
    const five = expectFailure(await registry.call('many', { a: 'x', b: 1, c: 'yes', d: 1.5, e: 1 }));
    expect(five.error.message).toBe(
      `Invalid arguments for 'many': 'a' must be a number, got string "x"; 'b' must be a string, got number 1; 'c' must be a boolean, got string "yes" (and 1 more).`,
    );
    expect(five.error.details).toHaveLength(4);
  });

  it('puts a summary of the value received in details, never the whole value', async () => {
    const result = await invalid({
      city: { name: 'x'.repeat(1_000), parts: Array.from({ length: 100_000 }, () => 1) },
    });
    expect(result.error.details).toEqual([
      {
        path: 'city',
        pointer: '/city',
        keyword: 'type',
        expected: 'a string',
        received: {
          name: `${'x'.repeat(200)}... [1000 characters]`,
          parts: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, '[and 99990 more items]'],
        },
        message: "'city' must be a string, got an object",
      },
    ]);
  });

  it('locates an issue deep in the arguments as a.b[2].c', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'nested',
        description: 'Nested arguments.',
        inputSchema: {
          type: 'object',
          properties: {
            a: {
              type: 'object',
              properties: {
                b: { type: 'array', items: { type: 'object', properties: { c: { type: 'string' } }, required: ['c'] } },
              },
            },
          },
        },
        handler: () => 1,
      }),
    );
    const wrongType = expectFailure(await registry.call('nested', { a: { b: [{ c: 'x' }, { c: 'y' }, { c: 5 }] } }));
    expect(wrongType.error.message).toBe("Invalid arguments for 'nested': 'a.b[2].c' must be a string, got number 5.");
    expect(wrongType.error.details).toEqual([
      {
        path: 'a.b[2].c',
        pointer: '/a/b/2/c',
        keyword: 'type',
        expected: 'a string',
        received: 5,
        message: "'a.b[2].c' must be a string, got number 5",
      },
    ]);
    const missing = expectFailure(await registry.call('nested', { a: { b: [{ c: 'x' }, {}] } }));
    expect(missing.error.message).toBe(
      "Invalid arguments for 'nested': missing required argument 'a.b[1].c' (a string).",
    );
  });

  it('names unexpected properties of a nested closed object', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'closed',
        description: 'Closed options.',
        inputSchema: {
          type: 'object',
          properties: {
            options: { type: 'object', properties: { depth: { type: 'integer' } }, additionalProperties: false },
          },
        },
        handler: () => 1,
      }),
    );
    const result = expectFailure(await registry.call('closed', { options: { depth: 1, width: 2 } }));
    expect(result.error.message).toBe(
      "Invalid arguments for 'closed': unexpected argument 'options.width'; accepted arguments are depth.",
    );
  });

  it('describes lists, patterns and formats', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'shapes',
        description: 'Shapes.',
        inputSchema: {
          type: 'object',
          properties: {
            tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
            code: { type: 'string', pattern: '^[A-Z]{3}$' },
            email: { type: 'string', format: 'email' },
          },
        },
        handler: () => 1,
      }),
    );
    expect(expectFailure(await registry.call('shapes', { tags: [] })).error.message).toBe(
      "Invalid arguments for 'shapes': 'tags' must be a list of at least 1 item, got a list of 0 items.",
    );
    expect(expectFailure(await registry.call('shapes', { code: 'usd' })).error.message).toBe(
      `Invalid arguments for 'shapes': 'code' must be a string matching /^[A-Z]{3}$/, got string "usd".`,
    );
    expect(expectFailure(await registry.call('shapes', { email: 'not-an-email' })).error.message).toBe(
      `Invalid arguments for 'shapes': 'email' must be a valid email, got string "not-an-email".`,
    );
  });

  it('returns EXECUTION_FAILED naming the fault when the tool schema itself does not compile', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'broken',
        description: 'Broken schema.',
        inputSchema: { type: 'object', properties: { a: { type: 'strnig' as 'string' } } },
        handler: () => 1,
      }),
    );
    const result = expectFailure(await registry.call('broken', { a: 'x' }));
    expect(result.error.code).toBe('EXECUTION_FAILED');
    expect(result.error.message).toMatch(/^Tool 'broken' has an invalid input schema: /);
    expect(result.error.hint).toBe('This is a fault in the tool definition, not in your arguments; use another tool.');
  });
});

describe('defaults', () => {
  const search = defineTool({
    name: 'search',
    description: 'Search.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        limit: { type: 'integer', default: 10 },
        options: { type: 'object', properties: { fuzzy: { type: 'boolean', default: false } }, default: {} },
      },
      required: ['query'],
    },
    handler: (args) => args,
  });

  it('applies defaults before the handler runs', async () => {
    const registry = new ToolRegistry();
    registry.register(search);
    expect(expectSuccess(await registry.call('search', { query: 'q' })).data).toEqual({
      query: 'q',
      limit: 10,
      options: { fuzzy: false },
    });
  });

  it("does not write defaults into the caller's object", async () => {
    const registry = new ToolRegistry();
    registry.register(search);
    const args = { query: 'q', options: {} };
    await registry.call('search', args);
    expect(args).toEqual({ query: 'q', options: {} });
  });

  it("does not write nested defaults into the caller's object when extra arguments are dropped", async () => {
    const registry = new ToolRegistry();
    registry.register(search);
    const options = {};
    const args = { query: 'q', options, page: 2 };
    const result = expectSuccess(await registry.call('search', args));
    expect(result.data).toEqual({ query: 'q', limit: 10, options: { fuzzy: false } });
    expect(result.metadata.droppedArgs).toEqual(['page']);
    expect(options).toEqual({});
    expect(args).toEqual({ query: 'q', options: {}, page: 2 });
  });

  it('gives each call fresh default objects', async () => {
    const registry = new ToolRegistry();
    registry.register(search);
    const first = expectSuccess(await registry.call('search', { query: 'a' })).data as {
      options: Record<string, unknown>;
    };
    first.options.fuzzy = true;
    const second = expectSuccess(await registry.call('search', { query: 'b' })).data as {
      options: Record<string, unknown>;
    };
    expect(second.options).toEqual({ fuzzy: false });
  });
});

describe('zod input', () => {
  it('applies refinements at call time', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'range',
        description: 'A range.',
        input: z
          .object({ from: z.number(), to: z.number() })
          .refine((value) => value.from <= value.to, { message: "'from' must not be after 'to'" }),
        handler: ({ from, to }) => to - from,
      }),
    );
    expect(expectSuccess(await registry.call('range', { from: 1, to: 3 })).data).toBe(2);
    const result = expectFailure(await registry.call('range', { from: 5, to: 3 }));
    expect(result.error.code).toBe('INVALID_ARGUMENTS');
    expect(result.error.message).toBe("Invalid arguments for 'range': 'from' must not be after 'to'.");
  });

  it('names the path of a refinement issue', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'signup',
        description: 'Sign up.',
        input: z
          .object({ password: z.string(), confirm: z.string() })
          .refine((value) => value.password === value.confirm, {
            message: 'Passwords do not match',
            path: ['confirm'],
          }),
        handler: () => 'ok',
      }),
    );
    expect(expectFailure(await registry.call('signup', { password: 'a', confirm: 'b' })).error.message).toBe(
      "Invalid arguments for 'signup': 'confirm': Passwords do not match.",
    );
  });

  it('hands the handler the transformed values', async () => {
    const registry = new ToolRegistry();
    const tool = defineTool({
      name: 'measure',
      description: 'Measure a text.',
      input: z.object({ text: z.string().transform((text) => text.length), when: z.string().default('now') }),
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ text: number; when: string }>();
        return args;
      },
    });
    registry.register(tool);
    expect(expectSuccess(await registry.call('measure', '{"text": "hello"}')).data).toEqual({ text: 5, when: 'now' });
  });

  it('reports type errors from the derived JSON Schema with the usual message', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'add',
        description: 'Add.',
        input: z.object({ a: z.number(), b: z.number() }),
        handler: ({ a, b }) => a + b,
      }),
    );
    expect(expectSuccess(await registry.call('add', { a: 1, b: 2 })).data).toBe(3);
    expect(expectFailure(await registry.call('add', { a: '1', b: 2 })).error.message).toBe(
      `Invalid arguments for 'add': 'a' must be a number, got string "1".`,
    );
  });

  it('runs async refinements', async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'username',
        description: 'Check a user name.',
        input: z.object({
          name: z.string().refine(async (name) => name !== 'taken', { message: 'That name is taken' }),
        }),
        handler: ({ name }) => name,
      }),
    );
    expect(expectSuccess(await registry.call('username', { name: 'free' })).data).toBe('free');
    expect(expectFailure(await registry.call('username', { name: 'taken' })).error.message).toBe(
      "Invalid arguments for 'username': 'name': That name is taken.",
    );
  });
});

describe('credentials', () => {
  const serper = defineTool({
    name: 'serper_search',
    description: 'Search the web.',
    requires: { env: [{ name: 'SERPER_API_KEY', description: 'Serper API key', url: 'https://serper.dev' }] },
    handler: (_args, context) => `key ${context.env.SERPER_API_KEY}`,
  });

  it('returns MISSING_CREDENTIALS naming the variable and where to get it', async () => {
    const registry = new ToolRegistry({ env: {} });
    registry.register(serper);
    const result = expectFailure(await registry.call('serper_search', {}));
    expect(result.error).toEqual({
      code: 'MISSING_CREDENTIALS',
      message: "Tool 'serper_search' needs the environment variable SERPER_API_KEY (Serper API key), which is not set.",
      retryable: false,
      hint: 'Get one at https://serper.dev, then set it in the environment where toolshed runs: export SERPER_API_KEY=...',
      details: { variable: 'SERPER_API_KEY', url: 'https://serper.dev' },
    });
    expect(toModelText(result)).toBe(
      "Error [MISSING_CREDENTIALS]: Tool 'serper_search' needs the environment variable SERPER_API_KEY (Serper API key), which is not set.\nHint: Get one at https://serper.dev, then set it in the environment where toolshed runs: export SERPER_API_KEY=...",
    );
  });

  it('gives a plain hint when the variable has no URL', async () => {
    const registry = new ToolRegistry({ env: {} });
    registry.register(
      defineTool({ name: 'db', description: 'Query.', requires: { env: ['DATABASE_URL'] }, handler: () => 1 }),
    );
    const result = expectFailure(await registry.call('db'));
    expect(result.error.message).toBe("Tool 'db' needs the environment variable DATABASE_URL, which is not set.");
    expect(result.error.hint).toBe('Set it in the environment where toolshed runs: export DATABASE_URL=...');
  });

  it('treats an empty value as not set', async () => {
    const registry = new ToolRegistry({ env: { SERPER_API_KEY: '' } });
    registry.register(serper);
    expect(expectFailure(await registry.call('serper_search')).error.code).toBe('MISSING_CREDENTIALS');
  });

  it('reads the registry env option and hands it to the handler as ctx.env', async () => {
    const registry = new ToolRegistry({ env: { SERPER_API_KEY: 'from-registry' } });
    registry.register(serper);
    expect(expectSuccess(await registry.call('serper_search')).data).toBe('key from-registry');
  });

  it('lets context.env of one call supply the variable', async () => {
    const registry = new ToolRegistry({ env: {} });
    registry.register(serper);
    const result = await registry.call('serper_search', {}, { context: { env: { SERPER_API_KEY: 'per-call' } } });
    expect(expectSuccess(result).data).toBe('key per-call');
    expect(expectFailure(await registry.call('serper_search')).error.code).toBe('MISSING_CREDENTIALS');
  });

  it('checks credentials only after the arguments are valid', async () => {
    const registry = new ToolRegistry({ env: {} });
    registry.register(
      defineTool({
        ...serper,
        name: 'typed_search',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      }),
    );
    expect(expectFailure(await registry.call('typed_search', {})).error.code).toBe('INVALID_ARGUMENTS');
  });
});
