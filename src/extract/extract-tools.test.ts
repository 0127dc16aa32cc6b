import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonSchema } from '../core/json-schema.js';
import { ExtractError } from './extract-error.js';
import { defaultModulePath, type ExtractedTool, extractTools } from './extract-tools.js';

const fixture = fileURLToPath(new URL('./__fixtures__/tools.ts', import.meta.url));
const toolSpecModule = fileURLToPath(new URL('../core/tool-spec.js', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'toolshed-extract-'));
let counter = 0;

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Write `source` to a fresh file in a temporary folder (outside the project: built-in compiler defaults). */
function sourceFile(source: string, name = `source${++counter}.ts`): string {
  const folder = join(scratch, `case${++counter}`);
  mkdirSync(folder);
  const file = join(folder, name);
  writeFileSync(file, source);
  return file;
}

async function extractError(file: string): Promise<ExtractError> {
  const error = await extractTools(file).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ExtractError.isInstance(error)) throw new Error(`expected an ExtractError from ${file}, got ${String(error)}`);
  return error;
}

/** The parameters schema of a one-tool source whose function is `run`. */
async function parametersOf(signature: string, preamble = ''): Promise<JsonSchema> {
  const [tool] = await extractTools(
    sourceFile(`${preamble}\n/**\n * Run it.\n * @tool\n */\nexport function run${signature} {}\n`),
  );
  return tool!.definition.parameters;
}

describe('extractTools on the fixture module', () => {
  let tools: ExtractedTool[];
  const byName = (name: string): ExtractedTool => {
    const tool = tools.find((each) => each.definition.name === name);
    if (tool === undefined) throw new Error(`no tool ${name}`);
    return tool;
  };

  it('extracts every exported @tool function, in source order, and nothing else', async () => {
    tools = await extractTools(fixture);
    expect(tools.map((tool) => [tool.exportName, tool.definition.name])).toEqual([
      ['searchEmails', 'search_emails'],
      ['addNumbers', 'add_numbers'],
      ['createEvent', 'create_event'],
      ['setStatus', 'set_status'],
      ['deleteFiles', 'remove_files'],
      ['ping', 'ping'],
      ['lookupWords', 'lookup_words'],
    ]);
    // formatDate is exported without @tool; resetMailboxes is tagged but not exported.
    expect(tools.some((tool) => /format_date|reset_mailboxes/.test(tool.definition.name))).toBe(false);
  });

  it('takes the description from the JSDoc summary only, and the fields from the tags', () => {
    const search = byName('search_emails');
    expect(search.definition).toMatchObject({
      description: 'Search the mailbox by full-text query.',
      when_to_use: 'When the user asks about an email they received or sent; search before reading a message.',
      category: 'email',
      timeout: 15,
      annotations: { read_only: true, idempotent: true },
    });
    expect(Object.keys(search.definition)).toEqual([
      'name',
      'description',
      'when_to_use',
      'category',
      'parameters',
      'timeout',
      'annotations',
    ]);
    expect(byName('create_event').definition.annotations).toEqual({ destructive: false });
    expect(byName('ping').definition.annotations).toEqual({ read_only: true, open_world: false });
    expect(byName('lookup_words').definition).not.toHaveProperty('category');
  });

  it('maps a destructured object parameter: members become properties, defaults are not required', () => {
    expect(byName('search_emails').definition.parameters).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to look for in subjects and bodies.' },
        limit: { type: 'integer', description: 'How many results to return.', default: 10 },
        sort: {
          type: 'string',
          description: 'Order of the results.',
          enum: ['newest', 'oldest', 'relevance'],
          default: 'newest',
        },
        inboxes: {
          type: 'array',
          description: 'Inboxes to search; every inbox when omitted.',
          items: { type: 'string' },
        },
        unreadOnly: { type: 'boolean', default: false },
      },
      required: ['query'],
    });
    expect(byName('search_emails')).toMatchObject({ callStyle: 'object', takesContext: false });
  });

  it('maps positional parameters in order, with @param descriptions and defaults', () => {
    const add = byName('add_numbers');
    expect(add.definition.parameters).toEqual({
      type: 'object',
      properties: {
        a: { type: 'number', description: 'First addend.' },
        b: { type: 'number', description: 'Second addend.' },
        decimals: { type: 'integer', description: 'Digits to keep after the decimal point.', default: 2 },
      },
      required: ['a', 'b'],
    });
    expect(add).toMatchObject({ callStyle: 'positional', argumentNames: ['a', 'b', 'decimals'] });
  });

  it('maps an interface parameter: member JSDoc, Date, nested objects, arrays of interfaces, enums, Record', () => {
    expect(byName('create_event').definition.parameters).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string', description: 'Title shown in the calendar.' },
        start: { type: 'string', description: 'When the event starts.', format: 'date-time' },
        durationMinutes: { type: 'integer', description: 'Length in minutes.', default: 30 },
        location: {
          type: 'object',
          description: 'Where it happens.',
          properties: {
            name: { type: 'string', description: 'Name of the place.' },
            room: { type: ['string', 'null'] },
          },
          required: ['name'],
        },
        attendees: {
          type: 'array',
          description: 'People to invite.',
          items: {
            type: 'object',
            properties: {
              email: { type: 'string', description: 'Email address of the attendee.' },
              optional: { type: 'boolean', description: 'Whether they may skip the event.' },
            },
            required: ['email'],
          },
        },
        priority: { type: 'number', enum: [1, 2, 3] },
        labels: { type: 'object', description: 'Free-form labels, by key.', additionalProperties: { type: 'string' } },
      },
      required: ['title', 'start', 'location', 'attendees', 'priority'],
    });
  });

  it('maps a string enum, T | null (required) and T | undefined (optional)', () => {
    expect(byName('set_status').definition.parameters).toEqual({
      type: 'object',
      properties: {
        status: { type: 'string', description: 'The new status.', enum: ['available', 'busy', 'away'] },
        message: { type: ['string', 'null'], description: 'Shown next to the status; null clears it.' },
        expiresInMinutes: {
          type: 'number',
          description: 'When the status resets; never when omitted.',
          enum: [15, 30, 60],
        },
      },
      required: ['status', 'message'],
    });
  });

  it('maps a type alias with a tuple and an enum default, names the tool with @tool NAME, and skips ToolContext', () => {
    const remove = byName('remove_files');
    expect(remove.definition.parameters.properties).toEqual({
      paths: { type: 'array', description: 'Paths to delete, relative to the workspace.', items: { type: 'string' } },
      recursive: { type: 'boolean', description: 'Delete folders with their contents.', default: false },
      mode: {
        type: 'string',
        description: 'What happens to the files.',
        enum: ['trash', 'permanent'],
        default: 'trash',
      },
      modifiedBetween: {
        type: 'array',
        description: 'Only files last modified this many days ago, as [from, to].',
        prefixItems: [{ type: 'integer' }, { type: 'integer' }],
        items: false,
        minItems: 2,
        maxItems: 2,
      },
    });
    expect(remove).toMatchObject({ exportName: 'deleteFiles', callStyle: 'object', takesContext: true });
  });

  it('gives a function without parameters an empty object schema', () => {
    expect(byName('ping').definition.parameters).toEqual({ type: 'object', properties: {} });
  });

  it('points handlers at the compiled module next to the source unless moduleOut says otherwise', async () => {
    expect(byName('ping').module).toBe(fixture.replace(/\.ts$/, '.js'));
    const [tool] = await extractTools(fixture, { moduleOut: 'dist/tools.js' });
    expect(tool!.module).toBe(join(process.cwd(), 'dist/tools.js'));
    expect(defaultModulePath('/src/tools.mts')).toBe('/src/tools.mjs');
    expect(defaultModulePath('/src/tools.cts')).toBe('/src/tools.cjs');
  });
});

describe('the type mapping', () => {
  const cases: Array<[title: string, signature: string, expected: JsonSchema, preamble?: string]> = [
    [
      'string, number and boolean',
      '(s: string, n: number, b: boolean)',
      {
        type: 'object',
        properties: { s: { type: 'string' }, n: { type: 'number' }, b: { type: 'boolean' } },
        required: ['s', 'n', 'b'],
      },
    ],
    [
      'T[] and Array<T>, readonly or not',
      '(a: string[], b: Array<number>, c: readonly boolean[], d: ReadonlyArray<string>)',
      {
        type: 'object',
        properties: {
          a: { type: 'array', items: { type: 'string' } },
          b: { type: 'array', items: { type: 'number' } },
          c: { type: 'array', items: { type: 'boolean' } },
          d: { type: 'array', items: { type: 'string' } },
        },
        required: ['a', 'b', 'c', 'd'],
      },
    ],
    [
      'the Integer alias, directly, in arrays, through aliases and with null',
      '(a: Integer, b: Integer[], c: Count, d?: Integer | null)',
      {
        type: 'object',
        properties: {
          a: { type: 'integer' },
          b: { type: 'array', items: { type: 'integer' } },
          c: { type: 'integer' },
          d: { type: ['integer', 'null'] },
        },
        required: ['a', 'b', 'c'],
      },
      'type Integer = number;\ntype Count = Integer;',
    ],
    [
      'a branded Integer',
      '(a: Integer)',
      {
        type: 'object',
        properties: { a: { type: 'integer' } },
        required: ['a'],
      },
      'type Integer = number & { readonly __integer?: never };',
    ],
    [
      'a branded string',
      '(email: Email)',
      {
        type: 'object',
        properties: { email: { type: 'string' } },
        required: ['email'],
      },
      "type Email = string & { readonly brand: 'Email' };",
    ],
    [
      'literal unions in source order, and single literals',
      "(a: 'low' | 'medium' | 'high', b: 3 | 1 | 2, c: 'only', d: 'x' | 1 | true)",
      {
        type: 'object',
        properties: {
          a: { type: 'string', enum: ['low', 'medium', 'high'] },
          b: { type: 'number', enum: [3, 1, 2] },
          c: { type: 'string', const: 'only' },
          d: { type: ['string', 'number', 'boolean'], enum: ['x', 1, true] },
        },
        required: ['a', 'b', 'c', 'd'],
      },
    ],
    [
      'unions of other types',
      '(a: string | number, b: { x: string } | string[], c: boolean | null)',
      {
        type: 'object',
        properties: {
          a: { type: ['string', 'number'] },
          b: {
            anyOf: [
              { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] },
              { type: 'array', items: { type: 'string' } },
            ],
          },
          c: { type: ['boolean', 'null'] },
        },
        required: ['a', 'b', 'c'],
      },
    ],
    [
      'null with enums, objects and unknown',
      "(a: 'x' | 'y' | null, b: { x: string } | null, c: unknown)",
      {
        type: 'object',
        properties: {
          a: { type: ['string', 'null'], enum: ['x', 'y', null] },
          b: { type: ['object', 'null'], properties: { x: { type: 'string' } }, required: ['x'] },
          c: {},
        },
        required: ['a', 'b', 'c'],
      },
    ],
    [
      'optional, | undefined and defaults of every constant kind',
      "(a?: string, b: string | undefined, c = -1.5, d = 'x', e = [1, 'two'], f = { on: true }, g = Size.Large, h = Date.now())",
      {
        type: 'object',
        properties: {
          a: { type: 'string' },
          b: { type: 'string' },
          c: { type: 'number', default: -1.5 },
          d: { type: 'string', default: 'x' },
          e: { type: 'array', items: { type: ['string', 'number'] }, default: [1, 'two'] },
          f: { type: 'object', properties: { on: { type: 'boolean' } }, required: ['on'], default: { on: true } },
          g: { type: 'number', enum: [0, 1], default: 1 },
          h: { type: 'number' },
        },
      },
      'enum Size { Small, Large }',
    ],
    [
      'interfaces, intersections and Record',
      '(a: Base & { extra?: number }, b: Record<string, Base>, c: { [key: string]: number; fixed: number })',
      {
        type: 'object',
        properties: {
          a: {
            type: 'object',
            properties: { id: { type: 'string', description: 'The id.' }, extra: { type: 'number' } },
            required: ['id'],
          },
          b: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              properties: { id: { type: 'string', description: 'The id.' } },
              required: ['id'],
            },
          },
          c: {
            type: 'object',
            properties: { fixed: { type: 'number' } },
            required: ['fixed'],
            additionalProperties: { type: 'number' },
          },
        },
        required: ['a', 'b', 'c'],
      },
      'interface Base {\n  /** The id. */\n  id: string;\n}',
    ],
    [
      'tuples with optional and rest elements',
      '(a: [string, number?], b: [string, ...number[]])',
      {
        type: 'object',
        properties: {
          a: {
            type: 'array',
            prefixItems: [{ type: 'string' }, { type: 'number' }],
            items: false,
            minItems: 1,
            maxItems: 2,
          },
          b: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'number' }, minItems: 1 },
        },
        required: ['a', 'b'],
      },
    ],
    [
      'a single object parameter with @param NAME.member descriptions',
      '(options: { query: string; limit?: number })',
      {
        type: 'object',
        properties: { query: { type: 'string', description: 'What to find.' }, limit: { type: 'number' } },
        required: ['query'],
      },
    ],
  ];

  it('keeps a branded Integer through generics; a plain alias is read where the source spells it', async () => {
    const generic = 'interface Page<T> {\n  items: T[];\n}';
    expect(
      await parametersOf(
        '(page: Page<Integer>)',
        `type Integer = number & { readonly __integer?: never };\n${generic}`,
      ),
    ).toEqual({
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'integer' } } },
      required: ['items'],
    });
    expect(await parametersOf('(page: Page<Integer>)', `type Integer = number;\n${generic}`)).toEqual({
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'number' } } },
      required: ['items'],
    });
  });

  it('takes defaults from members of as-const objects', async () => {
    expect(
      await parametersOf('(size: string = Sizes.small)', "const Sizes = { small: 's', large: 'l' } as const;"),
    ).toEqual({
      type: 'object',
      properties: { size: { type: 'string', default: 's' } },
    });
  });

  it.each(cases)('maps %s', async (_title, signature, expected, preamble) => {
    const source = signature.startsWith('(options')
      ? `/**\n * Run it.\n * @tool\n * @param options.query What to find.\n */\nexport function run${signature} {}\n`
      : undefined;
    const parameters =
      source === undefined
        ? await parametersOf(signature, preamble)
        : (await extractTools(sourceFile(source)))[0]!.definition.parameters;
    expect(parameters).toEqual(expected);
  });

  it('treats a single parameter that is not an object as one positional argument', async () => {
    expect(await parametersOf('(tags: Record<string, string>)')).toEqual({
      type: 'object',
      properties: { tags: { type: 'object', additionalProperties: { type: 'string' } } },
      required: ['tags'],
    });
    expect(await parametersOf('(text: string)')).toEqual({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
  });

  it('reads arrow functions, export lists and default exports', async () => {
    const file = sourceFile(
      [
        '/**\n * Arrow.\n * @tool\n */\nexport const arrowTool = (a: string) => a;',
        '/**\n * Listed.\n * @tool\n */\nfunction listedTool() {}\nexport { listedTool as renamedTool };',
        '/**\n * Default.\n * @tool\n */\nexport default function defaultTool() {}',
      ].join('\n'),
    );
    const tools = await extractTools(file);
    expect(tools.map((tool) => [tool.exportName, tool.definition.name])).toEqual([
      ['arrowTool', 'arrow_tool'],
      ['renamedTool', 'renamed_tool'],
      ['default', 'default_tool'],
    ]);
  });

  it('runs the extractTools documentation example', async () => {
    const file = sourceFile(
      '/** Add two numbers. @tool @readOnly */\nexport function addNumbers(a: number, b: number) { return a + b; }\n',
    );
    const [tool] = await extractTools(file);
    expect(tool!.definition.name).toBe('add_numbers');
    expect(tool!.definition.annotations).toEqual({ read_only: true });
    expect(tool!.definition.parameters).toEqual({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
  });

  it('passes the ToolContext last and keeps it out of the schema', async () => {
    const [tool] = await extractTools(
      sourceFile(
        `import type { ToolContext } from ${JSON.stringify(toolSpecModule)};\n/**\n * Run it.\n * @tool\n */\nexport function run(a: string, context: ToolContext) {}\n`,
      ),
    );
    expect(tool).toMatchObject({ callStyle: 'positional', argumentNames: ['a'], takesContext: true });
    expect(tool!.definition.parameters.properties).toEqual({ a: { type: 'string' } });
    const [contextOnly] = await extractTools(
      sourceFile(
        `import type { ToolContext } from ${JSON.stringify(toolSpecModule)};\n/**\n * Run it.\n * @tool\n */\nexport function run(context: ToolContext) {}\n`,
      ),
    );
    // Called through the wrapper, so the context is its first argument, not the arguments object.
    expect(contextOnly).toMatchObject({ callStyle: 'positional', argumentNames: [], takesContext: true });
    expect(contextOnly!.definition.parameters).toEqual({ type: 'object', properties: {} });
  });
});

describe('extraction errors', () => {
  const doc = '/**\n * Run it.\n * @tool\n */\n';
  const cases: Array<[title: string, source: string, message: (file: string) => string]> = [
    [
      'a function parameter',
      `${doc}export function run(callback: () => void) {}\n`,
      (file) =>
        `${file}:5:21: function 'run', parameter 'callback': type '() => void' is not supported: functions cannot be sent as JSON arguments.`,
    ],
    [
      'a function member, located at the member',
      `interface Options {\n  name: string;\n  onDone: (code: number) => void;\n}\n${doc}export function run(options: Options) {}\n`,
      (file) =>
        `${file}:3:3: function 'run', parameter 'options.onDone': type '(code: number) => void' is not supported: functions cannot be sent as JSON arguments.`,
    ],
    [
      'a symbol',
      `${doc}export function run(key: symbol) {}\n`,
      (file) =>
        `${file}:5:21: function 'run', parameter 'key': type 'symbol' is not supported: symbols have no JSON form.`,
    ],
    [
      'a bigint',
      `${doc}export function run(amount: bigint) {}\n`,
      (file) =>
        `${file}:5:21: function 'run', parameter 'amount': type 'bigint' is not supported: bigint has no JSON form; use number or string.`,
    ],
    [
      'a generic type parameter',
      `${doc}export function run<T>(value: T) {}\n`,
      (file) =>
        `${file}:5:24: function 'run', parameter 'value': type 'T' is not supported: a generic type parameter cannot be resolved to a concrete type.`,
    ],
    [
      'a recursive type',
      `interface Tree {\n  name: string;\n  children: Tree[];\n}\n${doc}export function run(tree: Tree) {}\n`,
      (file) =>
        `${file}:3:3: function 'run', parameter 'tree.children[]': type 'Tree' is not supported: it contains itself (at 'tree' and 'tree.children[]'); recursive types are not supported.`,
    ],
    [
      'a Map',
      `${doc}export function run(counts: Map<string, number>) {}\n`,
      (file) =>
        `${file}:5:21: function 'run', parameter 'counts': type 'Map<string, number>' is not supported: it is not plain JSON data.`,
    ],
    [
      'a class instance',
      `class Point {\n  x = 0;\n}\n${doc}export function run(point: Point, scale: number) {}\n`,
      (file) =>
        `${file}:8:21: function 'run', parameter 'point': type 'Point' is not supported: class instances cannot be built from JSON arguments; use an interface.`,
    ],
    [
      'any',
      `${doc}export function run(value: any) {}\n`,
      (file) =>
        `${file}:5:21: function 'run', parameter 'value': type 'any' is not supported: 'any' says nothing about the value; use a concrete type, or unknown for any JSON value.`,
    ],
    [
      'a type that cannot be resolved',
      `import type { Missing } from './nowhere.js';\n${doc}export function run(value: Missing) {}\n`,
      (file) =>
        `${file}:6:21: function 'run', parameter 'value': type 'Missing' is not supported: the type cannot be resolved; check its import.`,
    ],
    [
      'numeric keys',
      `${doc}export function run(byId: { [id: number]: string }) {}\n`,
      (file) =>
        `${file}:5:21: function 'run', parameter 'byId': type '{ [id: number]: string; }' is not supported: JSON object keys are strings; use Record<string, T>.`,
    ],
    [
      'a template literal type',
      `${doc}export function run(id: \`user-\${string}\`) {}\n`,
      (file) =>
        `${file}:5:21: function 'run', parameter 'id': type '\`user-\${string}\`' is not supported: template literal types have no JSON Schema form; use string.`,
    ],
    [
      'a parameter without a type',
      `${doc}export function run(value) {}\n`,
      (file) => `${file}:5:21: function 'run': parameter 'value' has no type annotation, so its schema is unknown.`,
    ],
    [
      'a rest parameter',
      `${doc}export function run(...values: string[]) {}\n`,
      (file) =>
        `${file}:5:21: function 'run': the rest parameter '...values' has no JSON form; take an array parameter instead.`,
    ],
    [
      'an overloaded function',
      `${doc}export function run(a: string): void;\nexport function run(a: number): void;\nexport function run(a: unknown) {}\n`,
      (file) => `${file}:5:17: function 'run' is overloaded; a tool needs a single signature.`,
    ],
    [
      'a tagged function without a JSDoc summary',
      '/** @tool */\nexport function run(a: string) {}\n',
      (file) =>
        `${file}:2:17: function 'run' is tagged @tool but has no JSDoc summary; write a sentence before the tags, it becomes the tool's description.`,
    ],
    [
      'duplicate tool names',
      '/**\n * One.\n * @tool\n */\nexport function searchEmails() {}\n/**\n * Two.\n * @tool\n */\nexport function search_emails() {}\n',
      (file) =>
        `${file}:10:17: functions 'searchEmails' (line 5) and 'search_emails' both make the tool name 'search_emails'; rename one or name it with '@tool NAME'.`,
    ],
    [
      'a name that is not a tool name',
      `${doc}export function _internal() {}\n`,
      (file) =>
        `${file}:5:17: function '_internal' makes the tool name "_internal", which is not a valid tool name (1-64 lowercase letters, digits and underscores, starting with a letter); name it with '@tool NAME'.`,
    ],
    [
      'a bad @timeout',
      '/**\n * Run it.\n * @tool\n * @timeout soon\n */\nexport function run() {}\n',
      (file) => `${file}:6:17: function 'run': @timeout must be a number of seconds greater than 0, got "soon".`,
    ],
    [
      'a bad @category',
      '/**\n * Run it.\n * @tool\n * @category Email Tools\n */\nexport function run() {}\n',
      (file) =>
        `${file}:6:17: function 'run': @category must be one lowercase word (letters, digits, '_' or '-'), got "Email Tools".`,
    ],
    [
      'a bad annotation value',
      '/**\n * Run it.\n * @tool\n * @readOnly yes\n */\nexport function run() {}\n',
      (file) => `${file}:6:17: function 'run': @readOnly takes no value, or true or false, got "yes".`,
    ],
    [
      'a @param that names no parameter',
      '/**\n * Run it.\n * @tool\n * @param qeury What to find.\n */\nexport function run(query: string) {}\n',
      (file) => `${file}:4:4: function 'run': @param 'qeury' names no parameter; the parameters are query.`,
    ],
    [
      'a ToolContext before other parameters',
      `import type { ToolContext } from ${JSON.stringify(toolSpecModule)};\n${doc}export function run(context: ToolContext, a: string) {}\n`,
      (file) => `${file}:6:21: function 'run': the ToolContext parameter 'context' must be the last parameter.`,
    ],
    [
      'a syntax error',
      `${doc}export function run(a: string {\n}\n`,
      (file) => `${file}:5:31: TypeScript syntax error: ',' expected. (and 1 more syntax error)`,
    ],
    [
      'a file without tools',
      'export function run(a: string) {}\n/**\n * Tagged, not exported.\n * @tool\n */\nfunction hidden() {}\n',
      (file) =>
        `${file}: no exported function is tagged @tool; tag each tool's JSDoc with @tool (functions the module does not export are ignored).`,
    ],
  ];

  it.each(cases)('reports %s with its exact message', async (_title, source, message) => {
    const file = sourceFile(source);
    const error = await extractError(file);
    expect(error.message).toBe(message(file));
    expect(error.code).toBe('INVALID_DEFINITION');
  });

  it('names the function and the parameter on an unsupported type', async () => {
    const error = await extractError(sourceFile(`${doc}export function run(ok: string, key: symbol) {}\n`));
    expect(error).toMatchObject({
      reason: 'UNSUPPORTED_TYPE',
      functionName: 'run',
      parameter: 'key',
      line: 5,
      column: 33,
    });
  });

  it('reports every problem of a file at once', async () => {
    const file = sourceFile(
      '/**\n * One.\n * @tool\n */\nexport function first(key: symbol) {}\n/** @tool */\nexport function second() {}\n',
    );
    const error = await extractError(file);
    expect(error.reason).toBe('MULTIPLE');
    expect(error.errors.map((each) => each.reason)).toEqual(['UNSUPPORTED_TYPE', 'MISSING_SUMMARY']);
    expect(error.message).toBe(
      [
        `2 problems stop tool extraction from ${file}:`,
        `  ${file}:5:23: function 'first', parameter 'key': type 'symbol' is not supported: symbols have no JSON form.`,
        `  ${file}:7:17: function 'second' is tagged @tool but has no JSDoc summary; write a sentence before the tags, it becomes the tool's description.`,
      ].join('\n'),
    );
  });

  it('reports a missing file, a folder and a file that is not TypeScript', async () => {
    const missing = join(scratch, 'missing.ts');
    expect((await extractError(missing)).message).toBe(`Cannot extract tools from '${missing}': file not found.`);
    expect((await extractError(scratch)).message).toBe(
      `Cannot extract tools from '${scratch}': it is a folder, not a file.`,
    );
    const javascript = sourceFile('export function run() {}\n', 'tools.js');
    expect((await extractError(javascript)).message).toBe(
      `Cannot extract tools from '${javascript}': it is not a TypeScript source file (.ts, .mts, .cts or .tsx).`,
    );
    expect((await extractError(missing)).reason).toBe('FILE_NOT_FOUND');
  });

  it('shows paths inside the working folder relative to it', async () => {
    const error = await extractError('src/extract/__fixtures__/missing.ts');
    expect(error.message).toBe("Cannot extract tools from 'src/extract/__fixtures__/missing.ts': file not found.");
  });
});
