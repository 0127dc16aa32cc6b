import type ts from 'typescript';

/**
 * The value of a constant expression, as JSON: a string, number, boolean or `null` literal, a negated
 * number, an enum member (`Sort.Asc`) or `as const` member, or an array or object literal of those. `undefined` for
 * anything computed at run time (`Date.now()`), which has no place in a schema.
 *
 * @example
 * ```ts
 * literalValue(ts, checker, parameter.initializer); // `= -1.5` → -1.5, `= Sort.Asc` → 'asc', `= Date.now()` → undefined
 * ```
 */
export function literalValue(typescript: typeof ts, checker: ts.TypeChecker, expression: ts.Expression): unknown {
  const { SyntaxKind } = typescript;
  if (
    typescript.isParenthesizedExpression(expression) ||
    typescript.isAsExpression(expression) ||
    typescript.isSatisfiesExpression(expression) ||
    typescript.isTypeAssertionExpression(expression)
  ) {
    return literalValue(typescript, checker, expression.expression);
  }
  if (typescript.isStringLiteral(expression) || typescript.isNoSubstitutionTemplateLiteral(expression)) {
    return expression.text;
  }
  if (typescript.isNumericLiteral(expression)) return Number(expression.text);
  if (
    typescript.isPrefixUnaryExpression(expression) &&
    typescript.isNumericLiteral(expression.operand) &&
    (expression.operator === SyntaxKind.MinusToken || expression.operator === SyntaxKind.PlusToken)
  ) {
    const value = Number(expression.operand.text);
    return expression.operator === SyntaxKind.MinusToken ? -value : value;
  }
  if (expression.kind === SyntaxKind.TrueKeyword) return true;
  if (expression.kind === SyntaxKind.FalseKeyword) return false;
  if (expression.kind === SyntaxKind.NullKeyword) return null;
  if (typescript.isPropertyAccessExpression(expression) || typescript.isElementAccessExpression(expression)) {
    // An enum member or a member of an `as const` object: its type is the literal.
    const type = checker.getTypeAtLocation(expression);
    return type.isStringLiteral() || type.isNumberLiteral() ? type.value : undefined;
  }
  if (typescript.isArrayLiteralExpression(expression)) {
    const items: unknown[] = [];
    for (const element of expression.elements) {
      if (typescript.isSpreadElement(element) || typescript.isOmittedExpression(element)) return undefined;
      const value = literalValue(typescript, checker, element);
      if (value === undefined) return undefined;
      items.push(value);
    }
    return items;
  }
  if (typescript.isObjectLiteralExpression(expression)) {
    const object: Record<string, unknown> = {};
    for (const property of expression.properties) {
      if (!typescript.isPropertyAssignment(property)) return undefined;
      const key =
        typescript.isIdentifier(property.name) ||
        typescript.isStringLiteral(property.name) ||
        typescript.isNumericLiteral(property.name)
          ? property.name.text
          : undefined;
      if (key === undefined) return undefined;
      const value = literalValue(typescript, checker, property.initializer);
      if (value === undefined) return undefined;
      // Defined, not assigned: a `__proto__` key is data here, not the prototype.
      Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return object;
  }
  return undefined;
}
