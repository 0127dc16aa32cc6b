import { describe, expect, it } from 'vitest';
import { jsdocSummary, jsdocText } from './jsdoc-text.js';

describe('JSDoc text', () => {
  it('joins continued lines and drops the TSDoc hyphen', () => {
    expect(jsdocText('- Maximum number\n  of results.')).toBe('Maximum number of results.');
    expect(jsdocText('  \n ')).toBeUndefined();
  });

  it('takes the first paragraph as the summary', () => {
    expect(jsdocSummary('Search the mailbox.\n\nUses the full-text index.')).toBe('Search the mailbox.');
    expect(jsdocSummary('Search the\nmailbox.')).toBe('Search the mailbox.');
    expect(jsdocSummary('')).toBeUndefined();
  });
});
