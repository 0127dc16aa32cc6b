import { describe, expect, it } from 'vitest';
import { definePrompt, type PromptOptions } from './define-prompt.js';

const hello: PromptOptions['messages'] = [
  { role: 'user', content: { type: 'text', text: 'Hello {{who}}, {{ who }}!' } },
];

describe('definePrompt', () => {
  it('fills {{argument}} in fixed messages and leaves unknown placeholders as written', async () => {
    const prompt = definePrompt({
      name: 'greet',
      description: 'Greet someone.',
      arguments: [{ name: 'who' }],
      messages: [...hello, { role: 'assistant', content: { type: 'text', text: '{{nobody}}' } }],
    });
    expect(await prompt.render({ who: 'Ada' })).toEqual([
      { role: 'user', content: { type: 'text', text: 'Hello Ada, Ada!' } },
      { role: 'assistant', content: { type: 'text', text: '{{nobody}}' } },
    ]);
    expect(await prompt.render({})).toEqual([
      { role: 'user', content: { type: 'text', text: 'Hello {{who}}, {{ who }}!' } },
      { role: 'assistant', content: { type: 'text', text: '{{nobody}}' } },
    ]);
  });

  it('does not substitute a value into another placeholder (no second pass)', async () => {
    const prompt = definePrompt({
      name: 'greet',
      description: 'Greet.',
      arguments: [{ name: 'who' }],
      messages: hello,
    });
    expect(await prompt.render({ who: '{{who}}' })).toEqual([
      { role: 'user', content: { type: 'text', text: 'Hello {{who}}, {{who}}!' } },
    ]);
  });

  it('refuses bad arguments at render time with a TypeError naming the problem', async () => {
    const prompt = definePrompt({
      name: 'greet',
      description: 'Greet.',
      arguments: [{ name: 'who', required: true }],
      messages: hello,
    });
    await expect(prompt.render({})).rejects.toThrow("Prompt 'greet' needs the argument 'who'.");
    await expect(prompt.render({ who: 3 })).rejects.toThrow("Prompt 'greet': argument 'who' must be a string, got 3.");
    await expect(prompt.render({ who: 'a', toString: 'b' })).rejects.toThrow(
      "Prompt 'greet' has no argument 'toString'; its arguments: who.",
    );
  });

  it('completes from the declared values and the complete function, by prefix, without repeats', async () => {
    const prompt = definePrompt({
      name: 'pick',
      description: 'Pick a language.',
      arguments: [{ name: 'language', values: ['python', 'PHP', 'perl'] }],
      messages: hello,
      complete: () => ['python', 'pascal'],
    });
    expect(await prompt.complete('language', 'p')).toEqual(['python', 'PHP', 'perl', 'pascal']);
    expect(await prompt.complete('language', 'PY')).toEqual(['python']);
    expect(await prompt.complete('unknown', '')).toEqual([]);
  });

  it('refuses an invalid definition with INVALID_DEFINITION and the field', () => {
    const cases: Array<[unknown, string]> = [
      [null, 'A prompt definition must be an object, got null.'],
      [{ name: 'Bad', description: 'x', messages: [] }, 'Prompt name "Bad" is invalid'],
      [{ name: 'ok', description: ' ', messages: [] }, 'Prompt \'ok\' needs a non-empty description, got " ".'],
      [
        { name: 'ok', description: 'x', messages: 'hi' },
        'Prompt \'ok\' needs messages: a list or a function, got "hi".',
      ],
      [
        { name: 'ok', description: 'x', messages: [{ role: 'system', content: { type: 'text', text: 'x' } }] },
        "Prompt 'ok': messages[0] needs the role 'user' or 'assistant', got \"system\".",
      ],
      [
        { name: 'ok', description: 'x', arguments: [{ name: 'a' }, { name: 'a' }], messages: [] },
        "Prompt 'ok' declares the argument 'a' twice.",
      ],
      [
        { name: 'ok', description: 'x', arguments: [{ name: 'a', values: [1] }], messages: [] },
        "Prompt 'ok': values of 'a' must be a list of strings, got an array.",
      ],
    ];
    for (const [options, message] of cases) {
      expect(() => definePrompt(options as PromptOptions)).toThrow(message);
    }
  });
});
