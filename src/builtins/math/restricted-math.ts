import { all, create, type MathJsInstance, type MathNode } from 'mathjs';
import { ToolshedError } from '../../core/errors/toolshed-error.js';

/** Functions a calculator expression may call. */
export const CALCULATOR_FUNCTIONS: readonly string[] = Object.freeze([
  'abs',
  'acos',
  'acosh',
  'arg',
  'asin',
  'asinh',
  'atan',
  'atan2',
  'atanh',
  'cbrt',
  'ceil',
  'conj',
  'cos',
  'cosh',
  'cot',
  'csc',
  'cube',
  'exp',
  'expm1',
  'factorial',
  'fix',
  'floor',
  'gamma',
  'gcd',
  'hypot',
  'im',
  'lcm',
  'log',
  'log10',
  'log1p',
  'log2',
  'max',
  'mean',
  'median',
  'min',
  'mod',
  'nthRoot',
  'pow',
  'prod',
  're',
  'round',
  'sec',
  'sign',
  'sin',
  'sinh',
  'sqrt',
  'square',
  'std',
  'sum',
  'tan',
  'tanh',
  'variance',
]);

/** Named constants a calculator expression may use. */
export const CALCULATOR_CONSTANTS: readonly string[] = Object.freeze([
  'pi',
  'PI',
  'e',
  'E',
  'tau',
  'phi',
  'i',
  'Infinity',
  'NaN',
  'LN2',
  'LN10',
  'LOG2E',
  'LOG10E',
  'SQRT2',
  'SQRT1_2',
]);

// mathjs operator functions behind + - * / ^ % ! and comparisons; `to` converts units (`5 cm to inch`).
const OPERATORS = new Set([
  'add',
  'subtract',
  'multiply',
  'divide',
  'pow',
  'unaryMinus',
  'unaryPlus',
  'mod',
  'factorial',
  'dotMultiply',
  'dotDivide',
  'dotPow',
  'to',
  'smaller',
  'larger',
  'smallerEq',
  'largerEq',
  'equal',
  'unequal',
  'and',
  'or',
  'not',
  'xor',
]);

// The functions mathjs's security notes say to disable so that an expression cannot reach the parser,
// define units globally or import code; `compile` goes with them (it parses too).
const DISABLED = [
  'import',
  'createUnit',
  'reviver',
  'evaluate',
  'parse',
  'simplify',
  'derivative',
  'resolve',
  'compile',
];

/**
 * An expression was refused or could not be evaluated; the message says why in words a model can act on.
 *
 * @example
 * ```ts
 * try {
 *   createRestrictedMath().evaluate('x + 1');
 * } catch (error) {
 *   if (error instanceof ExpressionError) console.log(error.message); // "Unknown name 'x'. ..."
 * }
 * ```
 */
export class ExpressionError extends ToolshedError<'INVALID_EXPRESSION'> {
  constructor(message: string) {
    super('INVALID_EXPRESSION', message);
    this.name = 'ExpressionError';
  }
}

/** What a calculator expression evaluates to: a number, a truth value, or text (units, complex numbers, lists). */
export type CalculatorValue = number | boolean | string;

/** An evaluator over a restricted mathjs instance: see {@link createRestrictedMath}. */
export interface RestrictedMath {
  /** Parse, check and evaluate one expression; throws {@link ExpressionError}. */
  evaluate(expression: string): CalculatorValue;
}

let shared: { math: MathJsInstance; parse: MathJsInstance['parse'] } | undefined;

/**
 * An expression evaluator over a private mathjs instance that can do arithmetic and nothing else.
 *
 * Two layers: the instance has `import`, `createUnit`, `evaluate`, `parse`, `simplify`, `derivative`,
 * `resolve`, `compile` and `reviver` replaced by functions that throw (mathjs's documented hardening),
 * and every expression is parsed and its syntax tree checked against an allowlist before it runs:
 * numbers, `+ - * / ^ % !`, comparisons, parentheses, flat lists (`[1, 2, 3]`), the functions of
 * {@link CALCULATOR_FUNCTIONS}, the constants of {@link CALCULATOR_CONSTANTS} and unit names
 * (`5 cm to inch`). Property access, indexing, assignments, function definitions, strings, objects,
 * ranges, matrices and unknown names are refused before evaluation. Nothing reaches JavaScript `eval`.
 *
 * @example
 * ```ts
 * const math = createRestrictedMath();
 * math.evaluate('sqrt(16) + 2^3'); // 12
 * math.evaluate('[].constructor'); // throws ExpressionError
 * ```
 */
export function createRestrictedMath(): RestrictedMath {
  shared ??= createInstance();
  const { math, parse } = shared;
  return {
    evaluate(expression: string): CalculatorValue {
      let node: MathNode;
      try {
        node = parse(inMathjsNotation(expression));
      } catch (error) {
        throw new ExpressionError(`Could not parse '${shorten(expression)}': ${(error as Error).message}.`);
      }
      checkTree(node, math);
      let value: unknown;
      try {
        value = node.compile().evaluate({});
      } catch (error) {
        throw new ExpressionError(`Could not evaluate '${shorten(expression)}': ${(error as Error).message}.`);
      }
      return present(value, math);
    },
  };
}

function createInstance(): { math: MathJsInstance; parse: MathJsInstance['parse'] } {
  const math = create(all!, { number: 'number' });
  const parse = math.parse;
  const disabled: Record<string, () => never> = {};
  for (const name of DISABLED) {
    disabled[name] = () => {
      throw new Error(`Function ${name} is disabled`);
    };
  }
  math.import(disabled, { override: true });
  return { math, parse };
}

/**
 * Notations a model writes for the operators and constants of the calculator, read as their mathjs
 * spelling: `**` (Python, JavaScript) is `^`, `ln(x)` is `log(x)` (mathjs's natural logarithm), and
 * the typeset signs `×`, `·`, `÷`, `−`, `π` and `√` are `*`, `*`, `/`, `-`, `pi` and `sqrt` (of the
 * number, name or parenthesis after it). None of them means anything else in a mathjs expression:
 * `**`, `ln` and the signs are not mathjs's at all.
 *
 * @example
 * ```ts
 * inMathjsNotation('2 ** 10 × π'); // '2 ^ 10 * pi'
 * inMathjsNotation('√16 + √(9) + ln(e)'); // 'sqrt(16) + sqrt(9) + log(e)'
 * ```
 */
export function inMathjsNotation(expression: string): string {
  return expression
    .replaceAll('**', '^')
    .replace(/[×·⋅]/g, '*')
    .replaceAll('÷', '/')
    .replaceAll('−', '-')
    .replaceAll('π', 'pi')
    .replace(/\bln\s*\(/g, 'log(')
    .replace(/√\s*(\d+(?:\.\d+)?|[a-zA-Z]\w*)/g, 'sqrt($1)')
    .replaceAll('√', 'sqrt');
}

/** Functions of other languages and calculators a model may call, and what to call instead. */
const FUNCTION_HINTS: ReadonlyMap<string, string> = new Map([
  ['int', 'fix(x) rounds toward zero, floor(x) down'],
  ['trunc', 'fix(x) rounds toward zero'],
  ['power', 'pow(x, y) or x ^ y'],
  ['avg', 'mean(...)'],
  ['average', 'mean(...)'],
  ['arcsin', 'asin(x)'],
  ['arccos', 'acos(x)'],
  ['arctan', 'atan(x)'],
  ['root', 'nthRoot(x, n)'],
]);

function checkTree(root: MathNode, math: MathJsInstance): void {
  const functions = new Set(CALCULATOR_FUNCTIONS);
  const constants = new Set(CALCULATOR_CONSTANTS);
  root.traverse((node, _path, parent) => {
    const fields = node as unknown as Record<string, unknown>;
    switch (node.type) {
      case 'ConstantNode':
        if (typeof fields.value !== 'number' && typeof fields.value !== 'boolean') {
          throw new ExpressionError('Text strings are not allowed in calculator expressions; use numbers.');
        }
        return;
      case 'ParenthesisNode':
      case 'ConditionalNode':
      case 'RelationalNode':
        return;
      case 'ArrayNode':
        if (parent?.type === 'ArrayNode') {
          throw new ExpressionError('Nested lists (matrices) are not allowed; use a flat list such as [1, 2, 3].');
        }
        return;
      case 'OperatorNode':
        if (typeof fields.fn !== 'string' || !OPERATORS.has(fields.fn)) {
          throw new ExpressionError(`The operator '${String(fields.op)}' is not allowed in calculator expressions.`);
        }
        return;
      case 'FunctionNode': {
        const callee = fields.fn as MathNode & { name?: string };
        if (callee.type !== 'SymbolNode') {
          throw new ExpressionError(
            'Only named functions such as sqrt(2) can be called; property access is not allowed.',
          );
        }
        if (!functions.has(callee.name ?? '')) {
          const hint = FUNCTION_HINTS.get(callee.name ?? '');
          throw new ExpressionError(
            `The function '${callee.name}' is not available${hint === undefined ? '' : `: ${hint}`}. Allowed functions: ${CALCULATOR_FUNCTIONS.join(', ')}.`,
          );
        }
        return;
      }
      case 'SymbolNode': {
        const name = String(fields.name);
        if (functions.has(name) || constants.has(name)) return;
        if (!Object.hasOwn(math, name) && math.Unit.isValuelessUnit(name)) return;
        throw new ExpressionError(
          `Unknown name '${name}'. Use numbers, operators (+ - * / ^ % !), functions such as sqrt, log, sin, round, min, max, mean, the constants pi and e, or units such as 5 cm to inch.`,
        );
      }
      case 'AccessorNode':
      case 'IndexNode':
        throw new ExpressionError("Property access and indexing ('.' or '[...]' after a value) are not allowed.");
      case 'AssignmentNode':
        throw new ExpressionError("Assignments ('=') are not allowed; write the expression itself, such as 2 * 3.");
      case 'FunctionAssignmentNode':
        throw new ExpressionError('Defining functions is not allowed; write the expression itself.');
      case 'BlockNode':
        throw new ExpressionError("Only one expression is allowed (no ';' or line breaks).");
      case 'ObjectNode':
        throw new ExpressionError('Objects ({...}) are not allowed in calculator expressions.');
      case 'RangeNode':
        throw new ExpressionError("Ranges ('a:b') are not allowed; list the numbers, such as [1, 2, 3].");
      default:
        throw new ExpressionError(`This kind of expression (${node.type}) is not allowed.`);
    }
  });
}

function present(value: unknown, math: MathJsInstance): CalculatorValue {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return String(value);
    // 0.1 + 0.2 is 0.30000000000000004 in binary floating point; 15 significant digits give 0.3 back.
    return Number.isInteger(value) ? value : Number(value.toPrecision(15));
  }
  if (typeof value === 'boolean') return value;
  if (typeof value === 'function') {
    throw new ExpressionError('The expression is a function, not a value; call it, such as sqrt(16).');
  }
  if (value === undefined || value === null) throw new ExpressionError('The expression has no value.');
  return math.format(value, { precision: 14 });
}

function shorten(expression: string): string {
  return expression.length > 80 ? `${expression.slice(0, 77)}...` : expression;
}
