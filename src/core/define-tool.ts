import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { ToolRegistrationError } from './errors/tool-registration-error.js';
import { isPlainObject, type JsonObjectSchema, type JsonSchema } from './json-schema.js';
import type {
  ApprovalPredicate,
  TaskSupport,
  ToolAnnotations,
  ToolExecution,
  ToolHandler,
  ToolRequirements,
  ToolSpec,
} from './tool-spec.js';

/** The most example argument objects a tool may carry in `inputExamples`. */
export const MAX_INPUT_EXAMPLES = 10;

/** The pattern every canonical tool name matches: safe for every provider's function-calling API. */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

const specBrand = Symbol.for('toolshed.spec');

/** The fields of {@link defineTool} shared by every input form. */
export interface ToolOptionsBase {
  name: string;
  title?: string;
  description: string;
  whenToUse?: string;
  category?: string;
  tags?: readonly string[];
  /** Example arguments, each valid against the input schema (at most {@link MAX_INPUT_EXAMPLES}). */
  inputExamples?: readonly Record<string, unknown>[];
  /** JSON Schema the handler's output must match (`OUTPUT_INVALID` otherwise). */
  outputSchema?: JsonSchema;
  /** A Standard Schema for the output; its JSON Schema becomes `outputSchema`. */
  output?: StandardSchemaV1;
  timeoutMs?: number;
  resetOnProgress?: boolean;
  maxTotalMs?: number;
  annotations?: ToolAnnotations;
  /** How calls may run: `{ taskSupport: 'optional' | 'required' }` lets MCP clients run calls as tasks. */
  execution?: ToolExecution;
  /** Credentials the tool needs; a plain string names a variable without more detail. */
  requires?: { env?: Array<ToolRequirements['env'] extends Array<infer Item> | undefined ? Item | string : never> };
  maxOutputChars?: number;
  extraArgs?: 'drop' | 'reject';
  maxConcurrency?: number;
  cli?: string | null;
  metadata?: Record<string, unknown>;
}

/** {@link defineTool} options with a zod (or any Standard Schema) input: the handler's args are inferred. */
export interface SchemaToolOptions<S extends StandardSchemaV1> extends ToolOptionsBase {
  input: S;
  inputSchema?: never;
  handler: ToolHandler<StandardSchemaV1.InferOutput<S>>;
  requiresApproval?: boolean | ApprovalPredicate<StandardSchemaV1.InferOutput<S>>;
}

/** {@link defineTool} options with a raw JSON Schema input (or none, for a tool without arguments). */
export interface JsonSchemaToolOptions<Args> extends ToolOptionsBase {
  input?: never;
  inputSchema?: JsonSchema;
  handler: ToolHandler<Args>;
  requiresApproval?: boolean | ApprovalPredicate<Args>;
}

/**
 * Define a tool once: its name, description, input schema and handler, plus optional metadata.
 *
 * With a zod v4 schema (or any Standard Schema that yields JSON Schema) as `input`, the handler's
 * argument type is inferred and the JSON Schema is derived from it, so the function and its schema
 * cannot drift apart; the schema also runs at call time, so refinements and transforms apply.
 * With `inputSchema`, a raw JSON Schema object (draft 2020-12) is used as is.
 *
 * Throws {@link ToolRegistrationError} (`INVALID_DEFINITION`) for a bad name, an empty description, a
 * non-object input schema, a non-positive timeout or a handler that is not a function. The result is
 * frozen.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { defineTool } from 'toolshed';
 *
 * export const add = defineTool({
 *   name: 'add',
 *   description: 'Add two numbers.',
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   handler: ({ a, b }) => a + b, // a and b are numbers
 * });
 * ```
 */
export function defineTool<S extends StandardSchemaV1>(
  options: SchemaToolOptions<S>,
): ToolSpec<StandardSchemaV1.InferOutput<S>>;
export function defineTool<Args = Record<string, unknown>>(options: JsonSchemaToolOptions<Args>): ToolSpec<Args>;
/** A variant of an existing spec: `defineTool({ ...spec, timeoutMs: 5_000 })`. */
export function defineTool<Args>(options: ToolSpec<Args>): ToolSpec<Args>;
export function defineTool(options: ToolOptionsBase & { handler: ToolHandler<never> }): ToolSpec<never> {
  return createToolSpec(options) as ToolSpec<never>;
}

/** True for a spec built by {@link defineTool} (already checked and frozen). */
export function isToolSpec(value: unknown): value is ToolSpec {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[specBrand] === true;
}

/**
 * Check and normalise tool options into a frozen {@link ToolSpec}. Used by `defineTool`, by
 * `registry.register` for plain objects, and by the declarative loaders.
 */
export function createToolSpec(options: unknown): ToolSpec {
  if (isToolSpec(options)) return options;
  if (!isPlainObject(options) && !(typeof options === 'object' && options !== null)) {
    throw invalid(undefined, undefined, `A tool definition must be an object, got ${describeValue(options)}.`);
  }
  const source = options as Record<string, unknown>;
  const name = source.name;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw invalid(
      typeof name === 'string' ? name : undefined,
      'name',
      `Tool name ${describeValue(name)} is invalid: use 1-64 characters of lowercase letters, digits and underscores, starting with a letter (${TOOL_NAME_PATTERN.source}).`,
    );
  }
  const description = source.description;
  if (typeof description !== 'string' || description.trim() === '') {
    throw invalid(
      name,
      'description',
      `Tool '${name}' needs a non-empty description, got ${describeValue(description)}.`,
    );
  }
  if (typeof source.handler !== 'function') {
    throw invalid(name, 'handler', `Tool '${name}' needs a handler function, got ${describeValue(source.handler)}.`);
  }

  const input = source.input as StandardSchemaV1 | undefined;
  let inputSchema: JsonObjectSchema;
  if (input !== undefined && input !== null) {
    inputSchema = objectSchema(name, 'input', jsonSchemaOf(name, 'input', input, 'input'));
  } else if (source.inputSchema !== undefined) {
    inputSchema = objectSchema(name, 'inputSchema', source.inputSchema);
  } else {
    inputSchema = { type: 'object', properties: {} };
  }

  let outputSchema: JsonSchema | undefined;
  if (source.output !== undefined && source.output !== null) {
    outputSchema = jsonSchemaOf(name, 'output', source.output as StandardSchemaV1, 'output');
  } else if (source.outputSchema !== undefined) {
    if (!isPlainObject(source.outputSchema)) {
      throw invalid(
        name,
        'outputSchema',
        `Tool '${name}': outputSchema must be a JSON Schema object, got ${describeValue(source.outputSchema)}.`,
      );
    }
    outputSchema = source.outputSchema as JsonSchema;
  }

  const spec: Record<string | symbol, unknown> = {
    name,
    description,
    category: optionalString(name, source, 'category') ?? 'general',
    tags: Object.freeze(stringArray(name, source, 'tags')),
    inputSchema: frozenJsonCopy(name, 'inputSchema', inputSchema),
    handler: source.handler,
    annotations: Object.freeze({ ...objectField(name, source, 'annotations') }),
    requires: frozenJsonCopy(name, 'requires', requirements(name, source.requires)),
    metadata: Object.freeze({ ...objectField(name, source, 'metadata') }),
  };
  copyString(name, source, spec, 'title');
  copyString(name, source, spec, 'whenToUse');
  const examples = inputExamples(name, source.inputExamples);
  if (examples !== undefined) spec.inputExamples = frozenJsonCopy(name, 'inputExamples', examples);
  if (outputSchema !== undefined) spec.outputSchema = frozenJsonCopy(name, 'outputSchema', outputSchema);
  if (input !== undefined && input !== null) spec.input = input;
  for (const key of ['timeoutMs', 'maxTotalMs'] as const) {
    const value = source[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw invalid(name, key, `Tool '${name}': ${key} must be a number greater than 0, got ${describeValue(value)}.`);
    }
    spec[key] = value;
  }
  for (const key of ['maxOutputChars', 'maxConcurrency'] as const) {
    const value = source[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw invalid(name, key, `Tool '${name}': ${key} must be a positive integer, got ${describeValue(value)}.`);
    }
    spec[key] = value;
  }
  const execution = executionOf(name, source.execution);
  if (execution !== undefined) spec.execution = execution;
  if (source.resetOnProgress !== undefined) spec.resetOnProgress = source.resetOnProgress === true;
  if (source.extraArgs !== undefined) {
    if (source.extraArgs !== 'drop' && source.extraArgs !== 'reject') {
      throw invalid(
        name,
        'extraArgs',
        `Tool '${name}': extraArgs must be 'drop' or 'reject', got ${describeValue(source.extraArgs)}.`,
      );
    }
    spec.extraArgs = source.extraArgs;
  }
  if (source.requiresApproval !== undefined) {
    if (typeof source.requiresApproval !== 'boolean' && typeof source.requiresApproval !== 'function') {
      throw invalid(
        name,
        'requiresApproval',
        `Tool '${name}': requiresApproval must be a boolean or a function, got ${describeValue(source.requiresApproval)}.`,
      );
    }
    spec.requiresApproval = source.requiresApproval;
  }
  if (source.cli !== undefined) {
    if (source.cli !== null && (typeof source.cli !== 'string' || source.cli.trim() === '')) {
      throw invalid(
        name,
        'cli',
        `Tool '${name}': cli must be a command keyword or null, got ${describeValue(source.cli)}.`,
      );
    }
    spec.cli = source.cli;
  }
  Object.defineProperty(spec, specBrand, { value: true });
  return Object.freeze(spec) as unknown as ToolSpec;
}

/**
 * The values of `execution.taskSupport`, in MCP's words.
 *
 * @example
 * ```ts
 * TASK_SUPPORT.includes('optional'); // true
 * ```
 */
export const TASK_SUPPORT: readonly TaskSupport[] = Object.freeze(['forbidden', 'optional', 'required']);

function executionOf(toolName: string, value: unknown): Readonly<ToolExecution> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    throw invalid(
      toolName,
      'execution',
      `Tool '${toolName}': execution must be an object such as { taskSupport: 'optional' }, got ${describeValue(value)}.`,
    );
  }
  const unknown = Object.keys(value).filter((key) => key !== 'taskSupport');
  if (unknown.length > 0) {
    throw invalid(
      toolName,
      `execution.${unknown[0]}`,
      `Tool '${toolName}': execution has no field '${unknown[0]}'; the one field is taskSupport.`,
    );
  }
  const taskSupport = value.taskSupport;
  if (taskSupport === undefined) return Object.freeze({});
  if (typeof taskSupport !== 'string' || !(TASK_SUPPORT as readonly string[]).includes(taskSupport)) {
    throw invalid(
      toolName,
      'execution.taskSupport',
      `Tool '${toolName}': execution.taskSupport must be 'forbidden', 'optional' or 'required', got ${describeValue(taskSupport)}.`,
    );
  }
  return Object.freeze({ taskSupport: taskSupport as TaskSupport });
}

function jsonSchemaOf(toolName: string, field: string, schema: StandardSchemaV1, io: 'input' | 'output'): JsonSchema {
  const standard = (schema as unknown as Partial<StandardJSONSchemaV1>)['~standard'];
  if (standard === undefined || typeof standard !== 'object') {
    throw invalid(
      toolName,
      field,
      `Tool '${toolName}': ${field} must be a zod or other Standard Schema, got ${describeValue(schema)}.`,
    );
  }
  const converter = standard.jsonSchema?.[io];
  if (typeof converter !== 'function') {
    throw invalid(
      toolName,
      field,
      `Tool '${toolName}': the ${field} schema (${String(standard.vendor)}) cannot produce JSON Schema; use zod v4.2 or later, or pass ${field}Schema as JSON Schema.`,
    );
  }
  let converted: Record<string, unknown>;
  try {
    converted = converter({ target: 'draft-2020-12' });
  } catch (error) {
    throw invalid(
      toolName,
      field,
      `Tool '${toolName}': the ${field} schema cannot be expressed as JSON Schema: ${(error as Error).message}`,
    );
  }
  const { $schema: _ignored, ...rest } = converted;
  return rest as JsonSchema;
}

function objectSchema(toolName: string, field: string, schema: unknown): JsonObjectSchema {
  if (!isPlainObject(schema)) {
    throw invalid(
      toolName,
      field,
      `Tool '${toolName}': ${field} must be a JSON Schema object, got ${describeValue(schema)}.`,
    );
  }
  if (schema.type !== 'object') {
    throw invalid(
      toolName,
      `${field}.type`,
      `Tool '${toolName}': ${field} must have type "object", got ${describeValue(schema.type)}.`,
    );
  }
  if (schema.properties !== undefined && !isPlainObject(schema.properties)) {
    throw invalid(
      toolName,
      `${field}.properties`,
      `Tool '${toolName}': ${field}.properties must be an object, got ${describeValue(schema.properties)}.`,
    );
  }
  if (
    schema.required !== undefined &&
    !(Array.isArray(schema.required) && schema.required.every((item) => typeof item === 'string'))
  ) {
    throw invalid(
      toolName,
      `${field}.required`,
      `Tool '${toolName}': ${field}.required must be a list of property names, got ${describeValue(schema.required)}.`,
    );
  }
  return {
    ...schema,
    type: 'object',
    properties: (schema.properties as JsonObjectSchema['properties']) ?? {},
  };
}

function requirements(toolName: string, value: unknown): ToolRequirements {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value))
    throw invalid(toolName, 'requires', `Tool '${toolName}': requires must be an object, got ${describeValue(value)}.`);
  if (value.env === undefined) return {};
  if (!Array.isArray(value.env)) {
    throw invalid(
      toolName,
      'requires.env',
      `Tool '${toolName}': requires.env must be a list, got ${describeValue(value.env)}.`,
    );
  }
  const env = value.env.map((entry: unknown, index: number) => {
    const item = typeof entry === 'string' ? { name: entry } : entry;
    if (!isPlainObject(item) || typeof item.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(item.name)) {
      throw invalid(
        toolName,
        `requires.env[${index}]`,
        `Tool '${toolName}': requires.env[${index}] must name an environment variable, got ${describeValue(entry)}.`,
      );
    }
    return { ...item } as { name: string };
  });
  return { env };
}

function optionalString(toolName: string, source: Record<string, unknown>, key: string): string | undefined {
  const value = source[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid(toolName, key, `Tool '${toolName}': ${key} must be a non-empty string, got ${describeValue(value)}.`);
  }
  return value;
}

function copyString(
  toolName: string,
  source: Record<string, unknown>,
  target: Record<string, unknown>,
  key: string,
): void {
  const value = optionalString(toolName, source, key);
  if (value !== undefined) target[key] = value;
}

function inputExamples(toolName: string, value: unknown): Array<Record<string, unknown>> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length > MAX_INPUT_EXAMPLES) {
    throw invalid(
      toolName,
      'inputExamples',
      `Tool '${toolName}': inputExamples must be a list of at most ${MAX_INPUT_EXAMPLES} argument objects, got ${Array.isArray(value) ? `${value.length} items` : describeValue(value)}.`,
    );
  }
  value.forEach((example, index) => {
    if (!isPlainObject(example))
      throw invalid(
        toolName,
        'inputExamples',
        `Tool '${toolName}': inputExamples[${index}] must be an object of arguments, got ${describeValue(example)}.`,
      );
  });
  return value.length === 0 ? undefined : value;
}

function stringArray(toolName: string, source: Record<string, unknown>, key: string): string[] {
  const value = source[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw invalid(toolName, key, `Tool '${toolName}': ${key} must be a list of strings, got ${describeValue(value)}.`);
  }
  return [...value];
}

function objectField(toolName: string, source: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = source[key];
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value))
    throw invalid(toolName, key, `Tool '${toolName}': ${key} must be an object, got ${describeValue(value)}.`);
  return value;
}

function invalid(toolName: string | undefined, field: string | undefined, message: string): ToolRegistrationError {
  const details: { toolName?: string; field?: string } = {};
  if (toolName !== undefined) details.toolName = toolName;
  if (field !== undefined) details.field = field;
  return new ToolRegistrationError('INVALID_DEFINITION', message, details);
}

/**
 * A short, quoted rendering of a value for error messages: strings in quotes, long values cut.
 *
 * @example
 * ```ts
 * describeValue('abc'); // '"abc"'
 * describeValue([1, 2]); // 'an array'
 * ```
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  return 'an object';
}

/**
 * A deep, frozen copy of JSON data (what schemas are), made in one pass: the spec must not change
 * under the validators compiled from it, and the caller's own objects must stay theirs.
 */
function frozenJsonCopy<T>(toolName: string, field: string, value: T): T {
  const copy = (node: unknown, depth: number): unknown => {
    if (node === null || typeof node !== 'object') {
      if (typeof node === 'function' || typeof node === 'symbol' || typeof node === 'bigint') {
        throw invalid(
          toolName,
          field,
          `Tool '${toolName}': ${field} must be plain JSON data, but it holds ${typeof node === 'function' ? 'a function' : `a ${typeof node}`}.`,
        );
      }
      return node;
    }
    if (depth > 200)
      throw invalid(toolName, field, `Tool '${toolName}': ${field} is nested more than 200 levels deep.`);
    if (Array.isArray(node)) return Object.freeze(node.map((item) => copy(item, depth + 1)));
    if (!isPlainObject(node)) {
      throw invalid(toolName, field, `Tool '${toolName}': ${field} must be plain JSON data (no class instances).`);
    }
    const result: Record<string, unknown> = {};
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (child !== undefined) result[key] = copy(child, depth + 1);
    }
    return Object.freeze(result);
  };
  return copy(value, 0) as T;
}
