import { z } from 'zod';
import { defineTool } from '../../core/define-tool.js';
import { ToolResult } from '../../core/tool-result.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import type { RestrictedMath } from './restricted-math.js';

/** Options of {@link createCalculatorTool}. */
export interface CalculatorOptions {
  /** Longest expression accepted, in characters (default 1000). */
  maxExpressionLength?: number;
}

/** The arguments of `calculator`. */
export type CalculatorArgs = {
  expression: string;
};

/**
 * The `calculator` tool: evaluates one math expression with mathjs in a restricted instance (see
 * {@link createRestrictedMath}) and returns `{expression, result}`, where `result` is a number, a
 * truth value, or text for units, complex numbers and lists. Never uses JavaScript `eval`.
 *
 * Refused expressions and evaluation errors (unknown names, mismatched units) are `INVALID_ARGUMENTS`
 * with the reason; expressions over `maxExpressionLength` (1000) characters are refused by the schema.
 *
 * @example
 * ```ts
 * registry.register(createCalculatorTool());
 * await registry.call('calculator', { expression: '(2 + 3) * sqrt(16)' }); // data: { expression, result: 20 }
 * ```
 */
export function createCalculatorTool(options: CalculatorOptions = {}): ToolSpec<CalculatorArgs> {
  const maxLength = options.maxExpressionLength ?? 1000;
  if (!Number.isInteger(maxLength) || maxLength < 1) {
    throw new RangeError(`maxExpressionLength must be a positive integer, got ${String(maxLength)}.`);
  }
  // mathjs is big: load it on the first calculation, not when the built-ins are created.
  let loaded: Promise<typeof import('./restricted-math.js')> | undefined;
  let math: RestrictedMath | undefined;
  return defineTool({
    name: 'calculator',
    title: 'Calculator',
    description:
      'Evaluate a math expression exactly and return the result. Supports + - * / ^ % !, parentheses, comparisons, functions (sqrt, abs, round, floor, ceil, exp, log, log10, sin, cos, tan and inverses, min, max, mean, median, sum, std, gcd, lcm, factorial, ...), constants pi and e, complex numbers (2i) and unit conversion ("5 cm to inch"). One expression per call; no variables.',
    whenToUse:
      'Whenever an answer needs arithmetic beyond the trivial: do not compute in your head. Write the whole calculation as one expression, e.g. "round(1250 * 1.07^5, 2)".',
    category: 'math',
    tags: ['math', 'calculate', 'arithmetic', 'expression', 'units', 'convert'],
    annotations: { readOnly: true, idempotent: true, openWorld: false },
    cli: 'calc',
    input: z.strictObject({
      expression: z
        .string()
        .min(1)
        .max(maxLength)
        .describe('The expression, for example "(2 + 3) * sqrt(16)" or "100 km/h to m/s".'),
    }),
    handler: async ({ expression }) => {
      if (expression.length > maxLength) {
        return ToolResult.error(
          'INVALID_ARGUMENTS',
          `The expression is ${expression.length} characters long; the limit is ${maxLength}.`,
        );
      }
      loaded ??= import('./restricted-math.js');
      const mathModule = await loaded;
      math ??= mathModule.createRestrictedMath();
      try {
        return { expression, result: math.evaluate(expression) };
      } catch (error) {
        if (!(error instanceof mathModule.ExpressionError)) throw error;
        return ToolResult.error('INVALID_ARGUMENTS', error.message, {
          hint: 'Write a single math expression using numbers, operators, the listed functions, pi, e and units.',
        });
      }
    },
  });
}
