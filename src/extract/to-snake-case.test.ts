import { describe, expect, it } from 'vitest';
import { toSnakeCase } from './to-snake-case.js';

describe('toSnakeCase', () => {
  it.each([
    ['searchEmails', 'search_emails'],
    ['getHTTPStatus', 'get_http_status'],
    ['ReadFile', 'read_file'],
    ['parseJSON2Yaml', 'parse_json2_yaml'],
    ['already_snake', 'already_snake'],
    ['ping', 'ping'],
  ])('turns %s into %s', (name, expected) => {
    expect(toSnakeCase(name)).toBe(expected);
  });
});
