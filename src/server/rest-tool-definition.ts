import { REST_TOOL_SCHEMA } from '../config/config-schema.js';
import { describeValue } from '../core/define-tool.js';
import { endSentence } from '../core/end-sentence.js';
import { isPlainObject, type JsonObjectSchema } from '../core/json-schema.js';
import type { ToolAnnotations, ToolExecution } from '../core/tool-spec.js';
import type { ValidationIssue } from '../core/validation-issue.js';
import { failingExamples } from '../exporters/schema-lint.js';
import { compileValidator, nonLinearPatterns, schemaIssueAt, schemaIssues } from '../schema/compile-validator.js';
import { fieldMessage } from '../schema/validation-errors.js';
import { SECRET_NAME_PATTERN, STORE_LIMITS, type ToolPatch } from '../store/index.js';
import { type ApiError, validationError } from './api-error.js';

const validateRestTool = compileValidator(REST_TOOL_SCHEMA);

/**
 * The fields of a REST tool definition (`custom_tools` entry, `POST /api/tools` body).
 *
 * @example
 * ```ts
 * REST_TOOL_FIELDS.includes('endpoint'); // true
 * ```
 */
export const REST_TOOL_FIELDS: readonly string[] = Object.freeze(Object.keys(REST_TOOL_SCHEMA.properties ?? {}));

/**
 * Check a REST tool definition a workspace sends, as `POST /api/tools` and `PATCH /api/tools/:id`
 * both do: first what only the operator may grant (`sent`, the fields the client sent: the server's
 * environment, private networks), then the whole `definition` against the `custom_tools` schema, then
 * its size. Throws a 400 naming the field.
 *
 * @example
 * ```ts
 * checkRestToolDefinition(body); // POST: the body is the definition
 * checkRestToolDefinition(merged, patch); // PATCH: the tool's definition with the patch applied
 * ```
 */
export function checkRestToolDefinition(
  definition: Record<string, unknown>,
  sent: Record<string, unknown> = definition,
): void {
  refuseOperatorFields(sent);
  const issue = validateRestTool(structuredClone(definition))?.[0];
  if (issue !== undefined) throw definitionError('REST tool', issue, definition);
  if (Buffer.byteLength(JSON.stringify(definition)) > STORE_LIMITS.configBytes) {
    throw validationError('body', `A REST tool definition must be at most ${STORE_LIMITS.configBytes} bytes as JSON.`);
  }
  const endpoint = definition.endpoint as string;
  if (!URL.canParse(endpoint)) {
    throw validationError('endpoint', `Invalid REST tool: 'endpoint' must be a URL, got ${describeValue(endpoint)}.`);
  }
  refuseUnusableParameters(definition.parameters, 'REST tool');
  refuseUnfitExamples(definition.input_examples, definition.parameters, 'REST tool');
}

/**
 * Refuse (400 naming the place in `parameters`) a parameters schema a tool could never use: one that
 * is not valid JSON Schema (`required: "a"`, `type: "strung"`), one that does not compile (a `$ref`
 * that leads nowhere, a `pattern` that is not a valid regular expression), or one with a `pattern`
 * only a backtracking engine can run (a lookaround, a backreference): through the API, a workspace may
 * not define a tool whose crafted argument could hold the server for seconds. A configuration file's
 * tools are the operator's own, and keep such patterns.
 *
 * @example
 * ```ts
 * refuseUnusableParameters({ type: 'object', properties: { a: { type: 'strung' } } }, 'REST tool');
 * // throws: Invalid REST tool: 'parameters.properties.a.type' must be one of "array", "boolean", ...
 * ```
 */
export function refuseUnusableParameters(parameters: unknown, kind: string): void {
  if (!isPlainObject(parameters)) return;
  const issue = schemaIssues(parameters)[0];
  if (issue !== undefined) {
    const { field, message } = schemaIssueAt('parameters', issue);
    throw validationError(field, endSentence(`Invalid ${kind}: ${message}`));
  }
  const risky = nonLinearPatterns(parameters)[0];
  if (risky !== undefined) {
    throw validationError(
      `parameters${risky.pointer.replaceAll('/', '.')}`,
      `Invalid ${kind}: the pattern ${JSON.stringify(risky.pattern)} at parameters${risky.pointer} needs a lookaround or a backreference, which a tool defined through the API may not use (a crafted argument could make it run for seconds); write it without them.`,
    );
  }
  try {
    compileValidator(structuredClone(parameters));
  } catch (error) {
    throw validationError(
      'parameters',
      `Invalid ${kind}: 'parameters' cannot be used to check arguments: ${(error as Error).message}.`,
    );
  }
}

/**
 * Refuse (400 naming `input_examples[i]`) the first input example that `parameters` refuses: it would
 * teach the model a wrong call. Through the API it is an error; a configuration file only gets a
 * warning, having no one to answer.
 *
 * @example
 * ```ts
 * refuseUnfitExamples([{ q: 7 }], { type: 'object', properties: { q: { type: 'string' } } }, 'code tool');
 * // throws: Invalid code tool: input_examples[0] does not fit parameters: 'q' must be a string, got number 7.
 * ```
 */
export function refuseUnfitExamples(examples: unknown, parameters: unknown, kind: string): void {
  if (!Array.isArray(examples) || !isPlainObject(parameters)) return;
  const failing = failingExamples(parameters, examples)[0];
  if (failing !== undefined)
    throw validationError(
      `input_examples[${failing.index}]`,
      `Invalid ${kind}: input_examples[${failing.index}] does not fit parameters: ${failing.problem}.`,
    );
}

/**
 * The columns of a workspace REST tool row, from its checked definition: what `POST /api/tools`
 * creates and `PATCH /api/tools/:id` rewrites. The definition itself is the row's `config`.
 *
 * @example
 * ```ts
 * await store.tools.update('acme', 'company_search', restToolColumns(definition));
 * ```
 */
export function restToolColumns(definition: Record<string, unknown>): Required<ToolPatch> {
  return {
    name: typeof definition.title === 'string' ? definition.title : String(definition.id),
    description: definition.description as string,
    whenToUse: typeof definition.when_to_use === 'string' ? definition.when_to_use : null,
    category: typeof definition.category === 'string' ? definition.category : 'api',
    tags: Array.isArray(definition.tags) ? (definition.tags as string[]) : [],
    inputExamples: Array.isArray(definition.input_examples)
      ? (definition.input_examples as Array<Record<string, unknown>>)
      : null,
    annotations: restAnnotations(definition),
    execution: restExecution(definition),
    parametersSchema: definition.parameters as JsonObjectSchema,
    config: definition,
  };
}

/**
 * A tool's `execution` from the API's snake_case form (`execution: { task_support }`), as the row
 * keeps it: `{}` when the definition declares none.
 *
 * @example
 * ```ts
 * restExecution({ execution: { task_support: 'optional' } }); // { taskSupport: 'optional' }
 * ```
 */
export function restExecution(body: Record<string, unknown>): ToolExecution {
  const execution = isPlainObject(body.execution) ? body.execution : {};
  const support = execution.task_support;
  return support === 'forbidden' || support === 'optional' || support === 'required' ? { taskSupport: support } : {};
}

/**
 * A tool's annotations from the API's snake_case form (`read_only`, `destructive`, `idempotent`,
 * `open_world`) and `requires_approval`, as the row keeps them.
 *
 * @example
 * ```ts
 * restAnnotations({ annotations: { read_only: true } }); // { readOnly: true }
 * ```
 */
export function restAnnotations(body: Record<string, unknown>): ToolAnnotations & { requiresApproval?: true } {
  const annotations = isPlainObject(body.annotations) ? body.annotations : {};
  const result: ToolAnnotations & { requiresApproval?: true } = {};
  if (typeof annotations.read_only === 'boolean') result.readOnly = annotations.read_only;
  if (typeof annotations.destructive === 'boolean') result.destructive = annotations.destructive;
  if (typeof annotations.idempotent === 'boolean') result.idempotent = annotations.idempotent;
  if (typeof annotations.open_world === 'boolean') result.openWorld = annotations.open_world;
  if (body.requires_approval === true) result.requiresApproval = true;
  return result;
}

/**
 * What only the operator may grant, refused in a tool a workspace creates: reading the server's
 * environment (`auth.token_env`, `auth.value_env`) and reaching private networks
 * (`allow_private_network`). Also names `auth.secret` when an auth lacks it, which the schema would
 * report as a missing variable.
 */
function refuseOperatorFields(body: Record<string, unknown>): void {
  const auth = body.auth;
  if (isPlainObject(auth)) {
    for (const key of ['token_env', 'value_env']) {
      if (!Object.hasOwn(auth, key)) continue;
      const variable = auth[key];
      const name = typeof variable === 'string' && SECRET_NAME_PATTERN.test(variable) ? variable : 'NAME';
      throw validationError(
        'auth',
        `Environment variables are for operator config files, so 'auth.${key}' (${describeValue(variable)}) is refused; store a workspace secret with PUT /api/secrets/${name} and reference it as "secret": "${name}".`,
      );
    }
    if (['bearer', 'header', 'query'].includes(auth.type as string) && !Object.hasOwn(auth, 'secret')) {
      throw validationError(
        'auth',
        `'auth.secret' is required: the name of the workspace secret that holds the value (store one with PUT /api/secrets/NAME).`,
      );
    }
  }
  if (Object.hasOwn(body, 'allow_private_network')) {
    throw validationError(
      'allow_private_network',
      `'allow_private_network' (${describeValue(body.allow_private_network)}) is for operator config files only; a tool created through the API reaches public addresses only, so leave the field out.`,
    );
  }
}

/**
 * The 400 for a `body` that fails its schema (`kind`: `REST tool`, `code tool`, `tool patch`), naming
 * the top-level field, its message in the words of fields ({@link fieldMessage}).
 *
 * @example
 * ```ts
 * definitionError('REST tool', issue, body).message; // "Invalid REST tool: unknown field 'headers'; allowed fields: id, type, ..."
 * ```
 */
export function definitionError(kind: string, issue: ValidationIssue, body: unknown): ApiError {
  return validationError(
    fieldOf(issue.path, issue.keyword, issue.message),
    endSentence(`Invalid ${kind}: ${fieldMessage(issue, body)}`),
  );
}

/**
 * The top-level field an issue is about (a missing or unknown property is named in the message).
 *
 * @example
 * ```ts
 * fieldOf('auth.secret', 'pattern', '...'); // 'auth'
 * ```
 */
export function fieldOf(path: string, keyword: string, message: string): string {
  if (path !== '') return path.split(/[.[]/)[0] ?? path;
  if (keyword === 'required' || keyword === 'additionalProperties') {
    const quoted = /'([^']+)'/.exec(message)?.[1];
    if (quoted !== undefined) return quoted.split(/[.[]/)[0] ?? quoted;
  }
  return 'body';
}
