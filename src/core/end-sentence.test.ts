import { describe, expect, it } from 'vitest';
import { endSentence } from './end-sentence.js';

describe('endSentence', () => {
  it('adds a full stop unless the text already ends a sentence', () => {
    expect(endSentence("'a' must be a number")).toBe("'a' must be a number.");
    expect(endSentence('Done.')).toBe('Done.');
    expect(endSentence('got "strnig"; did you mean "string"?')).toBe('got "strnig"; did you mean "string"?');
    expect(endSentence('Stop!')).toBe('Stop!');
  });
});
