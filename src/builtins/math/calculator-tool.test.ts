import { describe, expect, it } from 'vitest';
import { expectFailure, expectSuccess } from '../../../test/builtins/support.js';
import { ToolRegistry } from '../../registry/tool-registry.js';
import { createCalculatorTool } from './calculator-tool.js';
import { createRestrictedMath, ExpressionError } from './restricted-math.js';

const registry = new ToolRegistry();
registry.register(createCalculatorTool());

describe('calculator', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['2 ^ 10', 1024],
    // What models write in other notations, read as the calculator's own.
    ['2 ** 3', 8],
    ['-2 ** 2 + 2 ** -1', -3.5],
    ['3 × 4 ÷ 2 − 1', 5],
    ['2·π', 6.28318530717959],
    ['√16 + √(2 + 7) + √ 4', 9],
    ['√pi', 1.77245385090552],
    ['ln(e^2)', 2],
    ['-3 + +5', 2],
    ['7 / 2', 3.5],
    ['7 mod 3', 1],
    ['10 % 4', 2],
    ['0.1 + 0.2', 0.3],
    ['5!', 120],
    ['sqrt(16) + abs(-3)', 7],
    ['round(3.14159, 2)', 3.14],
    ['floor(2.7) + ceil(2.1)', 5],
    ['sin(pi / 2)', 1],
    ['cos(0) + tan(0)', 1],
    ['log(e)', 1],
    ['log(100, 10)', 2],
    ['log10(1000)', 3],
    ['exp(0)', 1],
    ['min(4, 2, 8) + max(1, 9)', 11],
    ['mean([1, 2, 3, 4])', 2.5],
    ['median(5, 1, 3)', 3],
    ['sum(1, 2, 3)', 6],
    ['gcd(12, 18) * lcm(2, 3)', 36],
    ['hypot(3, 4)', 5],
    ['2pi', 6.28318530717959],
    ['1e3 * 2', 2000],
    ['3 > 2', true],
    ['1 == 2', false],
    ['3 > 2 ? 10 : 20', 10],
    ['1 / 0', 'Infinity'],
    ['sqrt(-4)', '2i'],
    ['(1 + 2i) * (3 - i)', '5 + 5i'],
    ['5 cm to inch', '1.9685039370079 inch'],
    ['100 km/h to m/s', '27.777777777778 m / s'],
    ['sin(90 deg)', 1],
  ])('evaluates %s', async (expression, expected) => {
    const result = await registry.call('calculator', { expression });
    if (expected === 'refused') {
      expect(expectFailure(result).error.code).toBe('INVALID_ARGUMENTS');
      return;
    }
    expect(expectSuccess(result).data).toEqual({ expression, result: expected });
  });

  const HOSTILE: Array<[string, string]> = [
    ['import({}, {})', "The function 'import' is not available"],
    ['evaluate("1")', "The function 'evaluate' is not available"],
    ['createUnit("x")', "The function 'createUnit' is not available"],
    ['parse("1")', "The function 'parse' is not available"],
    ['compile("1")', "The function 'compile' is not available"],
    ['simplify("x")', "The function 'simplify' is not available"],
    ['derivative("x^2", "x")', "The function 'derivative' is not available"],
    ['resolve(x)', "The function 'resolve' is not available"],
    ['[].constructor', 'Property access and indexing'],
    ['[1].map', 'Property access and indexing'],
    ['constructor', "Unknown name 'constructor'"],
    ['__proto__', "Unknown name '__proto__'"],
    ['prototype', "Unknown name 'prototype'"],
    ['process.exit()', 'Only named functions'],
    ['process', "Unknown name 'process'"],
    ['this', "Unknown name 'this'"],
    ['globalThis', "Unknown name 'globalThis'"],
    ['cos.constructor("return process")(1)', 'Only named functions'],
    ['cos["constructor"]', 'Property access and indexing'],
    ['f(x) = x; f(1)', 'Only one expression'],
    ['f(x) = x', 'Defining functions is not allowed'],
    ['x = 5', "Assignments ('=') are not allowed"],
    ['a = 1\na + 1', 'Only one expression'],
    ['{a: 1}', 'Objects'],
    ['1:1000000000', 'Ranges'],
    ['[[1, 2], [3, 4]] ^ 1000000000', 'Nested lists'],
    ['"abc"', 'Text strings are not allowed'],
    ['x + 1', "Unknown name 'x'"],
    ['config({})', "The function 'config' is not available"],
    ['typeOf(1)', "The function 'typeOf' is not available"],
    ['map([1,2], sqrt)', "The function 'map' is not available"],
    ['sqrt', 'The expression is a function'],
    ['1 +', 'Could not parse'],
    ['5 kg + 2 m', 'Could not evaluate'],
    ['2 *** 3', "Could not parse '2 *** 3'"],
    ['int(3.7)', "The function 'int' is not available: fix(x) rounds toward zero, floor(x) down. Allowed functions:"],
    ['average(1, 2)', "The function 'average' is not available: mean(...). Allowed functions:"],
    ['toString(1)', "The function 'toString' is not available. Allowed functions:"],
    ['√', 'The expression is a function'],
  ];

  it.each(HOSTILE)('refuses %j with a clear message', async (expression, message) => {
    const failure = expectFailure(await registry.call('calculator', { expression }));
    expect(failure.error.code).toBe('INVALID_ARGUMENTS');
    expect(failure.error.message).toContain(message);
  });

  it('refuses a 10 000-character expression', async () => {
    const failure = expectFailure(await registry.call('calculator', { expression: `1${'+1'.repeat(4999)}1` }));
    expect(failure.error.code).toBe('INVALID_ARGUMENTS');
    expect(failure.error.message).toContain('expression');
  });

  it('accepts a long but allowed expression up to the limit', async () => {
    const expression = `0${'+1'.repeat(499)}`;
    expect(expectSuccess(await registry.call('calculator', { expression })).data).toEqual({ expression, result: 499 });
  });

  it('honours a custom length limit', async () => {
    const short = new ToolRegistry();
    short.register(createCalculatorTool({ maxExpressionLength: 5 }));
    expect(expectFailure(await short.call('calculator', { expression: '1+2+3+4' })).error.code).toBe(
      'INVALID_ARGUMENTS',
    );
  });

  it('keeps the disabled functions disabled in the shared instance', () => {
    const math = createRestrictedMath();
    expect(() => math.evaluate('evaluate("1+1")')).toThrow(ExpressionError);
    expect(math.evaluate('1+1')).toBe(2);
  });
});
