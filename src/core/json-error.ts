/** Where JSON text stops being valid, and what was found there. */
export interface JsonErrorLocation {
  /** 0-based offset into the text. */
  position: number;
  line: number;
  column: number;
  /** What is wrong, in a few words (`unexpected '}'`, `unexpected end of input`). */
  problem: string;
}

/**
 * Locate the first syntax error in JSON text (run only after `JSON.parse` failed: V8's own messages
 * omit the position for some errors and echo the whole input for others).
 *
 * @example
 * ```ts
 * locateJsonError('{"a": }'); // { position: 6, line: 1, column: 7, problem: "unexpected '}'" }
 * ```
 */
export function locateJsonError(text: string): JsonErrorLocation | undefined {
  let index = 0;
  const fail = (problem: string): never => {
    throw new JsonSyntaxProblem(index, problem);
  };
  const skipSpace = () => {
    while (index < text.length) {
      const char = text.charCodeAt(index);
      if (char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09) index++;
      else break;
    }
  };
  const unexpected = (): never =>
    fail(
      index >= text.length
        ? 'unexpected end of input'
        : `unexpected ${JSON.stringify(text[index])}`.replace(/^unexpected "(.*)"$/, "unexpected '$1'"),
    );
  const literal = (word: string) => {
    for (let offset = 0; offset < word.length; offset++) {
      if (text[index] !== word[offset]) unexpected();
      index++;
    }
  };
  const string = () => {
    index++;
    while (true) {
      if (index >= text.length) fail('unterminated string');
      const char = text.charCodeAt(index);
      if (char === 0x22) {
        index++;
        return;
      }
      if (char < 0x20) fail('control character in string');
      if (char === 0x5c) {
        index++;
        const escaped = text[index];
        if (escaped === 'u') {
          for (let offset = 1; offset <= 4; offset++) {
            if (!/[0-9a-fA-F]/.test(text[index + offset] ?? '')) {
              index += offset;
              fail('bad unicode escape');
            }
          }
          index += 5;
        } else if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) index++;
        else fail('bad escape in string');
      } else index++;
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(index, index + 400));
    if (match === null || match[0] === '' || match[0] === '-') unexpected();
    index += match![0].length;
  };
  const value = (depth: number): void => {
    // Deep enough for any real arguments, shallow enough for the call stack.
    if (depth > 1_000) fail('nested too deeply');
    skipSpace();
    const char = text[index];
    if (char === '{') {
      index++;
      skipSpace();
      if (text[index] === '}') {
        index++;
        return;
      }
      while (true) {
        skipSpace();
        if (text[index] !== '"')
          fail(index >= text.length ? 'unexpected end of input' : 'expected a double-quoted property name');
        string();
        skipSpace();
        if (text[index] !== ':')
          fail(index >= text.length ? 'unexpected end of input' : "expected ':' after a property name");
        index++;
        value(depth + 1);
        skipSpace();
        if (text[index] === ',') {
          index++;
          continue;
        }
        if (text[index] === '}') {
          index++;
          return;
        }
        fail(index >= text.length ? 'unexpected end of input' : "expected ',' or '}' after a property value");
      }
    }
    if (char === '[') {
      index++;
      skipSpace();
      if (text[index] === ']') {
        index++;
        return;
      }
      while (true) {
        value(depth + 1);
        skipSpace();
        if (text[index] === ',') {
          index++;
          continue;
        }
        if (text[index] === ']') {
          index++;
          return;
        }
        fail(index >= text.length ? 'unexpected end of input' : "expected ',' or ']' after an array item");
      }
    }
    if (char === '"') string();
    else if (char === 't') literal('true');
    else if (char === 'f') literal('false');
    else if (char === 'n') literal('null');
    else if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) number();
    else unexpected();
  };
  try {
    value(0);
    skipSpace();
    if (index < text.length) fail(`unexpected ${JSON.stringify(text[index])} after the end of the JSON value`);
    return undefined;
  } catch (error) {
    if (!(error instanceof JsonSyntaxProblem)) throw error;
    const before = text.slice(0, error.position);
    const line = before.split('\n').length;
    const column = error.position - before.lastIndexOf('\n');
    return { position: error.position, line, column, problem: error.problem };
  }
}

class JsonSyntaxProblem {
  constructor(
    readonly position: number,
    readonly problem: string,
  ) {}
}
