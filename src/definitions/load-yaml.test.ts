import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';
import type { ToolResult, ToolSuccess } from '../core/tool-result.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { MAX_DEFINITION_BYTES, parseDefinitionText } from './load-yaml.js';

const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
// Messages show paths relative to the working folder (vitest runs from the project root).
const shown = 'src/definitions/__fixtures__';

async function loadError(path: string): Promise<ToolRegistrationError> {
  const error = await new ToolRegistry().loadYamlFile(path).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ToolRegistrationError.isInstance(error))
    throw new Error(`expected a ToolRegistrationError loading ${path}, got ${String(error)}`);
  return error;
}

function expectSuccess(result: ToolResult): ToolSuccess {
  if (result.status !== 'success') throw new Error(`expected a success, got ${JSON.stringify(result)}`);
  return result;
}

const ALLOWED_KEYS =
  'name, title, description, when_to_use, category, tags, parameters, input_examples, output_schema, handler, timeout, async, annotations, execution, requires, max_output_chars, extra_args, reset_on_progress, max_total, max_concurrency, requires_approval, cli, metadata';

/** One file per mistake, and the one line `path:line:col: message` each must produce. */
const BAD_DEFINITIONS: Array<[file: string, line: string | RegExp]> = [
  [
    'syntax-error.yaml',
    'syntax-error.yaml:6:1: YAML syntax error: Flow map in block collection must be sufficiently indented and end with a }',
  ],
  ['duplicate-keys.yaml', 'duplicate-keys.yaml:8:1: YAML syntax error: Map keys must be unique'],
  ['two-documents.yaml', /^two-documents\.yaml:5:1: YAML syntax error: /],
  ['empty.yaml', 'empty.yaml:1:1: a tool definition must be a mapping of keys to values, got null'],
  ['list.yaml', 'list.yaml:1:1: a tool definition must be a mapping of keys to values, got an array'],
  ['too-large.yaml', 'too-large.yaml:1:1: is 2000075 bytes, more than the 1000000 a tool definition may have.'],
  ['wrong-type-timeout.yaml', `wrong-type-timeout.yaml:8:1: 'timeout' must be a number, got string "30"`],
  ['wrong-type-tags.yaml', `wrong-type-tags.yaml:3:1: 'tags' must be an array, got string "filesystem"`],
  ['missing-name.yaml', "missing-name.yaml:1:1: missing required field 'name' (a string)"],
  ['missing-description.yaml', "missing-description.yaml:1:1: missing required field 'description' (a string)"],
  ['empty-description.yaml', "empty-description.yaml:2:1: 'description' must not be empty"],
  ['missing-parameters.yaml', "missing-parameters.yaml:1:1: missing required field 'parameters' (an object)"],
  ['missing-handler.yaml', "missing-handler.yaml:1:1: missing required field 'handler' (a string)"],
  [
    'bad-name.yaml',
    `bad-name.yaml:1:1: 'name' must be 1-64 lowercase letters, digits or underscores starting with a letter, got "ReadFile"`,
  ],
  [
    'handler-module-missing.yaml',
    `handler-module-missing.yaml:7:1: handler module './handlers/missing.js' not found (looked for ${fixtures}bad/handlers/missing.js).`,
  ],
  [
    'handler-export-missing.yaml',
    "handler-export-missing.yaml:7:1: module './handlers/tools.js' has no export 'raedFile'. Did you mean 'readFile'? Its exports: limits, readFile, writeFile.",
  ],
  [
    'handler-not-callable.yaml',
    "handler-not-callable.yaml:7:1: export 'limits' of './handlers/tools.js' is not callable (it is object).",
  ],
  [
    'handler-bad-format.yaml',
    "handler-bad-format.yaml:7:1: handler './handlers/tools.js' must be MODULE#EXPORT (such as ./handlers/fs.js#readFile) or MODULE.EXPORT.",
  ],
  ['timeout-zero.yaml', "timeout-zero.yaml:8:1: 'timeout' must be > 0, got number 0"],
  ['timeout-negative.yaml', "timeout-negative.yaml:8:1: 'timeout' must be > 0, got number -1"],
  [
    'unknown-key.yaml',
    `unknown-key.yaml:8:1: unknown key 'timout' (did you mean 'timeout'?); allowed keys: ${ALLOWED_KEYS}`,
  ],
  [
    'unknown-annotation.yaml',
    "unknown-annotation.yaml:10:3: unknown key 'annotations.idempotant' (did you mean 'idempotent'?); allowed keys under 'annotations': read_only, destructive, idempotent, open_world",
  ],
  [
    'parameters-not-object.yaml',
    "parameters-not-object.yaml:3:1: 'parameters' must be an object, got a list of 2 items",
  ],
  [
    'parameters-without-properties.yaml',
    "parameters-without-properties.yaml:3:1: missing required field 'parameters.properties' (an object)",
  ],
  // Located at the offending `type:` key, naming the whole field, quoting the value and the way out.
  [
    'parameters-invalid-schema.yaml',
    /^parameters-invalid-schema\.yaml:7:7: (?=.*'?parameters\.properties\.path\.type'?)(?=.*"strnig")(?=.*"string").*$/,
  ],
];

describe('bad YAML definitions', () => {
  it('has a case for every file in the corpus', () => {
    const files = readdirSync(`${fixtures}bad`).filter((name) => name.endsWith('.yaml'));
    expect(BAD_DEFINITIONS.map(([file]) => file).sort()).toEqual(files.sort());
  });

  it('keeps a corpus file larger than a definition may be', () => {
    expect(statSync(`${fixtures}bad/too-large.yaml`).size).toBeGreaterThan(2 * MAX_DEFINITION_BYTES);
  });

  it.each(BAD_DEFINITIONS)('reports %s as one line path:line:col: message', async (file, expected) => {
    const error = await loadError(`${fixtures}bad/${file}`);
    expect(error.message).not.toContain('\n');
    const prefix = `${shown}/bad/`;
    expect(error.message.startsWith(prefix)).toBe(true);
    const line = error.message.slice(prefix.length);
    if (typeof expected === 'string') expect(line).toBe(expected);
    else expect(line).toMatch(expected);
    expect(error.file).toBe(`${shown}/bad/${file}`);
  });

  it('gives the tool name and the field of a definition error', async () => {
    const error = await loadError(`${fixtures}bad/timeout-zero.yaml`);
    expect(error).toMatchObject({
      code: 'INVALID_DEFINITION',
      toolName: 'read_file',
      field: 'timeout',
      line: 8,
      column: 1,
    });
  });

  it('gives HANDLER_RESOLUTION_FAILED for a handler that cannot be loaded', async () => {
    const error = await loadError(`${fixtures}bad/handler-export-missing.yaml`);
    expect(error).toMatchObject({ code: 'HANDLER_RESOLUTION_FAILED', toolName: 'read_file', field: 'handler' });
  });

  it('lists every failing file of a folder in one LOAD_FAILED error and registers nothing', async () => {
    const registry = new ToolRegistry();
    const error = await registry.loadYamlDirectory(`${fixtures}bad`).catch((caught: unknown) => caught);
    expect(ToolRegistrationError.isInstance(error)).toBe(true);
    const loadError = error as ToolRegistrationError;
    expect(loadError.code).toBe('LOAD_FAILED');
    const count = BAD_DEFINITIONS.length;
    expect(loadError.errors).toHaveLength(count);
    expect(loadError.errors.map((failure) => failure.file)).toEqual(
      BAD_DEFINITIONS.map(([file]) => `${shown}/bad/${file}`).sort((left, right) => left.localeCompare(right)),
    );
    expect(loadError.message).toBe(
      [
        `${count} of ${count} tool definition files in '${shown}/bad' failed to load; nothing was registered:`,
        ...loadError.errors.map((failure) => `  ${failure.message}`),
      ].join('\n'),
    );
    expect(registry.list()).toEqual([]);
  });

  it('refuses a YAML alias bomb', async () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
      'name: [*e]',
    ].join('\n');
    const error = await parseDefinitionText(bomb, 'tools/bomb.yaml').catch((caught: unknown) => caught);
    expect(ToolRegistrationError.isInstance(error)).toBe(true);
    expect((error as ToolRegistrationError).message).toMatch(
      /^tools\/bomb\.yaml:1:1: YAML .*: Excessive alias count indicates a resource exhaustion attack$/,
    );
  });

  it('reports a file that does not exist', async () => {
    const error = await loadError(`${fixtures}bad/nope.yaml`);
    expect(error.message).toBe(`${shown}/bad/nope.yaml: file not found.`);
  });

  it('reports a folder given as a file', async () => {
    const error = await loadError(`${fixtures}bad`);
    expect(error.message).toBe(`${shown}/bad: is a folder, not a YAML file; use loadYamlDirectory.`);
  });

  it('reports a folder that does not exist', async () => {
    const error = await new ToolRegistry().loadYamlDirectory(`${fixtures}nope`).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'LOAD_FAILED', message: `Tool folder '${shown}/nope' does not exist.` });
  });
});

describe('good YAML definitions', () => {
  const sample = `${fixtures}good/sample.txt`;

  it("loads the Python guide's read_file example and runs it end to end", async () => {
    const registry = new ToolRegistry();
    const spec = await registry.loadYamlFile(`${fixtures}good/read_file.yaml`);
    expect(spec).toMatchObject({
      name: 'read_file',
      description: 'Read the contents of a file from the filesystem',
      category: 'filesystem',
      timeoutMs: 30_000,
      metadata: { version: '1.0', category: 'filesystem' },
    });
    expect(spec.inputSchema.required).toEqual(['file_path']);

    const whole = expectSuccess(await registry.call('read_file', { file_path: sample }));
    expect(whole.data).toEqual({ content: 'first line\nsecond line\nthird line\nfourth line\n', lines: 4 });

    const range = expectSuccess(
      await registry.call('read_file', JSON.stringify({ file_path: sample, start_line: 2, end_line: 3 })),
    );
    expect(range.data).toEqual({ content: 'second line\nthird line\n', lines: 2 });

    const tail = expectSuccess(
      await registry.call('read_file', { file_path: sample, start_line: 4, encoding: 'latin1' }),
    );
    expect(tail.data).toEqual({ content: 'fourth line\n', lines: 1 });
  });

  it('answers bad calls to read_file with results a model can act on', async () => {
    const registry = new ToolRegistry();
    await registry.loadYamlFile(`${fixtures}good/read_file.yaml`);
    const missingArgument = await registry.call('read_file', {});
    expect(missingArgument.status === 'error' && missingArgument.error.message).toBe(
      "Invalid arguments for 'read_file': missing required argument 'file_path' (a string).",
    );
    const wrongType = await registry.call('read_file', { file_path: sample, start_line: 'two' });
    expect(wrongType.status === 'error' && wrongType.error.message).toBe(
      `Invalid arguments for 'read_file': 'start_line' must be an integer, got string "two".`,
    );
    const missingFile = await registry.call('read_file', { file_path: `${fixtures}good/nope.txt` });
    expect(missingFile.status === 'error' && missingFile.error.message).toBe(
      `Tool 'read_file' failed: Error: ENOENT: no such file or directory, open '${fixtures}good/nope.txt'`,
    );
  });

  it('keeps the definition as written for getDefinition', async () => {
    const registry = new ToolRegistry();
    await registry.loadYamlFile(`${fixtures}good/read_file.yaml`);
    expect(registry.getDefinition('read_file')).toMatchObject({
      name: 'read_file',
      handler: './handlers/fs.js#readFile',
      timeout: 30,
      metadata: { version: '1.0', category: 'filesystem' },
    });
  });

  it('maps every snake_case key to the tool spec', async () => {
    const registry = new ToolRegistry({ env: { WORD_COUNT_LICENSE: 'key' } });
    const spec = await registry.loadYamlFile(`${fixtures}good/word_count.yaml`);
    expect(spec).toMatchObject({
      name: 'word_count',
      title: 'Word Count',
      whenToUse: 'When the user asks how long a text is.',
      category: 'text',
      tags: ['text', 'count'],
      outputSchema: { type: 'object', properties: { words: { type: 'integer', minimum: 0 } }, required: ['words'] },
      timeoutMs: 500,
      annotations: { readOnly: true, idempotent: true, openWorld: false },
      requires: {
        env: [
          {
            name: 'WORD_COUNT_LICENSE',
            description: 'License key of the word counter',
            url: 'https://example.com/word-count',
          },
        ],
      },
      maxOutputChars: 1000,
      extraArgs: 'reject',
      maxConcurrency: 2,
      cli: 'wc',
      metadata: { version: '2.1', author: 'toolshed' },
    });
    expect(expectSuccess(await registry.call('word_count', { text: 'one two  three' })).data).toEqual({ words: 3 });
    const extra = await registry.call('word_count', { text: 'a', lang: 'en' });
    expect(extra.status === 'error' && extra.error.code).toBe('INVALID_ARGUMENTS');
  });

  it('checks the credentials a YAML tool requires', async () => {
    const registry = new ToolRegistry({ env: {} });
    await registry.loadYamlFile(`${fixtures}good/word_count.yaml`);
    const result = await registry.call('word_count', { text: 'a' });
    expect(result.status === 'error' && result.error.message).toBe(
      "Tool 'word_count' needs the environment variable WORD_COUNT_LICENSE (License key of the word counter), which is not set.",
    );
  });

  it('loads the *.yaml files of a folder by default', async () => {
    const registry = new ToolRegistry();
    expect(await registry.loadYamlDirectory(`${fixtures}good`)).toEqual(['read_file', 'word_count']);
  });

  it('loads only the files matching pattern *.yml', async () => {
    const registry = new ToolRegistry();
    expect(await registry.loadYamlDirectory(`${fixtures}good`, { pattern: '*.yml' })).toEqual(['echo']);
    expect(expectSuccess(await registry.call('echo', { text: 'hi' })).data).toBe('hi');
  });

  it('loads subfolders with pattern **/*.yaml, resolving handlers against each file', async () => {
    const registry = new ToolRegistry();
    expect(await registry.loadYamlDirectory(`${fixtures}good`, { pattern: '**/*.yaml' })).toEqual([
      'read_file',
      'shout',
      'word_count',
    ]);
    const spec = registry.get('shout');
    expect(spec).toMatchObject({ resetOnProgress: true, maxTotalMs: 2000 });
    const onProgress = vi.fn();
    expect(expectSuccess(await registry.call('shout', { text: 'hey' }, { context: { onProgress } })).data).toBe('HEY');
    expect(onProgress).toHaveBeenCalledWith({ progress: 1, total: 1, message: 'shouted' });
  });

  it('reports progress while loading a folder', async () => {
    const onProgress = vi.fn();
    await new ToolRegistry().loadYamlDirectory(`${fixtures}good`, { onProgress });
    expect(onProgress).toHaveBeenCalledTimes(2);
    expect(onProgress).toHaveBeenLastCalledWith(2, 2);
  });
});
