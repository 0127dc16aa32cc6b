import { CallContext, type CallContextOptions } from './call-context.js';
import type { Deadline, DeadlineQueue } from './deadline-queue.js';
import { describeValue } from './define-tool.js';
import { closestNames } from './did-you-mean.js';
import { InvalidToolSchemaError } from './errors/invalid-tool-schema-error.js';
import { ToolshedError } from './errors/toolshed-error.js';
import { locateJsonError } from './json-error.js';
import type { JsonObjectSchema } from './json-schema.js';
import { isPlainObject } from './json-schema.js';
import type { OutputStore } from './output-store.js';
import { summarizeValue } from './summarize-value.js';
import { type ResultMetadata, stringifyData, type ToolFailure, ToolResult } from './tool-result.js';
import type { RequiredEnvVar, ToolSpec } from './tool-spec.js';
import type { CompiledValidator, ValidationIssue } from './validation-issue.js';

/** Options of one call: cancellation, deadline and what the caller offers the handler. */
export interface CallOptions {
  /** Aborting it cancels the call (`CANCELLED`) and aborts the handler's `ctx.signal`. */
  signal?: AbortSignal;
  /** Overrides the tool's and the registry's timeout for this call. */
  timeoutMs?: number;
  /** The model's id for this tool call, echoed in metadata and `ctx.toolCallId`. */
  toolCallId?: string;
  context?: CallContextOptions;
}

/** What middleware sees of a call. */
export interface CallInfo {
  tool: string;
  args: unknown;
  toolCallId: string | undefined;
  options: CallOptions;
}

/**
 * Middleware around every call, for logging, metrics and tracing. A hook that throws or rejects is
 * reported to the registry's `hook-error` listeners and never changes the call's result.
 */
export interface CallHook {
  name?: string;
  before?(call: CallInfo): void | Promise<void>;
  after?(call: CallInfo, result: ToolResult): void | Promise<void>;
}

/** A registered tool with everything the hot path needs precomputed. */
export interface PreparedTool {
  readonly spec: ToolSpec;
  /**
   * Validates and applies defaults. May answer with a promise once, while the validator compiler
   * loads (it is imported on first use, so listing tools never pays for it).
   */
  readonly validateInput: (value: unknown) => ReturnType<CompiledValidator> | Promise<ReturnType<CompiledValidator>>;
  readonly validateOutput: CompiledValidator | undefined;
  /** Declared argument names, when undeclared ones count as extra (no `additionalProperties` allowed). */
  readonly declaredArgs: ReadonlySet<string> | undefined;
  /** How to protect a caller's object from defaults written by validation. */
  readonly copyArgs: 'none' | 'shallow' | 'deep';
  readonly requiredEnv: readonly RequiredEnvVar[];
  readonly extraArgs: 'drop' | 'reject' | undefined;
  /** False when neither the tool nor the registry has an approval rule (skips the gate). */
  mayNeedApproval: boolean;
}

/** Registry-wide settings and services the dispatcher uses. */
export interface DispatchRuntime {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly defaultTimeoutMs: number;
  readonly extraArgs: 'drop' | 'reject';
  readonly maxOutputChars: number | undefined;
  readonly outputs: OutputStore;
  readonly deadlines: DeadlineQueue;
  readonly hooks: readonly CallHook[];
  reportHookError(hook: CallHook, error: unknown, call: CallInfo): void;
  /**
   * Arguments with nulls a provider's strict mode sent for optional properties, turned back into absent
   * keys; tried only when validation fails, so valid calls never pay for it.
   */
  decodeNulls?(spec: ToolSpec, args: Record<string, unknown>): Record<string, unknown>;
  /** Decide whether the call needs approval; returns a pending result when it does. */
  approvalGate?(
    tool: PreparedTool,
    args: Record<string, unknown>,
    metadata: ResultMetadata,
    /** The agent the call runs for (`context.agentId`), stored with the approval. */
    agentId: string | undefined,
  ): ToolResult | Promise<ToolResult> | undefined;
}

// `performance` is a lazy global getter in Node; holding the object saves ~10 ns a read, and the
// dispatcher reads the clock twice per call.
const clock = globalThis.performance;

/**
 * Parse a model's arguments: an object as is; JSON text parsed; `''`, `null` and `undefined` as `{}`
 * (many models send an empty string for a tool without arguments).
 */
export function parseArguments(
  toolName: string,
  raw: unknown,
): { args: Record<string, unknown>; owned: boolean } | { failure: ToolFailure } {
  if (raw === undefined || raw === null || raw === '') return { args: {}, owned: true };
  let value = raw;
  let owned = false;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return { args: {}, owned: true };
    try {
      value = JSON.parse(raw);
      owned = true;
    } catch {
      const location = locateJsonError(raw);
      const where =
        location === undefined
          ? ''
          : `: ${location.problem} at position ${location.position} (line ${location.line}, column ${location.column})`;
      return {
        failure: ToolResult.error('INVALID_ARGUMENTS', `Arguments for '${toolName}' are not valid JSON${where}.`, {
          hint: 'Send the arguments as one JSON object, such as {"name": "value"}.',
          details: location,
        }),
      };
    }
  }
  if (!isPlainObject(value)) {
    return {
      failure: ToolResult.error(
        'INVALID_ARGUMENTS',
        `Arguments for '${toolName}' must be a JSON object, got ${describeArgs(value)}.`,
        { hint: 'Send the arguments as one JSON object, such as {"name": "value"}.' },
      ),
    };
  }
  return { args: value, owned };
}

/**
 * How deep arguments may nest (the arguments object itself is the first level); deeper ones are
 * `INVALID_ARGUMENTS` before validation. Deeper data is no tool's input, and everything after this
 * step that walks it recursively — validation, the canonical copy of an approval, a hook, serialising
 * a result that quotes it — would overflow the stack.
 *
 * @example
 * ```ts
 * await registry.call('echo', { a: { b: [1] } }); // 3 levels: runs
 * ```
 */
export const MAX_ARGUMENT_DEPTH = 200;

function tooDeepFailure(toolName: string): ToolFailure {
  return ToolResult.error(
    'INVALID_ARGUMENTS',
    `Arguments for '${toolName}' are nested more than ${MAX_ARGUMENT_DEPTH} levels deep.`,
    {
      hint: `Send arguments with at most ${MAX_ARGUMENT_DEPTH} levels of nested objects and lists.`,
      details: { maxDepth: MAX_ARGUMENT_DEPTH },
    },
  );
}

/** Whether lists and plain objects in `value` nest more than `limit` levels, checked without recursion. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    const children = Array.isArray(node) ? node : isPlainObject(node) ? Object.values(node) : undefined;
    if (children === undefined) continue;
    if (depth > limit) return true;
    for (const child of children) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return false;
}

function describeArgs(value: unknown): string {
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (typeof value === 'string') return `a string ${describeValue(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return describeValue(value);
}

/**
 * Run one call through the dispatch pipeline (SPEC §3.4 steps 2-8; the lookup is the registry's).
 * Never throws: every failure is a {@link ToolResult}.
 */
export function dispatchCall(
  tool: PreparedTool,
  rawArgs: unknown,
  options: CallOptions | undefined,
  runtime: DispatchRuntime,
): Promise<ToolResult> {
  if (runtime.hooks.length > 0) return dispatchWithHooks(tool, rawArgs, options, runtime);
  const started = clock.now();
  try {
    return runPipeline(tool, rawArgs, options, runtime, started);
  } catch (error) {
    // A broken tool schema, or a bug in toolshed itself: still a result, never a throw.
    return Promise.resolve(
      stampResult(internalFailure(tool.spec.name, error), tool.spec.name, started, options?.toolCallId),
    );
  }
}

/**
 * Deliver a result decided before dispatch (an unknown tool, a factory that failed) through the
 * registry's hooks, so middleware sees every call.
 */
export function deliverFailure(
  name: string,
  rawArgs: unknown,
  options: CallOptions | undefined,
  runtime: DispatchRuntime,
  failure: ToolFailure,
): Promise<ToolResult> {
  const started = clock.now();
  if (runtime.hooks.length === 0) return Promise.resolve(stampResult(failure, name, started, options?.toolCallId));
  return withHooks(name, rawArgs, options, runtime, () =>
    Promise.resolve(stampResult(failure, name, started, options?.toolCallId)),
  );
}

async function withHooks(
  name: string,
  rawArgs: unknown,
  options: CallOptions | undefined,
  runtime: DispatchRuntime,
  run: () => Promise<ToolResult>,
): Promise<ToolResult> {
  const call: CallInfo = { tool: name, args: rawArgs, toolCallId: options?.toolCallId, options: options ?? {} };
  for (const hook of runtime.hooks) {
    if (hook.before === undefined) continue;
    try {
      await hook.before(call);
    } catch (error) {
      runtime.reportHookError(hook, error, call);
    }
  }
  const result = await run();
  for (const hook of runtime.hooks) {
    if (hook.after === undefined) continue;
    try {
      await hook.after(call, result);
    } catch (error) {
      runtime.reportHookError(hook, error, call);
    }
  }
  return result;
}

function dispatchWithHooks(
  tool: PreparedTool,
  rawArgs: unknown,
  options: CallOptions | undefined,
  runtime: DispatchRuntime,
): Promise<ToolResult> {
  const started = clock.now();
  return withHooks(tool.spec.name, rawArgs, options, runtime, async () => {
    try {
      return await runPipeline(tool, rawArgs, options, runtime, started);
    } catch (error) {
      return stampResult(internalFailure(tool.spec.name, error), tool.spec.name, started, options?.toolCallId);
    }
  });
}

function runPipeline(
  tool: PreparedTool,
  rawArgs: unknown,
  options: CallOptions | undefined,
  runtime: DispatchRuntime,
  started: number,
): Promise<ToolResult> {
  const spec = tool.spec;
  const name = spec.name;
  const metadata: ResultMetadata = { tool: name, durationMs: 0 };
  const toolCallId = options?.toolCallId;
  if (toolCallId !== undefined) metadata.toolCallId = toolCallId;
  const signal = options?.signal;
  if (signal?.aborted) return Promise.resolve(finish(cancelledResult(name, signal), metadata, started));

  let args: Record<string, unknown>;
  let owned = false;
  if (typeof rawArgs === 'object' && rawArgs !== null && isPlainPrototype(rawArgs)) {
    args = rawArgs as Record<string, unknown>;
  } else {
    const parsed = parseArguments(name, rawArgs);
    if ('failure' in parsed) return Promise.resolve(finish(parsed.failure, metadata, started));
    args = parsed.args;
    owned = parsed.owned;
  }
  if (nestedDeeperThan(args, MAX_ARGUMENT_DEPTH))
    return Promise.resolve(finish(tooDeepFailure(name), metadata, started));

  if (!owned && tool.copyArgs !== 'none') {
    args = tool.copyArgs === 'shallow' ? { ...args } : (structuredCloneSafe(args) as Record<string, unknown>);
  }
  const issues = tool.validateInput(args);
  if (issues === undefined) return afterInputSchema(tool, args, options, runtime, metadata, started);
  if (issues instanceof Promise) {
    return issues.then(
      (found) =>
        found === undefined
          ? afterInputSchema(tool, args, options, runtime, metadata, started)
          : afterInvalidInput(tool, args, found, options, runtime, metadata, started),
      (error: unknown) => finish(internalFailure(name, error), metadata, started),
    );
  }
  return afterInvalidInput(tool, args, issues, options, runtime, metadata, started);
}

/**
 * Arguments the validator refused. Undeclared arguments are refused by the validator too (see
 * `prepareTool`), so they are looked for only here: dropped (and the rest validated again) or
 * rejected, as the tool says. Then nulls a strict provider sent for optional properties are decoded.
 */
function afterInvalidInput(
  tool: PreparedTool,
  args: Record<string, unknown>,
  issues: readonly ValidationIssue[],
  options: CallOptions | undefined,
  runtime: DispatchRuntime,
  metadata: ResultMetadata,
  started: number,
): Promise<ToolResult> {
  const spec = tool.spec;
  const declared = tool.declaredArgs;
  if (declared !== undefined) {
    let extra: string[] | undefined;
    for (const key in args) {
      if (!declared.has(key) && Object.hasOwn(args, key)) {
        extra ??= [];
        extra.push(key);
      }
    }
    if (extra !== undefined) {
      if ((tool.extraArgs ?? runtime.extraArgs) === 'reject') {
        return Promise.resolve(finish(extraArgsFailure(spec, extra), metadata, started));
      }
      // Copied before validation when the tool has defaults, so the caller's object is not touched.
      const kept: Record<string, unknown> = {};
      for (const key in args) if (declared.has(key)) kept[key] = args[key];
      metadata.droppedArgs = extra;
      // The validator is compiled by now (this runs after it answered), so this answers at once.
      const again = tool.validateInput(kept) as ReturnType<CompiledValidator>;
      if (again === undefined) return afterInputSchema(tool, kept, options, runtime, metadata, started);
      args = kept;
      issues = again;
    }
  }
  const decoded = decodeNullsIfValid(tool, args, runtime);
  if (decoded !== undefined) return afterInputSchema(tool, decoded, options, runtime, metadata, started);
  return Promise.resolve(finish(invalidArguments(spec, issues), metadata, started));
}

function decodeNullsIfValid(
  tool: PreparedTool,
  args: Record<string, unknown>,
  runtime: DispatchRuntime,
): Record<string, unknown> | undefined {
  if (runtime.decodeNulls === undefined || !containsNull(args, 0)) return undefined;
  const decoded = runtime.decodeNulls(tool.spec, args);
  if (decoded === args) return undefined;
  const again = tool.validateInput(decoded);
  return again === undefined ? decoded : undefined;
}

function containsNull(value: unknown, depth: number): boolean {
  if (value === null) return true;
  if (typeof value !== 'object' || depth > 32) return false;
  for (const child of Object.values(value as object)) if (containsNull(child, depth + 1)) return true;
  return false;
}

/** Step 4, second half: a tool's own Standard Schema (zod refinements and transforms). */
function afterInputSchema(
  tool: PreparedTool,
  args: Record<string, unknown>,
  options: CallOptions | undefined,
  runtime: DispatchRuntime,
  metadata: ResultMetadata,
  started: number,
): Promise<ToolResult> {
  const spec = tool.spec;
  if (spec.input !== undefined) {
    const checked = spec.input['~standard'].validate(args);
    if (checked instanceof Promise) {
      return checked.then(
        (outcome) => {
          if (outcome.issues !== undefined) return finish(standardIssues(spec, outcome.issues), metadata, started);
          try {
            return afterValidation(tool, outcome.value as Record<string, unknown>, options, runtime, metadata, started);
          } catch (error) {
            return finish(internalFailure(spec.name, error), metadata, started);
          }
        },
        (error: unknown) => finish(internalFailure(spec.name, error), metadata, started),
      );
    }
    if (checked.issues !== undefined) {
      return Promise.resolve(finish(standardIssues(spec, checked.issues), metadata, started));
    }
    return afterValidation(tool, checked.value as Record<string, unknown>, options, runtime, metadata, started);
  }
  return afterValidation(tool, args, options, runtime, metadata, started);
}

function afterValidation(
  tool: PreparedTool,
  args: Record<string, unknown>,
  options: CallOptions | undefined,
  runtime: DispatchRuntime,
  metadata: ResultMetadata,
  started: number,
): Promise<ToolResult> {
  const spec = tool.spec;
  const env = options?.context?.env ?? runtime.env;
  for (const variable of tool.requiredEnv) {
    const value = env[variable.name];
    if (value === undefined || value === '') {
      return Promise.resolve(finish(missingCredentials(spec.name, variable), metadata, started));
    }
  }
  if (tool.mayNeedApproval && runtime.approvalGate !== undefined) {
    const pending = runtime.approvalGate(tool, args, metadata, options?.context?.agentId);
    if (pending instanceof Promise) {
      // A database-backed approval store: answer once the approval is stored, so it can be decided.
      return pending.then(
        (result) => finish(result, metadata, started),
        (error: unknown) => finish(internalFailure(tool.spec.name, error), metadata, started),
      );
    }
    if (pending !== undefined) return Promise.resolve(finish(pending, metadata, started));
  }
  return execute(tool, args, options, runtime, metadata, started, env);
}

/** Run the handler under the deadline and the caller's signal (step 6), then check the output. */
export function execute(
  tool: PreparedTool,
  args: Record<string, unknown>,
  options: CallOptions | undefined,
  runtime: DispatchRuntime,
  metadata: ResultMetadata,
  started: number,
  env: Readonly<Record<string, string | undefined>> = runtime.env,
): Promise<ToolResult> {
  const spec = tool.spec;
  const signal = options?.signal;
  const context = new CallContext(spec.name, env, options?.toolCallId, signal, options?.context);
  let output: unknown;
  try {
    output = spec.handler(args, context);
  } catch (error) {
    return Promise.resolve(finish(executionFailed(spec.name, error), metadata, started));
  }
  if (output === null || typeof output !== 'object' || typeof (output as PromiseLike<unknown>).then !== 'function') {
    return Promise.resolve(finishOutput(tool, output, runtime, metadata, started));
  }
  const timeoutMs = validTimeout(options?.timeoutMs) ?? spec.timeoutMs ?? runtime.defaultTimeoutMs;
  if (timeoutMs === Number.POSITIVE_INFINITY && signal === undefined) {
    return Promise.resolve(output as PromiseLike<unknown>).then(
      (value) => finishOutputSafely(tool, value, runtime, metadata, started),
      (error: unknown) => finish(executionFailed(spec.name, error), metadata, started),
    );
  }
  return settle(output as PromiseLike<unknown>, tool, context, timeoutMs, signal, runtime, metadata, started);
}

/**
 * Wait for an async handler under its deadline and the caller's signal, resolving to the final
 * result: one promise per call, whichever of output, deadline and abort comes first wins.
 */
// A per-call timeout that is not a positive number is ignored (the tool's or registry's applies):
// dispatch never throws, and a NaN must not disable the deadline.
function validTimeout(value: number | undefined): number | undefined {
  return typeof value === 'number' && value > 0 ? value : undefined;
}

function finishOutputSafely(
  tool: PreparedTool,
  value: unknown,
  runtime: DispatchRuntime,
  metadata: ResultMetadata,
  started: number,
): ToolResult {
  try {
    return finishOutput(tool, value, runtime, metadata, started);
  } catch (error) {
    return finish(internalFailure(tool.spec.name, error), metadata, started);
  }
}

function settle(
  pending: PromiseLike<unknown>,
  tool: PreparedTool,
  context: CallContext,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  runtime: DispatchRuntime,
  metadata: ResultMetadata,
  started: number,
): Promise<ToolResult> {
  const spec = tool.spec;
  return new Promise<ToolResult>((resolve) => {
    // Whichever of output, deadline and abort comes first settles the call; the others find `done`.
    let done = false;
    let deadline: Deadline;
    let onAbort: (() => void) | undefined;
    const settleWith = (result: ToolResult) => {
      done = true;
      deadline.cancel();
      if (onAbort !== undefined) signal!.removeEventListener('abort', onAbort);
      resolve(result);
    };
    // `capped`: the timer that fired was the maxTotalMs cap, not the (extended) timeout.
    const onTimeout = (capped = false) => {
      if (done) return;
      context.abort(new TimeoutError(`Tool '${spec.name}' timed out after ${timeoutMs} ms.`));
      settleWith(finish(timeoutResult(spec.name, timeoutMs, spec, capped), metadata, started));
    };
    if (spec.resetOnProgress === true) deadline = progressDeadline(context, timeoutMs, spec, started, onTimeout);
    else if (timeoutMs === Number.POSITIVE_INFINITY) deadline = NO_DEADLINE;
    else deadline = runtime.deadlines.add(timeoutMs, started, onTimeout);
    if (signal !== undefined) {
      onAbort = () => {
        if (done) return;
        context.abort(signal.reason);
        settleWith(finish(cancelledResult(spec.name, signal), metadata, started));
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }
    pending.then(
      (value) => {
        if (!done) settleWith(finishOutputSafely(tool, value, runtime, metadata, started));
      },
      (error: unknown) => {
        if (!done) settleWith(finish(executionFailed(spec.name, error), metadata, started));
      },
    );
  });
}

const NO_DEADLINE: Deadline = { cancel: () => undefined };

/** A plain timer that each progress report pushes back, capped by `maxTotalMs` (the rare path). */
function progressDeadline(
  context: CallContext,
  timeoutMs: number,
  spec: ToolSpec,
  started: number,
  onTimeout: (capped: boolean) => void,
): Deadline {
  const cap = started + (spec.maxTotalMs ?? Number.POSITIVE_INFINITY);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const arm = () => {
    if (timer !== undefined) clearTimeout(timer);
    const untilCap = cap - clock.now();
    const capped = untilCap <= timeoutMs;
    timer = setTimeout(() => onTimeout(capped), Math.max(0, capped ? untilCap : timeoutMs));
  };
  arm();
  context.onProgressTick = () => {
    if (!stopped) arm();
  };
  return {
    cancel: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** The error a handler's `ctx.signal` is aborted with when its deadline passes. */
export class TimeoutError extends ToolshedError<'TIMEOUT'> {
  constructor(message: string) {
    super('TIMEOUT', message);
    this.name = 'TimeoutError';
  }
}

function finishOutput(
  tool: PreparedTool,
  output: unknown,
  runtime: DispatchRuntime,
  metadata: ResultMetadata,
  started: number,
): ToolResult {
  const spec = tool.spec;
  let result: ToolResult;
  if (ToolResult.isToolResult(output)) {
    result = output;
    if (result.status !== 'success') return finish(result, metadata, started);
  } else {
    result = { status: 'success', data: output, metadata };
  }
  if (tool.validateOutput !== undefined && result.data !== undefined) {
    const issues = tool.validateOutput(result.data);
    if (issues !== undefined) {
      return finish(
        ToolResult.error(
          'OUTPUT_INVALID',
          `Tool '${spec.name}' returned output that does not match its output schema: ${issues
            .slice(0, 3)
            .map((issue) => issue.message.replace(/^the arguments /, 'the output '))
            .join('; ')}.`,
          {
            hint: 'This is a fault in the tool, not in your arguments; try another approach.',
            details: issueDetails(issues),
          },
        ),
        metadata,
        started,
      );
    }
  }
  const limit = spec.maxOutputChars ?? runtime.maxOutputChars;
  if (limit !== undefined && result.data !== undefined) {
    const capped = capOutput(spec.name, result.data, limit, runtime.outputs);
    if (capped !== undefined) {
      if ('failure' in capped) return finish(capped.failure, metadata, started);
      result = { ...result, data: capped.text };
      metadata.truncated = true;
      metadata.outputHandle = capped.handle;
    }
  }
  return finish(result, metadata, started);
}

function capOutput(
  toolName: string,
  data: unknown,
  limit: number,
  outputs: OutputStore,
): { text: string; handle: string } | { failure: ToolFailure } | undefined {
  if (typeof data === 'string' && data.length <= limit) return undefined;
  const text = typeof data === 'string' ? data : stringifyData(data);
  if (text.length <= limit) return undefined;
  if (text.length > outputs.capacityChars) {
    return {
      failure: ToolResult.error(
        'OUTPUT_TOO_LARGE',
        `Tool '${toolName}' returned ${text.length} characters, more than the ${outputs.capacityChars} that can be kept.`,
        { hint: 'Ask for less: narrow the query or request a smaller range.' },
      ),
    };
  }
  const handle = outputs.put(toolName, text);
  const head = Math.ceil(limit * 0.7);
  const tail = limit - head;
  const omitted = text.length - head - tail;
  const marker = `\n\n[... ${omitted} characters truncated; call read_tool_output with {"handle": "${handle}", "offset": ${head}} to read them ...]\n\n`;
  return { text: text.slice(0, head) + marker + (tail > 0 ? text.slice(text.length - tail) : ''), handle };
}

function finish(result: ToolResult, metadata: ResultMetadata, started: number): ToolResult {
  if (result.metadata !== metadata) {
    // A handler-built result: keep its own metadata, but the dispatcher's fields win.
    const own = result.metadata;
    for (const key in own) if (key !== 'tool' && key !== 'durationMs' && !(key in metadata)) metadata[key] = own[key];
    result = { ...result, metadata };
  }
  metadata.durationMs = clock.now() - started;
  return result;
}

function extraArgsFailure(spec: ToolSpec, extra: string[]): ToolFailure {
  const accepted = Object.keys(spec.inputSchema.properties);
  const list = extra.map((key) => `'${key}'`).join(', ');
  return ToolResult.error(
    'INVALID_ARGUMENTS',
    `Invalid arguments for '${spec.name}': unexpected argument${extra.length === 1 ? '' : 's'} ${list}; accepted arguments are ${accepted.length > 0 ? accepted.join(', ') : 'none'}.`,
    { hint: expectedArguments(spec.inputSchema), details: { unexpected: extra } },
  );
}

/** `INVALID_ARGUMENTS` for schema issues: the first three, in one sentence, plus the expected shape. */
export function invalidArguments(spec: ToolSpec, issues: readonly ValidationIssue[]): ToolFailure {
  const shown = issues.slice(0, 3).map((issue) => issue.message);
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return ToolResult.error('INVALID_ARGUMENTS', `Invalid arguments for '${spec.name}': ${shown.join('; ')}${more}.`, {
    hint: expectedArguments(spec.inputSchema),
    details: issueDetails(issues),
  });
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

function standardIssues(
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

function missingCredentials(toolName: string, variable: RequiredEnvVar): ToolFailure {
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

function executionFailed(toolName: string, error: unknown): ToolFailure {
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

function timeoutResult(toolName: string, timeoutMs: number, spec: ToolSpec, capped: boolean): ToolFailure {
  return ToolResult.error(
    'TIMEOUT',
    capped
      ? `Tool '${toolName}' ran past its total limit of ${spec.maxTotalMs} ms.`
      : `Tool '${toolName}' timed out after ${timeoutMs} ms.`,
    {
      hint: 'Try again, or ask for less work in one call.',
      details: { timeoutMs, maxTotalMs: spec.maxTotalMs },
    },
  );
}

function cancelledResult(toolName: string, signal: AbortSignal | undefined): ToolFailure {
  const reason = signal?.reason;
  const why =
    reason instanceof Error && reason.name !== 'AbortError'
      ? `: ${reason.message}`
      : typeof reason === 'string'
        ? `: ${reason}`
        : '';
  return ToolResult.error('CANCELLED', `The call to '${toolName}' was cancelled${why}.`);
}

function internalFailure(toolName: string, error: unknown): ToolFailure {
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

function isPlainPrototype(value: object): boolean {
  // Read through the `__proto__` accessor first: for argument shapes the call site has seen, the
  // optimiser folds it to a constant, where Object.getPrototypeOf is a call into the runtime. An own
  // `__proto__` key (JSON.parse makes those) or a null prototype falls through to the exact check.
  // biome-ignore lint/suspicious/noProto: a read only, backed by the exact check below.
  if ((value as { __proto__?: unknown }).__proto__ === Object.prototype) return true;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function structuredCloneSafe(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return { ...(value as object) };
  }
}

/** Fill `durationMs` for results built outside the pipeline (lookups that failed). */
export function stampResult(result: ToolResult, toolName: string, started: number, toolCallId?: string): ToolResult {
  const metadata: ResultMetadata = { tool: toolName, durationMs: 0 };
  if (toolCallId !== undefined) metadata.toolCallId = toolCallId;
  return finish(result, metadata, started);
}

/** The `TOOL_NOT_FOUND` result for `name`: closest names first, then (a capped list of) all names. */
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
