import { describe, expect, it } from 'vitest';
import { closestNames, likelyMisspelling } from './did-you-mean.js';

describe('closestNames', () => {
  it('suggests the name one typo away', () => {
    expect(closestNames('serach', ['search', 'fetch_url', 'calculator'])).toEqual(['search']);
  });

  it('ranks suggestions by edit distance, best first', () => {
    expect(closestNames('read_fil', ['read_files', 'read_file', 'reader_file'])).toEqual([
      'read_file',
      'read_files',
      'reader_file',
    ]);
  });

  it('breaks ties alphabetically', () => {
    expect(closestNames('cat', ['bat', 'hat', 'eat'])).toEqual(['bat', 'eat', 'hat']);
  });

  it('returns at most the limit', () => {
    expect(closestNames('tool', ['tool1', 'tool2', 'tool3', 'tool4'])).toHaveLength(3);
    expect(closestNames('tool', ['tool1', 'tool2', 'tool3', 'tool4'], 1)).toEqual(['tool1']);
  });

  it('compares names after stripping namespace prefixes', () => {
    expect(closestNames('create_issue', ['github__create_issue', 'list_issues'])).toEqual(['github__create_issue']);
    expect(closestNames('jira__create_issue', ['github__create_issue', 'create_comment'])).toEqual([
      'github__create_issue',
    ]);
    expect(closestNames('github__create_isue', ['gitlab__create_issue', 'github__list_issues'])).toEqual([
      'gitlab__create_issue',
    ]);
  });

  it('ignores case', () => {
    expect(closestNames('Read_File', ['read_file'])).toEqual(['read_file']);
  });

  it('suggests a name that contains the one asked for', () => {
    expect(closestNames('search', ['search_emails_by_sender', 'calculator'])).toEqual(['search_emails_by_sender']);
  });

  it('suggests nothing when no name is close', () => {
    expect(closestNames('weather', ['calculator', 'read_file'])).toEqual([]);
    expect(closestNames('anything', [])).toEqual([]);
  });
});

describe('likelyMisspelling', () => {
  it('gives the one closest name, and never matches names under three characters', () => {
    expect(likelyMisspelling('txet', ['text', 'count'])).toBe('text');
    expect(likelyMisspelling('utf-16', ['utf-8', 'utf-16le', 'hex'])).toBe('utf-16le');
    expect(likelyMisspelling('b', ['a', 'bb'])).toBeUndefined();
    expect(likelyMisspelling('idx', ['id'])).toBeUndefined();
    expect(likelyMisspelling('colour', ['path'])).toBeUndefined();
  });
});
