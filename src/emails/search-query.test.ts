import { describe, expect, it } from 'vitest';
import { normalizeDate, splitAddresses } from './normalize-email.js';
import { ftsMatch, ftsTerm, markSnippet, queryWords, SNIPPET_MARKERS } from './search-query.js';

describe('queryWords', () => {
  it('keeps only letters and digits, lowercased and deduplicated', () => {
    expect(queryWords('"Budget" -NEAR( report* AND budget')).toEqual(['budget', 'near', 'report', 'and']);
    expect(queryWords("'; DROP TABLE emails; --")).toEqual(['drop', 'table', 'emails']);
    expect(queryWords('*** "" ()')).toEqual([]);
    expect(queryWords('café Zürich 2001')).toEqual(['café', 'zürich', '2001']);
    expect(queryWords('w '.repeat(5000) + Array.from({ length: 50 }, (_, i) => `x${i}`).join(' '))).toHaveLength(32);
  });
});

describe('ftsMatch', () => {
  it('quotes every word, so no word is read as an operator', () => {
    expect(ftsMatch(['budget', 'report'])).toBe('"budget" "report"');
    expect(ftsMatch(queryWords('NEAR(a OR b) NOT c'))).toBe('"near" "a" "or" "b" "not" "c"');
    expect(ftsTerm('x"y')).toBe('"x""y"');
  });
});

describe('markSnippet', () => {
  it('escapes HTML and turns the markers into <mark>', () => {
    const { start, stop } = SNIPPET_MARKERS;
    expect(markSnippet(`a <b>&  ${start}x${stop}\n y`)).toBe('a &lt;b&gt;&amp; <mark>x</mark> y');
  });
});

describe('normalizeDate and splitAddresses', () => {
  it('normalises dates to ISO 8601 and refuses garbage', () => {
    expect(normalizeDate('Mon, 14 May 2001 16:39:00 -0700 (PDT)')).toBe('2001-05-14T23:39:00.000Z');
    expect(normalizeDate('989883540')).toBe('2001-05-14T23:39:00.000Z');
    expect(normalizeDate('the day after')).toBeUndefined();
    expect(normalizeDate('')).toBeUndefined();
  });
  it('splits address lists', () => {
    expect(splitAddresses('"Doe, Jane" <Jane@X.com>; b@y.com')).toEqual(['jane@x.com', 'b@y.com']);
    expect(splitAddresses(['a@x.com'])).toEqual(['a@x.com']);
  });
});
