import { describe, expect, it } from 'vitest';
import { locateJsonError } from './json-error.js';

describe('locateJsonError', () => {
  it('finds a value missing after a colon', () => {
    expect(locateJsonError('{"a": }')).toEqual({
      position: 6,
      line: 1,
      column: 7,
      problem: "unexpected '}'",
    });
  });

  it('finds single-quoted property names', () => {
    expect(locateJsonError("{'a': 1}")).toEqual({
      position: 1,
      line: 1,
      column: 2,
      problem: 'expected a double-quoted property name',
    });
  });

  it('finds a trailing comma', () => {
    expect(locateJsonError('{"a": 1,}')).toEqual({
      position: 8,
      line: 1,
      column: 9,
      problem: 'expected a double-quoted property name',
    });
  });

  it('counts lines and columns across newlines', () => {
    expect(locateJsonError('{\n  "a": 1\n  "b": 2\n}')).toEqual({
      position: 13,
      line: 3,
      column: 3,
      problem: "expected ',' or '}' after a property value",
    });
  });

  it('reports truncated input as unexpected end of input', () => {
    expect(locateJsonError('{"a": [1, 2')).toEqual({
      position: 11,
      line: 1,
      column: 12,
      problem: 'unexpected end of input',
    });
  });

  it('reports an unterminated string', () => {
    expect(locateJsonError('{"a": "abc')).toMatchObject({ problem: 'unterminated string' });
  });

  it('reports text after the end of the value', () => {
    expect(locateJsonError('{} x')).toEqual({
      position: 3,
      line: 1,
      column: 4,
      problem: `unexpected "x" after the end of the JSON value`,
    });
  });

  it('reports nesting too deep to check', () => {
    expect(locateJsonError('['.repeat(20_000))).toMatchObject({ problem: 'nested too deeply' });
  });

  it('returns undefined for valid JSON', () => {
    expect(locateJsonError('{"a": [1, 2.5e3, -0, true, false, null, "\\u00e9\\n"]}')).toBeUndefined();
  });
});
