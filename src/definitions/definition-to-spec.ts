import { createToolSpec, describeValue } from '../core/define-tool.js';
import { closestNames } from '../core/did-you-mean.js';
import { ToolRegistrationError } from '../core/errors/tool-registration-error.js';
import { isPlainObject, type JsonSchema } from '../core/json-schema.js';
import type { ToolHandler, ToolSpec } from '../core/tool-spec.js';
import type { ValidationIssue } from '../core/validation-issue.js';
import { validate as validateToolDefinition } from '../schema/generated/tool-definition.js';
import { schemaIssueAt, schemaIssues } from '../schema/meta-schema.js';
import { runStandalone } from '../schema/run-standalone.js';
import { ANNOTATION_KEYS, TOOL_DEFINITION_SCHEMA } from './definition-schema.js';
import { resolveHandler } from './resolve-handler.js';

/** A problem with a declarative definition, located by a JSON Pointer into it. */
export interface DefinitionProblem {
  /** JSON Pointer of the offending field (`/parameters/properties/limit/type`); `''` for the whole. */
  pointer: string;
  /** The field in dotted form (`parameters.properties.limit.type`). */
  field: string;
  message: string;
}

/** Where source positions come from when the definition was read from a file. */
export interface DefinitionSource {
  file?: string;
  /** 1-based line and column of the node at `pointer`. */
  locate?: (pointer: string) => { line: number; column: number } | undefined;
}

/** Options of {@link definitionToSpec}. */
export interface DefinitionToSpecOptions {
  baseDir?: string | undefined;
  resolveBuiltin?: ((name: string) => ToolHandler | undefined) | undefined;
  source?: DefinitionSource;
}

const KNOWN_KEYS = Object.keys(TOOL_DEFINITION_SCHEMA.properties ?? {});

/**
 * Every problem with a declarative definition, without loading its handler: unknown keys (with the
 * closest known key), missing or wrongly typed fields, a bad name, a non-positive timeout, and an
 * invalid JSON Schema under `parameters`.
 *
 * @example
 * ```ts
 * definitionProblems({ name: 'x', description: 'X', parameters: { type: 'object', properties: {} }, handler: './x.js#x', timeout: 0 });
 * // [{ pointer: '/timeout', field: 'timeout', message: "'timeout' must be > 0, got number 0" }]
 * ```
 */
export function definitionProblems(definition: unknown): DefinitionProblem[] {
  if (!isPlainObject(definition)) {
    return [
      {
        pointer: '',
        field: '',
        message: `a tool definition must be a mapping of keys to values, got ${describeValue(definition)}`,
      },
    ];
  }
  const issues = runStandalone(validateToolDefinition, definition);
  if (issues !== undefined) return issues.map(toProblem);
  const problems: DefinitionProblem[] = [];
  for (const key of ['parameters', 'output_schema'] as const) {
    const schema = definition[key];
    if (schema === undefined) continue;
    for (const issue of schemaIssues(schema)) {
      // A misspelt value of an enum (`type: strnig`) already ends with the closest one ("did you mean").
      const { field, message } = schemaIssueAt(key, issue);
      problems.push({ pointer: `/${key}${issue.pointer}`, field, message: `invalid JSON Schema: ${message}` });
    }
  }
  return problems;
}

function toProblem(issue: ValidationIssue): DefinitionProblem {
  const field = issue.path;
  switch (issue.keyword) {
    case 'additionalProperties': {
      const key = field.split('.').pop() ?? field;
      const parent = field.includes('.') ? field.slice(0, field.lastIndexOf('.')) : '';
      const known =
        parent === ''
          ? KNOWN_KEYS
          : parent === 'annotations'
            ? Object.keys(ANNOTATION_KEYS)
            : parent === 'requires'
              ? ['env']
              : parent === 'execution'
                ? ['task_support']
                : ['name', 'description', 'url'];
      const suggestion = closestNames(key, known, 1)[0];
      return {
        pointer: issue.pointer,
        field,
        message: `unknown key '${field}'${suggestion === undefined ? '' : ` (did you mean '${suggestion}'?)`}; allowed keys${parent === '' ? '' : ` under '${parent}'`}: ${known.join(', ')}`,
      };
    }
    case 'required':
      return {
        pointer: issue.pointer,
        field,
        message: `missing required field '${field}' (${issue.expected})`,
      };
    case 'pattern':
      if (field === 'name') {
        return {
          pointer: issue.pointer,
          field,
          message: `'name' must be 1-64 lowercase letters, digits or underscores starting with a letter, got ${describeValue(issue.received)}`,
        };
      }
      if (field === 'description' || field === 'handler') {
        return { pointer: issue.pointer, field, message: `'${field}' must not be empty` };
      }
      return { pointer: issue.pointer, field, message: issue.message };
    case 'const':
      if (field === 'parameters.type') {
        return {
          pointer: issue.pointer,
          field,
          message: `'parameters.type' must be "object", got ${describeValue(issue.received)}`,
        };
      }
      return { pointer: issue.pointer, field, message: issue.message };
    default:
      return { pointer: issue.pointer, field, message: issue.message };
  }
}

/**
 * Turn a declarative definition into a {@link ToolSpec}: check it ({@link definitionProblems}), resolve
 * its handler, and map snake_case keys to the spec (`timeout` seconds → `timeoutMs`).
 *
 * Throws {@link ToolRegistrationError}: `INVALID_DEFINITION` for the first problem found (located at
 * `file:line:col` when a source is given) or `HANDLER_RESOLUTION_FAILED`.
 */
export async function definitionToSpec(definition: unknown, options: DefinitionToSpecOptions = {}): Promise<ToolSpec> {
  const source = options.source ?? {};
  const locate = (pointer: string) => {
    const position = source.locate?.(pointer);
    return {
      ...(source.file === undefined ? {} : { file: source.file }),
      ...(position === undefined ? {} : { line: position.line, column: position.column }),
    };
  };
  const problems = definitionProblems(definition);
  if (problems.length > 0) {
    const first = problems[0]!;
    const name = isPlainObject(definition) && typeof definition.name === 'string' ? definition.name : undefined;
    throw new ToolRegistrationError('INVALID_DEFINITION', first.message, {
      ...(name === undefined ? {} : { toolName: name }),
      field: first.field,
      ...locate(first.pointer),
    });
  }
  const fields = definition as Record<string, unknown> & { name: string; handler: string };
  const handler = await resolveHandler(fields.handler, {
    toolName: fields.name,
    baseDir: options.baseDir ?? (globalThis as { process?: { cwd(): string } }).process?.cwd() ?? '.',
    resolveBuiltin: options.resolveBuiltin,
    ...locate('/handler'),
  });
  const spec: Record<string, unknown> = {
    name: fields.name,
    description: fields.description,
    inputSchema: fields.parameters as JsonSchema,
    handler,
  };
  const rename: Record<string, string> = {
    title: 'title',
    when_to_use: 'whenToUse',
    category: 'category',
    tags: 'tags',
    input_examples: 'inputExamples',
    output_schema: 'outputSchema',
    requires: 'requires',
    max_output_chars: 'maxOutputChars',
    extra_args: 'extraArgs',
    reset_on_progress: 'resetOnProgress',
    max_concurrency: 'maxConcurrency',
    requires_approval: 'requiresApproval',
    cli: 'cli',
  };
  for (const [from, to] of Object.entries(rename)) if (fields[from] !== undefined) spec[to] = fields[from];
  if (typeof fields.timeout === 'number') spec.timeoutMs = fields.timeout * 1000;
  if (typeof fields.max_total === 'number') spec.maxTotalMs = fields.max_total * 1000;
  if (isPlainObject(fields.annotations)) {
    const annotations: Record<string, unknown> = {};
    for (const [from, to] of Object.entries(ANNOTATION_KEYS))
      if (fields.annotations[from] !== undefined) annotations[to] = fields.annotations[from];
    spec.annotations = annotations;
  }
  if (isPlainObject(fields.execution)) {
    spec.execution = fields.execution.task_support === undefined ? {} : { taskSupport: fields.execution.task_support };
  }
  const metadata = isPlainObject(fields.metadata) ? { ...fields.metadata } : {};
  // The Python guide keeps the category under metadata; honour it when no top-level category is set.
  if (
    spec.category === undefined &&
    typeof metadata.category === 'string' &&
    /^[a-z][a-z0-9_-]{0,63}$/.test(metadata.category)
  ) {
    spec.category = metadata.category;
  }
  spec.metadata = metadata;
  try {
    return createToolSpec(spec);
  } catch (error) {
    if (ToolRegistrationError.isInstance(error)) {
      throw new ToolRegistrationError('INVALID_DEFINITION', error.message, {
        toolName: fields.name,
        ...(error.field === undefined ? {} : { field: error.field }),
        ...locate(''),
      });
    }
    throw error;
  }
}
