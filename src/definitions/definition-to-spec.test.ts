import { fileURLToPath } from 'node:url';
import { distance } from 'fastest-levenshtein';
import { describe, expect, it } from 'vitest';
import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { definitionProblems, definitionToSpec } from './definition-to-spec.js';

const baseDir = fileURLToPath(new URL('./__fixtures__/good/', import.meta.url));

const minimal = {
  name: 'echo',
  description: 'Repeat the text back.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: './handlers/text.js#echo',
};

async function definitionError(definition: unknown): Promise<ToolRegistrationError> {
  const error = await new ToolRegistry().registerDefinition(definition, { baseDir }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ToolRegistrationError.isInstance(error))
    throw new Error(`expected a ToolRegistrationError, got ${String(error)}`);
  return error;
}

describe('definitionProblems', () => {
  it('finds nothing wrong with a minimal definition', () => {
    expect(definitionProblems(minimal)).toEqual([]);
  });

  it('reports every problem at once, with its pointer and field', () => {
    expect(definitionProblems({ ...minimal, timeout: 0, tags: 'x', extra: true })).toEqual([
      {
        pointer: '/extra',
        field: 'extra',
        message:
          "unknown key 'extra' (did you mean 'extra_args'?); allowed keys: name, title, description, when_to_use, category, tags, parameters, input_examples, output_schema, handler, timeout, async, annotations, execution, requires, max_output_chars, extra_args, reset_on_progress, max_total, max_concurrency, requires_approval, cli, metadata",
      },
      { pointer: '/tags', field: 'tags', message: `'tags' must be an array, got string "x"` },
      { pointer: '/timeout', field: 'timeout', message: "'timeout' must be > 0, got number 0" },
    ]);
  });

  it('refuses a definition that is not a mapping', () => {
    expect(definitionProblems('name: x')).toEqual([
      { pointer: '', field: '', message: 'a tool definition must be a mapping of keys to values, got "name: x"' },
    ]);
  });

  it('refuses parameters whose type is not object', () => {
    expect(definitionProblems({ ...minimal, parameters: { type: 'array', properties: {} } })).toEqual([
      {
        pointer: '/parameters/type',
        field: 'parameters.type',
        message: `'parameters.type' must be "object", got "array"`,
      },
    ]);
  });

  it('checks output_schema is a valid JSON Schema', () => {
    const problems = definitionProblems({ ...minimal, output_schema: { type: 'integr' } });
    expect(problems.length).toBeGreaterThan(0);
    expect(problems).toEqual([
      {
        pointer: '/output_schema/type',
        field: 'output_schema.type',
        message:
          'invalid JSON Schema: \'output_schema.type\' must be one of "array", "boolean", "integer", "null", "number", "object", "string", got string "integr"; did you mean "integer"?',
      },
    ]);
  });
});

describe('registerDefinition', () => {
  it('registers a declarative definition and keeps it for getDefinition', async () => {
    const registry = new ToolRegistry();
    const spec = await registry.registerDefinition(minimal, { baseDir });
    expect(spec.name).toBe('echo');
    expect(registry.getDefinition('echo')).toBe(minimal);
    const result = await registry.call('echo', { text: 'hi' });
    expect(result.status === 'success' && result.data).toBe('hi');
  });

  it('reports a definition problem without a location when there is no file', async () => {
    const error = await definitionError({ ...minimal, timeout: -2 });
    expect(error).toMatchObject({
      code: 'INVALID_DEFINITION',
      toolName: 'echo',
      field: 'timeout',
      message: "'timeout' must be > 0, got number -2",
    });
  });

  it('converts timeout and max_total from seconds to milliseconds', async () => {
    const spec = await definitionToSpec(
      { ...minimal, timeout: 1.5, reset_on_progress: true, max_total: 10 },
      { baseDir },
    );
    expect(spec).toMatchObject({ timeoutMs: 1500, resetOnProgress: true, maxTotalMs: 10_000 });
  });

  it('accepts async: true for compatibility and detects async handlers itself', async () => {
    const registry = new ToolRegistry();
    await registry.registerDefinition(
      { ...minimal, name: 'shout', handler: './handlers/text.js#shout', async: true },
      { baseDir },
    );
    const result = await registry.call('shout', { text: 'hi' });
    expect(result.status === 'success' && result.data).toBe('HI');
  });

  it('takes the category from metadata.category, as the Python guide writes it', async () => {
    const spec = await definitionToSpec({ ...minimal, metadata: { category: 'text' } }, { baseDir });
    expect(spec.category).toBe('text');
    const explicit = await definitionToSpec(
      { ...minimal, category: 'io', metadata: { category: 'text' } },
      { baseDir },
    );
    expect(explicit.category).toBe('io');
  });

  it("turns execution.task_support into the spec's execution.taskSupport", async () => {
    const spec = await definitionToSpec({ ...minimal, execution: { task_support: 'optional' } }, { baseDir });
    expect(spec.execution).toEqual({ taskSupport: 'optional' });
    expect(definitionProblems({ ...minimal, execution: { task_support: 'later' } })).toEqual([
      expect.objectContaining({ field: 'execution.task_support' }),
    ]);
    expect(definitionProblems({ ...minimal, execution: { taskSupport: 'optional' } })).toEqual([
      expect.objectContaining({
        field: 'execution.taskSupport',
        message:
          "unknown key 'execution.taskSupport' (did you mean 'task_support'?); allowed keys under 'execution': task_support",
      }),
    ]);
  });

  it('asks for approval when requires_approval is set', async () => {
    const registry = new ToolRegistry();
    await registry.registerDefinition({ ...minimal, requires_approval: true }, { baseDir });
    expect((await registry.call('echo', { text: 'hi' })).status).toBe('pending_approval');
  });

  it('resolves builtin: handlers through the registry option resolveBuiltin', async () => {
    const registry = new ToolRegistry({ resolveBuiltin: (name) => (name === 'calculator' ? () => 42 : undefined) });
    await registry.registerDefinition({ ...minimal, name: 'calculator', handler: 'builtin:calculator' });
    const result = await registry.call('calculator', { text: 'x' });
    expect(result.status === 'success' && result.data).toBe(42);
  });

  it('registers a handler written in the dotted MODULE.EXPORT form', async () => {
    const registry = new ToolRegistry();
    const spec = await registry.registerDefinition({
      ...minimal,
      name: 'edit_distance',
      handler: 'fastest-levenshtein.distance',
    });
    expect(spec.handler).toBe(distance);
  });

  it('refuses a taken name with DUPLICATE_TOOL', async () => {
    const registry = new ToolRegistry();
    await registry.registerDefinition(minimal, { baseDir });
    const error = await registry.registerDefinition(minimal, { baseDir }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'DUPLICATE_TOOL',
      message: "Tool 'echo' is already registered; pass allowOverride: true to replace it.",
    });
    await registry.registerDefinition({ ...minimal, description: 'Replaced.' }, { baseDir, allowOverride: true });
    expect(registry.get('echo').description).toBe('Replaced.');
  });

  it('refuses a name of 65 characters', async () => {
    const name = `a${'b'.repeat(64)}`;
    const error = await definitionError({ ...minimal, name });
    expect(error.message).toBe(
      `'name' must be 1-64 lowercase letters, digits or underscores starting with a letter, got "${name.slice(0, 57)}..."`,
    );
  });
});
