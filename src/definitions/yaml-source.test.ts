import { describe, expect, it } from 'vitest';
import { parseYamlSource } from './yaml-source.js';

describe('parseYamlSource and the input limits', () => {
  it('reads a document within the limits', () => {
    expect(parseYamlSource('tools: [a, b]\nnested: {x: [[1]]}\n').value).toEqual({
      tools: ['a', 'b'],
      nested: { x: [[1]] },
    });
  });

  it('refuses a document nested deeper than the limit, naming the limit and the field', () => {
    const source = parseYamlSource(`tools: ${'['.repeat(300)}${']'.repeat(300)}\n`);
    expect(source.value).toBeUndefined();
    expect(source.syntaxError).toEqual({
      message: "the document is nested more than 256 levels deep at 'tools[0][0][0][0][0][0][0]…' (limit: depth 256)",
      position: { line: 1, column: 1 },
      overLimit: true,
    });
  });

  it('refuses a document far too deep for the parser without overflowing', () => {
    const source = parseYamlSource(`tools: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`);
    expect(source.value).toBeUndefined();
    expect(source.syntaxError?.message).toMatch(
      /(nested too deeply to read|nested more than 256 levels deep).*\(limit: depth 256\)$/,
    );
  });

  it('refuses a __proto__ key, saying so', () => {
    const source = parseYamlSource('defaults:\n  __proto__:\n    polluted: true\n');
    expect(source.syntaxError?.message).toBe(
      "the document has the key '__proto__' at 'defaults', which is refused: it could change the prototype of an object it is copied into",
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
