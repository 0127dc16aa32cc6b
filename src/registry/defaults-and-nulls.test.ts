import { describe, expect, it } from 'vitest';
import { defineTool } from '../core/define-tool.js';
import { type ToolResult, toModelText } from '../core/tool-result.js';
import { decodeStrictArguments, toOpenAITools } from '../exporters/openai/index.js';
import { ToolRegistry } from './tool-registry.js';

/** A weather tool whose schema has the defaults real schemas ship with: good, bad and on a required property. */
function weatherRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'get_weather',
      description: 'Current weather for a city.',
      inputSchema: {
        type: 'object',
        properties: {
          city: { type: 'string', default: 'Paris' },
          unit: { type: 'string', enum: ['c', 'f'], default: 'c' },
          lang: { type: 'string', default: null },
          detailed: { type: 'boolean', default: 'false' },
          note: { type: ['string', 'null'], default: null },
          where: {
            type: 'object',
            properties: { region: { type: 'string', default: 0 }, zoom: { type: 'integer', default: 3 } },
          },
        },
        required: ['city'],
      },
      handler: (args) => args,
    }),
  );
  return registry;
}

function data(result: ToolResult): unknown {
  if (result.status !== 'success') throw new Error(`expected a success, got ${toModelText(result)}`);
  return result.data;
}

describe('defaults', () => {
  it('applies a default that fits its schema and never one that fails it', async () => {
    expect(data(await weatherRegistry().call('get_weather', { city: 'Oslo' }))).toEqual({
      city: 'Oslo',
      unit: 'c',
      note: null,
    });
  });

  it('applies defaults inside nested objects by the same rule', async () => {
    expect(data(await weatherRegistry().call('get_weather', { city: 'Oslo', where: {} }))).toEqual({
      city: 'Oslo',
      unit: 'c',
      note: null,
      where: { zoom: 3 },
    });
  });

  it('never fills a required argument from its default', async () => {
    const result = await weatherRegistry().call('get_weather', {});
    expect(toModelText(result)).toBe(
      "Error [INVALID_ARGUMENTS]: Invalid arguments for 'get_weather': missing required argument 'city' (a string).\n" +
        'Hint: Expected arguments: city (string, required), unit (string one of "c", "f"), lang (string), detailed (boolean), note (string or null), where (object).',
    );
  });

  it('takes every argument the model sends, and blames only what it sent', async () => {
    const registry = weatherRegistry();
    expect(data(await registry.call('get_weather', { city: 'Oslo', lang: 'nb', detailed: true }))).toEqual({
      city: 'Oslo',
      unit: 'c',
      lang: 'nb',
      detailed: true,
      note: null,
    });
    const result = await registry.call('get_weather', { city: 'Oslo', detailed: 'false' });
    expect(result.status === 'error' && result.error.message).toBe(
      "Invalid arguments for 'get_weather': 'detailed' must be a boolean, got string \"false\".",
    );
  });
});

describe('null for an optional property that does not accept null', () => {
  const sent = { city: 'Oslo', unit: null, lang: null, detailed: null, where: { region: null, zoom: null } };
  const expected = { city: 'Oslo', unit: 'c', note: null, where: { zoom: 3 } };

  it('counts as absent in an object: the default applies, or nothing', async () => {
    expect(data(await weatherRegistry().call('get_weather', sent))).toEqual(expected);
  });

  it('counts as absent in JSON text the same way', async () => {
    expect(data(await weatherRegistry().call('get_weather', JSON.stringify(sent)))).toEqual(expected);
  });

  it('counts as absent in OpenAI strict form, decoded or not', async () => {
    const registry = weatherRegistry();
    const strict = toOpenAITools(registry.tools(), { api: 'chat', strict: true }).tools[0];
    const parameters = strict?.function.parameters as { required: string[] };
    const strictArgs = { ...sent, note: null };
    expect(Object.keys(strictArgs).sort()).toEqual([...parameters.required].sort());
    expect(data(await registry.call('get_weather', strictArgs))).toEqual(expected);
    const decoded = decodeStrictArguments(registry.get('get_weather')!, strictArgs);
    expect(decoded).toEqual({ city: 'Oslo', note: null, where: {} });
    expect(data(await registry.call('get_weather', decoded))).toEqual(expected);
  });

  it('is kept where the property accepts null', async () => {
    expect(data(await weatherRegistry().call('get_weather', { city: 'Oslo', note: null }))).toEqual({
      city: 'Oslo',
      unit: 'c',
      note: null,
    });
  });

  it('is refused for a required property, naming it', async () => {
    const result = await weatherRegistry().call('get_weather', '{"city": null}');
    expect(result.status === 'error' && result.error.message).toBe(
      "Invalid arguments for 'get_weather': 'city' must be a string, got null.",
    );
  });
});
