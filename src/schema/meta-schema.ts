import type { ValidationIssue } from '../core/validation-issue.js';
import { validate as validateMetaSchema } from './generated/meta-schema-2020.js';
import { toIssue } from './validation-errors.js';

/**
 * Problems with a JSON Schema itself (unknown types, malformed keywords), located by JSON Pointer into
 * the schema; empty when it is a valid draft 2020-12 schema. Of the meta-schema's alternatives, only
 * the most telling issue per place is kept (`type: strnig` → one "must be one of" issue).
 *
 * Runs a validator generated ahead of time, so checking a schema never compiles one.
 *
 * @example
 * ```ts
 * schemaIssues({ type: 'object', properties: { a: { type: 'strnig' } } })[0]?.message;
 * // '\'properties.a.type\' must be one of "array", "boolean", ..., got string "strnig"'
 * ```
 */
export function schemaIssues(schema: unknown): ValidationIssue[] {
  if (validateMetaSchema(stripMetaKeys(schema))) return [];
  return mostTelling((validateMetaSchema.errors ?? []).map(toIssue));
}

/**
 * {@link schemaIssues} as sentences (`'properties.a.type' must be one of ...`).
 *
 * @example
 * ```ts
 * schemaProblems({ type: 'strnig' }); // ['\'type\' must be one of "array", ..., got string "strnig"']
 * ```
 */
export function schemaProblems(schema: unknown): string[] {
  return schemaIssues(schema).map((issue) => issue.message.replace(/^the arguments/, 'the schema'));
}

/**
 * A {@link schemaIssues} issue of the schema kept under `key` of a definition (`parameters`,
 * `output_schema`), said of that place: the field (`parameters.properties.a.type`) and the sentence
 * (`'parameters.properties.a.type' must be one of ...`).
 *
 * @example
 * ```ts
 * schemaIssueAt('parameters', schemaIssues({ type: 'object', required: 'a' })[0]!);
 * // { field: 'parameters.required', message: "'parameters.required' must be an array, got string \"a\"" }
 * ```
 */
export function schemaIssueAt(key: string, issue: ValidationIssue): { field: string; message: string } {
  const field = issue.path === '' ? key : `${key}.${issue.path}`;
  return { field, message: `'${field}' ${issue.message.replace(/^('[^']*'|the arguments) /, '')}` };
}

function mostTelling(issues: ValidationIssue[]): ValidationIssue[] {
  const byPointer = new Map<string, ValidationIssue[]>();
  for (const issue of issues) byPointer.set(issue.pointer, [...(byPointer.get(issue.pointer) ?? []), issue]);
  const kept: ValidationIssue[] = [];
  for (const [pointer, group] of byPointer) {
    const deeper = [...byPointer.keys()].some((other) => other !== pointer && other.startsWith(`${pointer}/`));
    const specific = group.filter((issue) => issue.keyword !== 'anyOf' && issue.keyword !== 'oneOf');
    if (specific.length === 0) {
      if (!deeper) kept.push(group[0]!);
      continue;
    }
    kept.push(specific.find((issue) => issue.keyword === 'enum') ?? specific[0]!);
  }
  return kept;
}

function stripMetaKeys(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  const { $schema: _schema, $id: _id, ...rest } = schema as Record<string, unknown>;
  return rest;
}
