import { describe, expect, it } from 'vitest';
import { createRestTool } from '../builtins/web/rest-tool.js';
import { defineTool } from '../core/define-tool.js';
import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';
import { definitionToSpec } from '../definitions/definition-to-spec.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { toAnthropicTools } from './anthropic/to-anthropic-tools.js';
import { renderPromptDocs } from './prompt-docs/render-prompt-docs.js';
import { lintInputExamples } from './schema-lint.js';

const weather = defineTool({
  name: 'get_weather',
  description: 'The current weather of a city.',
  category: 'weather',
  inputSchema: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      unit: { enum: ['celsius', 'fahrenheit'] },
      extra: { type: 'object', properties: { hourly: { type: 'boolean' } } },
    },
    required: ['city'],
  },
  inputExamples: [
    { city: 'Paris' },
    { city: 'Boston', unit: 'fahrenheit' },
    { city: 'Oslo', unit: 'kelvin' },
    { city: 'Lima', extra: { hourly: true, days: 3 } },
  ],
  handler: () => 'sunny',
});

describe('input examples', () => {
  it('are kept on the spec, frozen, and their shape checked at definition', () => {
    expect(weather.inputExamples).toHaveLength(4);
    expect(Object.isFrozen(weather.inputExamples?.[0])).toBe(true);
    const define = (inputExamples: unknown) => () =>
      defineTool({ name: 'x', description: 'X.', inputExamples: inputExamples as never, handler: () => 1 });
    expect(define('city: Paris')).toThrowError(
      'Tool \'x\': inputExamples must be a list of at most 10 argument objects, got "city: Paris".',
    );
    expect(define('city: Paris')).toThrowError(ToolRegistrationError);
    expect(define([{ a: 1 }, ['b']])).toThrowError(
      "Tool 'x': inputExamples[1] must be an object of arguments, got an array.",
    );
    expect(define(Array.from({ length: 11 }, () => ({})))).toThrowError(
      "Tool 'x': inputExamples must be a list of at most 10 argument objects, got 11 items.",
    );
    expect(define([{ when: () => 1 }])).toThrowError(
      "Tool 'x': inputExamples must be plain JSON data, but it holds a function.",
    );
  });

  it('that fail the input schema are schema-lint findings in registry.check()', () => {
    expect(lintInputExamples(weather.inputSchema, weather.inputExamples)).toEqual([
      {
        pointer: '/inputExamples/2',
        message:
          'input example 2 fails the input schema (\'unit\' must be one of "celsius", "fahrenheit", got string "kelvin"); exports leave it out',
      },
    ]);
    const registry = new ToolRegistry();
    registry.register(weather);
    expect(registry.check().findings).toEqual([
      expect.stringMatching(/^get_weather: input example 2 fails the input schema .* \(at \/inputExamples\/2\)$/),
    ]);
  });

  it('go to Anthropic as input_examples, leaving out those that fail the exported schema', () => {
    const plain = toAnthropicTools([weather]);
    expect(plain.tools[0]?.input_examples).toEqual([
      { city: 'Paris' },
      { city: 'Boston', unit: 'fahrenheit' },
      { city: 'Lima', extra: { hourly: true, days: 3 } },
    ]);
    expect(plain.warnings.map((warning) => warning.message)).toEqual([
      'Input example 2 left out: it fails the exported input schema (\'unit\' must be one of "celsius", "fahrenheit", got string "kelvin")',
    ]);
    // Strict tool use closes the nested object, so the example with an undeclared key no longer fits.
    const strict = toAnthropicTools([weather], { strict: true });
    expect(strict.tools[0]?.input_examples).toEqual([{ city: 'Paris' }, { city: 'Boston', unit: 'fahrenheit' }]);
    expect(strict.warnings.map((warning) => warning.message)).toContain(
      "Input example 3 left out: it fails the exported input schema (unexpected argument 'extra.days'; accepted arguments are hourly)",
    );
  });

  it('appear in the system-prompt docs, one line of JSON each', () => {
    expect(renderPromptDocs([weather], {})).toContain(
      [
        '### Example calls of get_weather',
        '',
        '- `{"city":"Paris"}`',
        '- `{"city":"Boston","unit":"fahrenheit"}`',
        '- `{"city":"Lima","extra":{"hourly":true,"days":3}}`',
      ].join('\n'),
    );
  });

  it('come from YAML definitions (input_examples) and REST tools', async () => {
    const spec = await definitionToSpec(
      {
        name: 'echo',
        description: 'Echo.',
        parameters: { type: 'object', properties: { text: { type: 'string' } } },
        input_examples: [{ text: 'hello' }],
        handler: 'builtin:echo',
      },
      { resolveBuiltin: () => () => 'ok' },
    );
    expect(spec.inputExamples).toEqual([{ text: 'hello' }]);
    await expect(
      definitionToSpec(
        {
          name: 'echo',
          description: 'Echo.',
          parameters: { type: 'object', properties: {} },
          input_examples: ['hello'],
          handler: 'builtin:echo',
        },
        { resolveBuiltin: () => () => 'ok' },
      ),
    ).rejects.toThrowError('\'input_examples[0]\' must be an object, got string "hello"');
    const rest = createRestTool({
      id: 'company_search',
      type: 'rest_api',
      description: 'Search the company wiki.',
      endpoint: 'https://wiki.example.com/search',
      parameters: { type: 'object', properties: { q: { type: 'string' } } },
      input_examples: [{ q: 'holiday policy' }],
    });
    expect(rest.inputExamples).toEqual([{ q: 'holiday policy' }]);
  });
});
