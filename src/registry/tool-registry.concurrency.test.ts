import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { defineTool } from '../core/define-tool.js';
import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';
import { ToolRegistry } from './tool-registry.js';

const fixtures = fileURLToPath(new URL('../definitions/__fixtures__/', import.meta.url));
const shownFixtures = 'src/definitions/__fixtures__';

function definition(name: string) {
  return {
    name,
    description: `Tool ${name}.`,
    parameters: { type: 'object', properties: { text: { type: 'string' } } },
    handler: './handlers/text.js#echo',
  };
}

describe('concurrent registration', () => {
  it('ends 1 000 concurrent registerDefinition calls over 500 names with 500 tools and 500 DUPLICATE_TOOL', async () => {
    const registry = new ToolRegistry();
    const names = Array.from({ length: 500 }, (_, index) => `tool_${index}`);
    const outcomes = await Promise.allSettled(
      [...names, ...names].map((name) => registry.registerDefinition(definition(name), { baseDir: `${fixtures}good` })),
    );
    const rejected = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(500);
    expect(rejected).toHaveLength(500);
    for (const outcome of rejected) {
      const error = (outcome as PromiseRejectedResult).reason as unknown;
      expect(ToolRegistrationError.isInstance(error) && error.code).toBe('DUPLICATE_TOOL');
      expect((error as ToolRegistrationError).message).toBe(
        `Tool '${(error as ToolRegistrationError).toolName}' is already registered; pass allowOverride: true to replace it.`,
      );
    }
    expect(registry.list()).toEqual([...names].sort());
    expect(
      new Set(rejected.map((outcome) => ((outcome as PromiseRejectedResult).reason as ToolRegistrationError).toolName)),
    ).toEqual(new Set(names));
  });

  it('registers every tool once when the same folder is loaded twice at the same time', async () => {
    const registry = new ToolRegistry();
    const outcomes = await Promise.allSettled([
      registry.loadYamlDirectory(`${fixtures}good`),
      registry.loadYamlDirectory(`${fixtures}good`),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    // word_count has an output budget, so read_tool_output comes with it.
    expect(registry.list()).toEqual(['read_file', 'read_tool_output', 'word_count']);
  });
});

describe('all-or-nothing directory loads', () => {
  it('leaves the registry exactly as it was when one file among good ones fails, and lists every failing file', async () => {
    const registry = new ToolRegistry();
    const existing = registry.register(
      defineTool({ name: 'existing', description: 'Already here.', handler: () => 1 }),
    );
    const listener = vi.fn();
    registry.on('change', listener);
    const version = registry.version;

    const error = await registry.loadYamlDirectory(`${fixtures}mixed`).catch((caught: unknown) => caught);
    expect(ToolRegistrationError.isInstance(error)).toBe(true);
    const loadError = error as ToolRegistrationError;
    expect(loadError.code).toBe('LOAD_FAILED');
    expect(loadError.message).toBe(
      [
        `2 of 4 tool definition files in '${shownFixtures}/mixed' failed to load; nothing was registered:`,
        `  ${shownFixtures}/mixed/delta.yaml:8:1: 'timeout' must be > 0, got number 0`,
        `  ${shownFixtures}/mixed/gamma.yaml:7:1: module '../good/handlers/text.js' has no export 'wordcount'. Did you mean 'wordCount'? Its exports: echo, shout, wordCount.`,
      ].join('\n'),
    );
    expect(loadError.errors.map((failure) => [failure.file, failure.code])).toEqual([
      [`${shownFixtures}/mixed/delta.yaml`, 'INVALID_DEFINITION'],
      [`${shownFixtures}/mixed/gamma.yaml`, 'HANDLER_RESOLUTION_FAILED'],
    ]);

    expect(registry.list()).toEqual(['existing']);
    expect(registry.get('existing')).toBe(existing);
    expect(registry.version).toBe(version);
    expect(listener).not.toHaveBeenCalled();
  });

  it('registers nothing when one file of a folder takes a registered name', async () => {
    const registry = new ToolRegistry();
    registry.register(defineTool({ name: 'word_count', description: 'Already here.', handler: () => 1 }));
    const error = await registry.loadYamlDirectory(`${fixtures}good`).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'DUPLICATE_TOOL',
      message: `${shownFixtures}/good/word_count.yaml: Tool 'word_count' is already registered; pass allowOverride: true to replace it.`,
    });
    expect(registry.list()).toEqual(['word_count']);
  });

  it('replaces registered tools with allowOverride', async () => {
    const registry = new ToolRegistry();
    registry.register(defineTool({ name: 'word_count', description: 'Already here.', handler: () => 1 }));
    expect(await registry.loadYamlDirectory(`${fixtures}good`, { allowOverride: true })).toEqual([
      'read_file',
      'word_count',
    ]);
    expect(registry.get('word_count').description).toBe('Count the words in a text.');
  });
});
