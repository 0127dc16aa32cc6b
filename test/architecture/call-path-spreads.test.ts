import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The files whose code runs for every tool call: dispatch, the registry's call, the REST call route's
 * admission and log, MCP `tools/call` and its HTTP bridge, and the call log writers.
 */
const CALL_PATH_FILES = [
  'src/core/dispatch.ts',
  'src/core/call-context.ts',
  'src/registry/tool-registry.ts',
  'src/server/call-tool.ts',
  'src/server/call-quotas.ts',
  'src/server/call-limits.ts',
  'src/mcp/mcp-server.ts',
  'src/mcp/mcp-modern.ts',
  'src/mcp/node-http-bridge.ts',
  'src/store/journaled-call-log.ts',
  'src/store/windowed-call-log.ts',
  'src/store/tool-call-queries.ts',
];

/**
 * The spreads followed by keys these files may keep, each with why it is not the slow form on a call's
 * path: either its keys are ones the spread object already has (an override stays fast), or it runs
 * once per view, task or configuration, not per call.
 */
const ALLOWED: ReadonlyArray<{ file: string; text: string; why: string }> = [
  { file: 'src/core/dispatch.ts', text: '{ ...result, data: capped.text }', why: 'a result already has data' },
  { file: 'src/core/dispatch.ts', text: '{ ...result, metadata }', why: 'a result already has metadata' },
  {
    file: 'src/registry/tool-registry.ts',
    text: '{ ...this.#options, hooks: this.#runtime.hooks }',
    why: 'once per subset view',
  },
  {
    file: 'src/server/call-tool.ts',
    text: '{ ...failure, metadata: { ...failure.metadata, approvalId: record.id } }',
    why: 'once per refused approval',
  },
  {
    file: 'src/server/call-tool.ts',
    text: '{ ...failure.metadata, approvalId: record.id }',
    why: 'once per refused approval',
  },
  {
    file: 'src/server/call-limits.ts',
    text: "{ ...requireCallLimit(limit), source: 'config' as const }",
    why: 'when the configuration is loaded',
  },
  {
    file: 'src/mcp/mcp-server.ts',
    text: '{ ...extra, signal: controller.signal, taskId: RUNNING_AS_TASK, sendNotification:',
    why: 'once per task',
  },
  {
    file: 'src/mcp/mcp-server.ts',
    text: '{ ...failed, result: errorResult(message) }',
    why: 'a task whose result was refused',
  },
  { file: 'src/mcp/mcp-server.ts', text: '{ ...failed, result: null }', why: 'a task whose result was refused' },
];

/** A spread of an object literal, or of a choice between two (`...(x ? { a } : {})`): never the slow form. */
function spreadsLiteral(expression: ts.Expression): boolean {
  let inner = expression;
  while (ts.isParenthesizedExpression(inner)) inner = inner.expression;
  if (ts.isObjectLiteralExpression(inner)) return true;
  return ts.isConditionalExpression(inner) && spreadsLiteral(inner.whenTrue) && spreadsLiteral(inner.whenFalse);
}

/**
 * The object literals of `text` that spread an object and then add keys (or spread another object):
 * the form V8 in Node 20 builds on its slow path. Each as `file:line: text` on one line.
 */
function spreadsFollowedByKeys(file: string, text: string): Array<{ file: string; line: number; text: string }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Array<{ file: string; line: number; text: string }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) {
      let spread = false;
      for (const property of node.properties) {
        const literalSpread = ts.isSpreadAssignment(property) && spreadsLiteral(property.expression);
        if (spread && !literalSpread) {
          const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
          found.push({ file, line, text: node.getText(source).replace(/\s+/g, ' ') });
          break;
        }
        if (ts.isSpreadAssignment(property) && !literalSpread) spread = true;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('objects on the call path (decision 019)', () => {
  it('finds the slow form, and leaves alone spreads of literals and spreads placed last', () => {
    const sample = [
      'const a = { ...identity, tool };',
      'const b = { ...(x ? {} : { agentId }), config };',
      'const c = { tool, ...identity };',
      'const d = { ...left, ...right };',
      'const e = { ...(x ? {} : { a }), ...(y ? {} : { b }) };',
    ].join('\n');
    expect(spreadsFollowedByKeys('sample.ts', sample).map((found) => found.line)).toEqual([1, 4]);
  });

  it('adds no key after a spread in code that runs for every call, beyond the forms listed with their reason', () => {
    const found = CALL_PATH_FILES.flatMap((file) =>
      spreadsFollowedByKeys(file, readFileSync(join(ROOT, file), 'utf8')),
    );
    const listedAs = (allowed: (typeof ALLOWED)[number], item: (typeof found)[number]) =>
      allowed.file === item.file && item.text.startsWith(allowed.text);
    const unlisted = found
      .filter((item) => !ALLOWED.some((allowed) => listedAs(allowed, item)))
      .map((item) => `${item.file}:${item.line}: ${item.text.slice(0, 120)}`);
    expect(unlisted, 'write the object out, put the spread last, or copy with Object.assign first').toEqual([]);
    // A listed form that is gone is taken off the list, so the list keeps saying what is there.
    const stale = ALLOWED.filter((allowed) => !found.some((item) => listedAs(allowed, item))).map(
      (allowed) => `${allowed.file}: ${allowed.text}`,
    );
    expect(stale).toEqual([]);
  });
});
