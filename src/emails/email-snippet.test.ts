import { describe, expect, it } from 'vitest';
import { emailSnippet } from './email-snippet.js';
import { SNIPPET_MARKERS } from './search-query.js';

describe('emailSnippet', () => {
  it('marks the words in subject and body and leaves out a part without a match', () => {
    expect(emailSnippet('Budget', 'The budget report is attached.', ['report'])).toBe(
      'Body: The budget <mark>report</mark> is attached.',
    );
    expect(emailSnippet('Weekly meeting', 'Nothing here.', ['meeting'])).toBe('Subject: Weekly <mark>meeting</mark>');
    expect(emailSnippet('Meeting', 'The meeting moved.', ['meeting'])).toBe(
      'Subject: <mark>Meeting</mark> | Body: The <mark>meeting</mark> moved.',
    );
  });

  it('marks plural, -ing and -ed forms and words without their diacritics', () => {
    expect(emailSnippet('', 'Meetings were scheduled at the café.', ['meeting', 'schedule', 'cafe'])).toBe(
      'Body: <mark>Meetings</mark> were <mark>scheduled</mark> at the <mark>café</mark>.',
    );
  });

  it('escapes <, > and & outside the marks, and drops stray marker characters', () => {
    const { start, stop } = SNIPPET_MARKERS;
    expect(emailSnippet('a <b> & c', `x ${start}y${stop} <i>deal</i> & more`, ['deal'])).toBe(
      'Body: x y &lt;i&gt;<mark>deal</mark>&lt;/i&gt; &amp; more',
    );
  });

  it('shows the 24-word window with the most query words, cut with …', () => {
    const filler = (count: number, word: string) => Array.from({ length: count }, () => word).join(' ');
    const body = `${filler(40, 'alpha')} gas ${filler(40, 'beta')} gas price ${filler(40, 'gamma')}`;
    const snippet = emailSnippet('Update', body, ['gas', 'price']);
    expect(snippet).toBe(`Body: …<mark>gas</mark> <mark>price</mark> ${filler(22, 'gamma')}…`);
    expect(emailSnippet('Update', filler(30, 'alpha'), ['missing'])).toBe(
      `Subject: Update | Body: ${filler(24, 'alpha')}…`,
    );
  });
});
