import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { closest, distance } from 'fastest-levenshtein';
import { describe, expect, it } from 'vitest';
import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';
import type { ToolContext } from '../core/tool-spec.js';
import { parseHandlerReference, type ResolveHandlerOptions, resolveHandler } from './resolve-handler.js';

const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const good: ResolveHandlerOptions = { toolName: 'tool', baseDir: `${fixtures}good` };
const bad: ResolveHandlerOptions = { toolName: 'tool', baseDir: `${fixtures}bad` };

async function resolutionError(reference: string, options: ResolveHandlerOptions): Promise<ToolRegistrationError> {
  const error = await resolveHandler(reference, options).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ToolRegistrationError.isInstance(error))
    throw new Error(`expected a ToolRegistrationError for ${reference}, got ${String(error)}`);
  return error;
}

describe('parseHandlerReference', () => {
  it.each([
    ['./handlers/fs.js#readFile', { module: './handlers/fs.js', exportName: 'readFile' }],
    ['../shared/tools.mjs#run', { module: '../shared/tools.mjs', exportName: 'run' }],
    ['/opt/tools/fs.js#readFile', { module: '/opt/tools/fs.js', exportName: 'readFile' }],
    ['my-package#search', { module: 'my-package', exportName: 'search' }],
    ['@scope/tools/fs#readFile', { module: '@scope/tools/fs', exportName: 'readFile' }],
    ['tools.custom.my_handler', { module: 'tools.custom', exportName: 'my_handler' }],
    ['fastest-levenshtein.distance', { module: 'fastest-levenshtein', exportName: 'distance' }],
  ])('splits %s', (reference, expected) => {
    expect(parseHandlerReference(reference)).toEqual(expected);
  });

  it.each(['./handlers/fs.js', 'readFile', '#readFile', './fs.js#', 'module.', '.export', 'a/b.c'])(
    'refuses %s',
    (reference) => {
      expect(parseHandlerReference(reference)).toBeUndefined();
    },
  );
});

describe('resolveHandler', () => {
  it('loads an export of a module relative to the base folder', async () => {
    const handler = await resolveHandler('./handlers/text.js#wordCount', good);
    expect(handler({ text: 'a b c' }, {} as ToolContext)).toEqual({ words: 3 });
  });

  it('loads an export of a module given by absolute path', async () => {
    const handler = await resolveHandler(`${fixtures}good/handlers/text.js#echo`, { toolName: 'echo', baseDir: '/' });
    expect(handler({ text: 'hi' }, {} as ToolContext)).toBe('hi');
  });

  it('uses the handler of an exported tool spec', async () => {
    const handler = await resolveHandler('./handlers/spec-tools.ts#greet', good);
    expect(handler({ who: 'Ada' }, {} as ToolContext)).toBe('Hello, Ada!');
  });

  it('loads an export of an installed package with #', async () => {
    expect(await resolveHandler('fastest-levenshtein#closest', good)).toBe(closest);
  });

  it('loads an export of an installed package in the dotted form', async () => {
    expect(await resolveHandler('fastest-levenshtein.distance', good)).toBe(distance);
  });

  it('loads an export of a Node built-in module', async () => {
    for (const reference of ['node:os#hostname', 'node:os.hostname']) {
      const handler = await resolveHandler(reference, good);
      expect(handler({}, {} as ToolContext)).toBe(hostname());
    }
  });

  it('asks the registry for builtin: handlers', async () => {
    const calculator = () => 42;
    const options = { ...good, resolveBuiltin: (name: string) => (name === 'calculator' ? calculator : undefined) };
    expect(await resolveHandler('builtin:calculator', options)).toBe(calculator);
    expect((await resolutionError('builtin:calculater', options)).message).toBe(
      "handler 'builtin:calculater' names no built-in handler.",
    );
    expect((await resolutionError('builtin:calculator', good)).message).toBe(
      "handler 'builtin:calculator' names no built-in handler (this registry has no built-ins enabled).",
    );
  });

  it('points REST handlers to custom_tools', async () => {
    expect((await resolutionError('https://api.example.com/search', good)).message).toBe(
      "handler 'https://api.example.com/search': REST tools are defined under custom_tools in toolshed.yaml, not as a handler reference.",
    );
  });

  it('reports a package that is not installed, and that relative paths need ./', async () => {
    for (const reference of ['no-such-package-for-toolshed#run', 'handlers/fs.js#readFile']) {
      const module = reference.split('#')[0];
      expect((await resolutionError(reference, good)).message).toBe(
        `handler module '${module}' not found: no such package is installed, and relative paths must start with './'.`,
      );
    }
  });

  it('reports a module that throws while loading', async () => {
    expect((await resolutionError('./handlers/broken.js#run', bad)).message).toBe(
      "handler module './handlers/broken.js' failed to load: Error: cannot start without a config file",
    );
  });

  it('lists the exports and the closest one when the export is missing', async () => {
    expect((await resolutionError('./handlers/tools.js#read_file', bad)).message).toBe(
      "module './handlers/tools.js' has no export 'read_file'. Did you mean 'readFile'? Its exports: limits, readFile, writeFile.",
    );
  });

  it('does not take inherited properties for exports', async () => {
    expect((await resolutionError('./handlers/tools.js#toString', bad)).message).toBe(
      "module './handlers/tools.js' has no export 'toString'. Its exports: limits, readFile, writeFile.",
    );
  });

  it('refuses an export that is not callable', async () => {
    expect((await resolutionError('./handlers/tools.js#limits', bad)).message).toBe(
      "export 'limits' of './handlers/tools.js' is not callable (it is object).",
    );
  });

  it('carries the tool name, the field and the place of the definition', async () => {
    const error = await resolutionError('./handlers/missing.js#run', {
      ...bad,
      toolName: 'runner',
      file: 'tools/runner.yaml',
      line: 4,
      column: 1,
    });
    expect(error).toMatchObject({
      code: 'HANDLER_RESOLUTION_FAILED',
      toolName: 'runner',
      field: 'handler',
      file: 'tools/runner.yaml',
      line: 4,
      column: 1,
      message: `tools/runner.yaml:4:1: handler module './handlers/missing.js' not found (looked for ${fixtures}bad/handlers/missing.js).`,
    });
  });
});
