import { describeValue } from '../define-tool.js';
import { closestNames, likelyMisspelling } from '../did-you-mean.js';
import { endSentence } from '../end-sentence.js';
import { describeJsonLimitBreach, type JsonLimitBreach } from '../input-limits.js';
import type { JsonErrorLocation } from '../json-error.js';
import type { JsonObjectSchema } from '../json-schema.js';
import { summarizeValue } from '../summarize-value.js';
import { type ToolFailure, ToolResult } from '../tool-result.js';
import type { RequiredEnvVar, ToolSpec } from '../tool-spec.js';
import type { ValidationIssue } from '../validation-issue.js';
import { InvalidToolSchemaError } from './invalid-tool-schema-error.js';

// The failures dispatch returns, one builder each: every message a model reads when a call goes wrong
// is written here.

const SEND_ONE_OBJECT = 'Send the arguments as one JSON object, such as {"name": "value"}.';

/**
 * `INVALID_ARGUMENTS`: the arguments are text that does not parse as JSON.
 *
 * @example
 * ```ts
 * notJsonFailure('add', locateJsonError('{"a": 1')).error.message;
 * // "Arguments for 'add' are not valid JSON: ..."
 * ```
 */
export function notJsonFailure(toolName: string, location: JsonErrorLocation | undefined): ToolFailure {
  const where =
    location === undefined
      ? ''
      : `: ${location.problem} at position ${location.position} (line ${location.line}, column ${location.column})`;
  return ToolResult.error('INVALID_ARGUMENTS', `Arguments for '${toolName}' are not valid JSON${where}.`, {
    hint: SEND_ONE_OBJECT,
    details: location,
  });
}

/**
 * `INVALID_ARGUMENTS`: JSON text arguments that break a limit of `INPUT_LIMITS` or have a refused or
 * duplicate key, which every other surface refuses too.
 *
 * @example
 * ```ts
 * jsonLimitFailure('echo', { limit: 'duplicateKey', key: 'text', path: '' });
 * // "The JSON text of the arguments for 'echo' has the key 'text' twice; send each key once."
 * ```
 */
export function jsonLimitFailure(toolName: string, breach: JsonLimitBreach): ToolFailure {
  return ToolResult.error(
    'INVALID_ARGUMENTS',
    describeJsonLimitBreach(`The JSON text of the arguments for '${toolName}'`, breach),
    { details: { ...breach } },
  );
}

/**
 * `INVALID_ARGUMENTS`: the arguments are JSON, but not an object.
 *
 * @example
 * ```ts
 * notObjectFailure('add', [1, 2]).error.message;
 * // "Arguments for 'add' must be a JSON object, got a list of 2 items."
 * ```
 */
export function notObjectFailure(toolName: string, value: unknown): ToolFailure {
  return ToolResult.error(
    'INVALID_ARGUMENTS',
    `Arguments for '${toolName}' must be a JSON object, got ${describeArgs(value)}.`,
    { hint: SEND_ONE_OBJECT },
  );
}

/**
 * `INVALID_ARGUMENTS`: the arguments nest deeper than `maxDepth` levels.
 *
 * @example
 * ```ts
 * tooDeepFailure('add', 200).error.message;
 * // "Arguments for 'add' are nested more than 200 levels deep."
 * ```
 */
export function tooDeepFailure(toolName: string, maxDepth: number): ToolFailure {
  return ToolResult.error(
    'INVALID_ARGUMENTS',
    `Arguments for '${toolName}' are nested more than ${maxDepth} levels deep.`,
    {
      hint: `Send arguments with at most ${maxDepth} levels of nested objects and lists.`,
      details: { maxDepth },
    },
  );
}

/**
 * `INVALID_ARGUMENTS`: arguments the tool does not declare, when it rejects extras.
 *
 * @example
 * ```ts
 * extraArgsFailure(addSpec, ['c']).error.message;
 * // "Invalid arguments for 'add': unexpected argument 'c'; accepted arguments are a, b."
 * ```
 */
export function extraArgsFailure(spec: ToolSpec, extra: string[]): ToolFailure {
  const accepted = Object.keys(spec.inputSchema.properties);
  const list = extra
    .map((key) => {
      const close = likelyMisspelling(key, accepted);
      return close === undefined ? `'${key}'` : `'${key}' (did you mean '${close}'?)`;
    })
    .join(', ');
  return ToolResult.error(
    'INVALID_ARGUMENTS',
    `Invalid arguments for '${spec.name}': unexpected argument${extra.length === 1 ? '' : 's'} ${list}; accepted arguments are ${accepted.length > 0 ? accepted.join(', ') : 'none'}.`,
    { hint: expectedArguments(spec.inputSchema), details: { unexpected: extra } },
  );
}

/**
 * `INVALID_ARGUMENTS` for schema issues: the first three, in one sentence, plus the expected shape.
 * `dropped` are the undeclared arguments the call sent (and dispatch dropped): a missing argument
 * whose name is close to one of them is named with it, since that is most often a misspelling.
 *
 * @example
 * ```ts
 * invalidArguments(spec, [{ path: 'a', pointer: '/a', keyword: 'type', expected: 'number', message: "'a' must be a number" }]);
 * // error.message: "Invalid arguments for 'add': 'a' must be a number."
 * invalidArguments(spec, [missingPath], ['file_path']);
 * // error.message: "Invalid arguments for 'read_file': missing required argument 'path' (a string); 'file_path' was sent: did you mean 'path'?"
 * ```
 */
export function invalidArguments(
  spec: ToolSpec,
  issues: readonly ValidationIssue[],
  dropped: readonly string[] = [],
): ToolFailure {
  const shown = issues.slice(0, 3).map((issue) => {
    if (issue.keyword !== 'required' || dropped.length === 0 || issue.pointer.lastIndexOf('/') !== 0) {
      return issue.message;
    }
    const close = likelyMisspelling(issue.path, dropped);
    return close === undefined ? issue.message : `${issue.message}; '${close}' was sent: did you mean '${issue.path}'?`;
  });
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return ToolResult.error(
    'INVALID_ARGUMENTS',
    endSentence(`Invalid arguments for '${spec.name}': ${shown.join('; ')}${more}`),
    {
      hint: expectedArguments(spec.inputSchema),
      details: issueDetails(issues),
    },
  );
}

/**
 * `INVALID_ARGUMENTS` for the issues of a tool's own Standard Schema (zod refinements and transforms).
 *
 * @example
 * ```ts
 * standardSchemaFailure(spec, [{ message: 'Too small', path: ['a'] }]).error.message;
 * // "Invalid arguments for 'add': 'a': Too small."
 * ```
 */
export function standardSchemaFailure(
  spec: ToolSpec,
  issues: ReadonlyArray<{
    message: string;
    path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined;
  }>,
): ToolFailure {
  return invalidArguments(
    spec,
    issues.map((issue) => {
      const path = (issue.path ?? [])
        .map((segment) => (typeof segment === 'object' ? segment.key : segment))
        .map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`))
        .join('');
      return {
        path,
        pointer: '',
        keyword: 'custom',
        expected: issue.message,
        message: path === '' ? issue.message : `'${path}': ${issue.message}`,
      };
    }),
  );
}

/**
 * `OUTPUT_INVALID`: the handler's output does not match the tool's output schema.
 *
 * @example
 * ```ts
 * outputInvalidFailure('add', issues).error.code; // 'OUTPUT_INVALID'
 * ```
 */
export function outputInvalidFailure(toolName: string, issues: readonly ValidationIssue[]): ToolFailure {
  return ToolResult.error(
    'OUTPUT_INVALID',
    endSentence(
      `Tool '${toolName}' returned output that does not match its output schema: ${issues
        .slice(0, 3)
        .map((issue) => issue.message.replace(/^the arguments /, 'the output '))
        .join('; ')}`,
    ),
    {
      hint: 'This is a fault in the tool, not in your arguments; try another approach.',
      details: issueDetails(issues),
    },
  );
}

/**
 * `OUTPUT_TOO_LARGE`: output longer than the store of truncated outputs can keep.
 *
 * @example
 * ```ts
 * outputTooLargeFailure('logs', 60_000_000, 50_000_000).error.message;
 * // "Tool 'logs' returned 60000000 characters, more than the 50000000 that can be kept."
 * ```
 */
export function outputTooLargeFailure(toolName: string, length: number, capacity: number): ToolFailure {
  return ToolResult.error(
    'OUTPUT_TOO_LARGE',
    `Tool '${toolName}' returned ${length} characters, more than the ${capacity} that can be kept.`,
    { hint: 'Ask for less: narrow the query or request a smaller range.' },
  );
}

/**
 * Validation issues as an error's `details`: each offending value summarised (see
 * {@link summarizeValue}), never copied whole, so that a huge value, or an output nested thousands of
 * levels deep, still gives a small result that can be serialised.
 */
function issueDetails(issues: readonly ValidationIssue[]): ValidationIssue[] {
  return issues.map((issue) =>
    Object.hasOwn(issue, 'received') ? { ...issue, received: summarizeValue(issue.received) } : issue,
  );
}

/**
 * The hint shown with invalid arguments: each argument with its type, required ones marked.
 *
 * @example
 * ```ts
 * expectedArguments({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] });
 * // 'Expected arguments: a (number, required).'
 * ```
 */
export function expectedArguments(schema: JsonObjectSchema): string {
  const required = new Set(schema.required ?? []);
  const parts = Object.entries(schema.properties).map(([key, property]) => {
    const type = Array.isArray(property.type)
      ? property.type.join(' or ')
      : (property.type ?? (property.enum !== undefined ? 'enum' : 'any'));
    const enumText =
      property.enum !== undefined ? ` one of ${property.enum.map((value) => JSON.stringify(value)).join(', ')}` : '';
    return `${key} (${type}${enumText}${required.has(key) ? ', required' : ''})`;
  });
  if (parts.length === 0) return 'This tool takes no arguments; send {}.';
  const shown = parts.slice(0, 20).join(', ');
  return `Expected arguments: ${shown}${parts.length > 20 ? `, and ${parts.length - 20} more` : ''}.`;
}

/**
 * `MISSING_CREDENTIALS`: an environment variable the tool requires is not set.
 *
 * @example
 * ```ts
 * missingCredentials('weather', { name: 'WEATHER_KEY' }).error.message;
 * // "Tool 'weather' needs the environment variable WEATHER_KEY, which is not set."
 * ```
 */
export function missingCredentials(toolName: string, variable: RequiredEnvVar): ToolFailure {
  const where = variable.url === undefined ? '' : ` Get one at ${variable.url}, then`;
  const what = variable.description === undefined ? '' : ` (${variable.description})`;
  return ToolResult.error(
    'MISSING_CREDENTIALS',
    `Tool '${toolName}' needs the environment variable ${variable.name}${what}, which is not set.`,
    {
      hint: `${where === '' ? 'Set it' : `${where.trim()} set it`} in the environment where toolshed runs: export ${variable.name}=...`,
      details: { variable: variable.name, url: variable.url },
    },
  );
}

/**
 * `EXECUTION_FAILED`: the handler threw or its promise rejected.
 *
 * @example
 * ```ts
 * executionFailed('add', new TypeError('boom')).error.message;
 * // "Tool 'add' failed: TypeError: boom"
 * ```
 */
export function executionFailed(toolName: string, error: unknown): ToolFailure {
  if (error instanceof Error) {
    const className = error.name !== 'Error' ? error.name : (error.constructor?.name ?? 'Error');
    return ToolResult.error('EXECUTION_FAILED', `Tool '${toolName}' failed: ${className}: ${error.message}`, {
      details: { errorClass: className },
    });
  }
  return ToolResult.error('EXECUTION_FAILED', `Tool '${toolName}' failed: it threw ${describeValue(error)}.`, {
    details: { errorClass: typeof error },
  });
}

/**
 * `TIMEOUT`: the deadline passed, or (`capped`) the `maxTotalMs` cap of a progress-extended one.
 *
 * @example
 * ```ts
 * timeoutFailure(spec, 5000, false).error.message;
 * // "Tool 'slow' timed out after 5000 ms."
 * ```
 */
export function timeoutFailure(spec: ToolSpec, timeoutMs: number, capped: boolean): ToolFailure {
  return ToolResult.error(
    'TIMEOUT',
    capped
      ? `Tool '${spec.name}' ran past its total limit of ${spec.maxTotalMs} ms.`
      : `Tool '${spec.name}' timed out after ${timeoutMs} ms.`,
    {
      hint: 'Try again, or ask for less work in one call.',
      details: { timeoutMs, maxTotalMs: spec.maxTotalMs },
    },
  );
}

/**
 * `CANCELLED`: the caller's signal aborted; a reason given as text or an error is quoted.
 *
 * @example
 * ```ts
 * cancelledFailure('slow', AbortSignal.abort('user left')).error.message;
 * // "The call to 'slow' was cancelled: user left."
 * ```
 */
export function cancelledFailure(toolName: string, signal: AbortSignal | undefined): ToolFailure {
  const reason = signal?.reason;
  const why =
    reason instanceof Error && reason.name !== 'AbortError'
      ? `: ${reason.message}`
      : typeof reason === 'string'
        ? `: ${reason}`
        : '';
  return ToolResult.error('CANCELLED', `The call to '${toolName}' was cancelled${why}.`);
}

/**
 * `EXECUTION_FAILED` for a broken tool schema, or a bug in toolshed itself: still a result, never a throw.
 *
 * @example
 * ```ts
 * internalFailure('add', new Error('bug')).error.message;
 * // "Tool 'add' could not be dispatched: bug"
 * ```
 */
export function internalFailure(toolName: string, error: unknown): ToolFailure {
  if (error instanceof InvalidToolSchemaError) {
    return ToolResult.error('EXECUTION_FAILED', error.message, {
      hint: 'This is a fault in the tool definition, not in your arguments; use another tool.',
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return ToolResult.error('EXECUTION_FAILED', `Tool '${toolName}' could not be dispatched: ${message}`, {
    details: { internal: true },
  });
}

/**
 * The `TOOL_NOT_FOUND` message for `name`: closest names first, then (a capped list of) all names.
 *
 * @example
 * ```ts
 * toolNotFound('serch', ['search', 'fetch']).message;
 * // "Tool 'serch' not found. Did you mean 'search'? Available tools: search, fetch."
 * ```
 */
export function toolNotFound(name: unknown, available: readonly string[]): { message: string; suggestions: string[] } {
  const shownName =
    typeof name === 'string' ? (name.length > 80 ? `${name.slice(0, 77)}...` : name) : String(describeValue(name));
  const suggestions = typeof name === 'string' && name.length <= 200 ? closestNames(name, available) : [];
  let message = `Tool '${shownName}' not found.`;
  if (suggestions.length > 0) message += ` Did you mean ${suggestions.map((entry) => `'${entry}'`).join(' or ')}?`;
  if (available.length === 0) message += ' No tools are available.';
  else {
    const cap = 30;
    const listed = available.slice(0, cap).join(', ');
    message += ` Available tools: ${listed}${available.length > cap ? `, and ${available.length - cap} more` : ''}.`;
  }
  return { message, suggestions };
}

function describeArgs(value: unknown): string {
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (typeof value === 'string') return `a string ${describeValue(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return describeValue(value);
}
