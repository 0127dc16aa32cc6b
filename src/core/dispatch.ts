import { type ApprovalRule, type ApprovalStore, requestApproval } from './approvals.js';
import { CallContext, type CallContextOptions } from './call-context.js';
import { type Deadline, DeadlineEntry, type DeadlineQueue } from './deadline-queue.js';
import {
  cancelledFailure,
  executionFailed,
  extraArgsFailure,
  internalFailure,
  invalidArguments,
  missingCredentials,
  outputInvalidFailure,
  standardSchemaFailure,
  timeoutFailure,
} from './errors/failures.js';
import { TimeoutError } from './errors/timeout-error.js';
import { capOutput } from './output-budget.js';
import type { OutputStore } from './output-store.js';
import { checkArgumentDepth, copyArguments, isPlainPrototype, parseArguments } from './parse-arguments.js';
import { type ResultMetadata, type ToolFailure, ToolResult, type ToolSuccess } from './tool-result.js';
import type { RequiredEnvVar, ToolSpec } from './tool-spec.js';
import { activeTracer, traceToolCall } from './tracing.js';
import type { CompiledValidator, ValidationIssue } from './validation-issue.js';

// One tool call, from the arguments a model sent to the result it reads (SPEC §3.4). The registry
// finds the tool by name; everything after that happens here, in this order:
//
//   parse → validate → approve → execute → check output → budget → finish
//
// Each step is a function of the call's state (a `Call`) that hands the call to the next step, or
// finishes it with a failure. A step answers with the result itself while everything stays
// synchronous, and with a promise only from the point something awaits (a validator still loading,
// an async Standard Schema, a database-backed approval store, an async handler), so a call whose
// handler is sync allocates one promise, at the very end. See docs/decisions/001-dispatch-hot-path.md.

/** Options of one call: cancellation, deadline and what the caller offers the handler. */
export interface CallOptions {
  /** Aborting it cancels the call (`CANCELLED`) and aborts the handler's `ctx.signal`. */
  signal?: AbortSignal;
  /** Overrides the tool's and the registry's timeout for this call. */
  timeoutMs?: number;
  /** The model's id for this tool call, echoed in metadata and `ctx.toolCallId`. */
  toolCallId?: string;
  context?: CallContextOptions;
  /**
   * Asked once before the call runs, inside its span and after the hooks' `before`: a result returned
   * (a `RATE_LIMITED` refusal, say) ends the call with it, as its result, without running the tool;
   * `undefined` lets the call go on. A throw ends the call with an internal failure. The refused call
   * still passes the hooks' `after` and ends its span, so whatever observes calls sees it once.
   *
   * @example
   * ```ts
   * await registry.call('search', { query: 'x' }, {
   *   admit: () => (quota.full() ? ToolResult.error('RATE_LIMITED', 'Too many calls running.') : undefined),
   * });
   * ```
   */
  admit?: () => ToolResult | undefined | Promise<ToolResult | undefined>;
}

/** What middleware sees of a call. */
export interface CallInfo {
  tool: string;
  args: unknown;
  toolCallId: string | undefined;
  options: CallOptions;
  /** Set when the call is the run of a call a person approved: the approval's id. */
  approvalId?: string;
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

/** A listener told when a hook (or another listener) fails; see `registry.on('hook-error')`. */
export type HookErrorListener = (error: unknown, hook: CallHook, call: CallInfo) => void;

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

/**
 * Registry-wide settings and services of the dispatcher: data only, so core never calls back into
 * the layers above it.
 */
export interface DispatchRuntime {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly defaultTimeoutMs: number;
  readonly extraArgs: 'drop' | 'reject';
  readonly maxOutputChars: number | undefined;
  readonly outputs: OutputStore;
  readonly deadlines: DeadlineQueue;
  readonly hooks: readonly CallHook[];
  /** Told when a hook fails; with none, the failure is written to `console.warn`. */
  readonly hookErrorListeners: ReadonlySet<HookErrorListener>;
  /** Which calls need approval beyond the tools marked `requiresApproval`. */
  readonly approvalRule: ApprovalRule | undefined;
  /** Where calls waiting for approval are kept. */
  readonly approvals: ApprovalStore;
  /**
   * Arguments with the nulls a provider's strict mode sends for optional properties turned back into
   * absent keys (returns its argument when there is nothing to decode). Tried only when validation
   * fails, so valid calls never pay for it.
   */
  readonly decodeNulls: ((spec: ToolSpec, args: Record<string, unknown>) => Record<string, unknown>) | undefined;
}

/** What a step answers: the result, or a promise of it once something was awaited. */
type Outcome = ToolResult | Promise<ToolResult>;

// `performance` is a lazy global getter in Node; holding the object saves ~10 ns a read, and the
// dispatcher reads the clock twice per call.
const clock = globalThis.performance;

/** The state of one call, handed from step to step. */
class Call {
  readonly tool: PreparedTool;
  readonly runtime: DispatchRuntime;
  readonly options: CallOptions | undefined;
  /** `clock.now()` when the call began; `metadata.durationMs` counts from here. */
  readonly started: number;
  readonly metadata: ResultMetadata;
  args: Record<string, unknown>;
  env: Readonly<Record<string, string | undefined>>;

  constructor(
    tool: PreparedTool,
    options: CallOptions | undefined,
    runtime: DispatchRuntime,
    started: number,
    metadata: ResultMetadata,
  ) {
    this.tool = tool;
    this.options = options;
    this.runtime = runtime;
    this.started = started;
    this.metadata = metadata;
    this.args = EMPTY_ARGS;
    this.env = runtime.env;
  }
}

/**
 * A call waiting for its async handler: whichever of output, deadline and the caller's abort comes
 * first settles it, and the others find `settled` set. It is its own entry in the deadline queue, so
 * the deadline costs no allocation beyond it.
 */
class Waiting extends DeadlineEntry {
  // Set in the constructor rather than as class fields, as in `DeadlineEntry`: one is made for every
  // call to an async handler.
  declare readonly call: Call;
  declare readonly context: CallContext;
  declare readonly timeoutMs: number;
  declare settled: boolean;
  declare resolve: ((result: ToolResult) => void) | undefined;
  /** The deadline when it is not this entry (progress-extended deadlines). */
  declare ownDeadline: Deadline | undefined;
  declare onAbort: (() => void) | undefined;

  constructor(call: Call, context: CallContext, timeoutMs: number) {
    super();
    this.call = call;
    this.context = context;
    this.timeoutMs = timeoutMs;
    this.settled = false;
    this.resolve = undefined;
    this.ownDeadline = undefined;
    this.onAbort = undefined;
  }

  /** The deadline passed before the handler answered. */
  expire(): void {
    this.timedOut(false);
  }

  // `capped`: the timer that fired was the maxTotalMs cap, not the (extended) timeout.
  timedOut(capped: boolean): void {
    if (this.settled) return;
    const spec = this.call.tool.spec;
    this.context.abort(new TimeoutError(`Tool '${spec.name}' timed out after ${this.timeoutMs} ms.`));
    this.settle(finish(this.call, timeoutFailure(spec, this.timeoutMs, capped)));
  }

  /** Resolve the caller's promise, stop the deadline and stop listening to the caller's signal. */
  settle(result: ToolResult): void {
    this.settled = true;
    if (this.ownDeadline === undefined) this.cancel();
    else this.ownDeadline.cancel();
    if (this.onAbort !== undefined) this.call.options?.signal?.removeEventListener('abort', this.onAbort);
    this.resolve?.(result);
  }
}

const EMPTY_ARGS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

function metadataFor(toolName: string, options: CallOptions | undefined): ResultMetadata {
  const metadata: ResultMetadata = { tool: toolName, durationMs: 0 };
  const toolCallId = options?.toolCallId;
  if (toolCallId !== undefined) metadata.toolCallId = toolCallId;
  return metadata;
}

/**
 * Run one call of a found tool through the pipeline. Never throws and never rejects: every failure
 * is a {@link ToolResult}.
 *
 * @example
 * ```ts
 * const result = await dispatchCall(prepareTool(spec), '{"a": 1}', undefined, runtime);
 * ```
 */
export function dispatchCall(
  tool: PreparedTool,
  rawArgs: unknown,
  options: CallOptions | undefined,
  runtime: DispatchRuntime,
): Promise<ToolResult> {
  const started = clock.now();
  const admit = options?.admit;
  if (admit !== undefined) {
    return throughDoor(callInfo(tool.spec.name, rawArgs, options), tool.spec.description, runtime, () =>
      admitted(admit, tool.spec.name, options, started, () => run(tool, rawArgs, options, runtime, started)),
    );
  }
  if (runtime.hooks.length > 0 || activeTracer() !== undefined) {
    return throughDoor(callInfo(tool.spec.name, rawArgs, options), tool.spec.description, runtime, () =>
      run(tool, rawArgs, options, runtime, started),
    );
  }
  const outcome = run(tool, rawArgs, options, runtime, started);
  return outcome instanceof Promise ? outcome : Promise.resolve(outcome);
}

function run(
  tool: PreparedTool,
  rawArgs: unknown,
  options: CallOptions | undefined,
  runtime: DispatchRuntime,
  started: number,
): Outcome {
  const call = new Call(tool, options, runtime, started, metadataFor(tool.spec.name, options));
  let outcome: Outcome;
  try {
    outcome = parse(call, rawArgs);
  } catch (error) {
    // A broken tool schema, or a bug in toolshed itself: still a result, never a throw.
    return stampResult(internalFailure(tool.spec.name, error), tool.spec.name, started, options?.toolCallId);
  }
  return outcome;
}

/** Ask the call's `admit` option first: a result it gives ends the call (stamped), none runs `next`. */
function admitted(
  admit: NonNullable<CallOptions['admit']>,
  name: string,
  options: CallOptions | undefined,
  started: number,
  next: () => Outcome,
): Outcome {
  const refuse = (result: ToolResult) => stampResult(result, name, started, options?.toolCallId);
  const broken = (error: unknown) => refuse(internalFailure(name, error));
  let verdict: ReturnType<typeof admit>;
  try {
    verdict = admit();
  } catch (error) {
    return broken(error);
  }
  if (verdict instanceof Promise) {
    return verdict.then((result) => (result === undefined ? next() : refuse(result)), broken);
  }
  return verdict === undefined ? next() : refuse(verdict);
}

/**
 * Continue a call once `pending` settles (the rare steps that wait for something before the handler).
 * A rejection, or a throw in `next`, ends the call with an internal failure, as a throw in a
 * synchronous step does.
 */
function resume<T>(call: Call, pending: Promise<T>, next: (value: T) => Outcome): Promise<ToolResult> {
  return pending
    .then(next)
    .then(undefined, (error: unknown) => finish(call, internalFailure(call.tool.spec.name, error)));
}

/**
 * Run a call a person approved: its stored arguments, already validated when it was requested, go
 * straight to the handler, through the same door as every call (the hooks' `before` and `after`, whose
 * {@link CallInfo} carries `approvalId`, and the `execute_tool` span). `metadata` and `started` are
 * the approval's.
 *
 * @example
 * ```ts
 * const result = await runApproved(tool, { path: '/tmp/x' }, {}, runtime, { tool: 'delete', durationMs: 0 }, performance.now());
 * ```
 */
export function runApproved(
  tool: PreparedTool,
  args: Record<string, unknown>,
  options: CallOptions,
  runtime: DispatchRuntime,
  metadata: ResultMetadata,
  started: number,
): Promise<ToolResult> {
  const execution = () => {
    const call = new Call(tool, options, runtime, started, metadata);
    call.args = args;
    return execute(call);
  };
  const info = callInfo(tool.spec.name, args, options);
  if (typeof metadata.approvalId === 'string') info.approvalId = metadata.approvalId;
  // The same door as every other call: hooks, the span, and what observes them see the approved run.
  return throughDoor(info, tool.spec.description, runtime, execution);
}

/**
 * Deliver a result decided before dispatch (an unknown tool, a factory that failed, a denied
 * approval, whose id `approvalId` gives the hooks and the span) through the registry's hooks and the
 * call's span, so middleware sees every call.
 *
 * @example
 * ```ts
 * await deliverFailure('nope', {}, undefined, runtime, ToolResult.error('TOOL_NOT_FOUND', "Tool 'nope' not found."));
 * ```
 */
export function deliverFailure(
  name: string,
  rawArgs: unknown,
  options: CallOptions | undefined,
  runtime: DispatchRuntime,
  failure: ToolFailure,
  approvalId?: string,
): Promise<ToolResult> {
  const started = clock.now();
  if (runtime.hooks.length === 0 && activeTracer() === undefined) {
    return Promise.resolve(stampResult(failure, name, started, options?.toolCallId));
  }
  const info = callInfo(name, rawArgs, options);
  if (approvalId !== undefined) info.approvalId = approvalId;
  return throughDoor(info, undefined, runtime, () => stampResult(failure, name, started, options?.toolCallId));
}

function callInfo(name: string, rawArgs: unknown, options: CallOptions | undefined): CallInfo {
  return { tool: name, args: rawArgs, toolCallId: options?.toolCallId, options: options ?? {} };
}

/**
 * Where every call passes, whether run, refused before dispatch or approved: its span (when a tracer
 * provider is registered), inside which the hooks' `before`, the call and the hooks' `after` run.
 */
function throughDoor(
  info: CallInfo,
  description: string | undefined,
  runtime: DispatchRuntime,
  dispatch: () => Outcome,
): Promise<ToolResult> {
  const tracer = activeTracer();
  const hooked = runtime.hooks.length > 0;
  if (tracer === undefined) return hooked ? withHooks(info, runtime, dispatch) : settled(dispatch());
  return traceToolCall(
    tracer,
    { tool: info.tool, toolCallId: info.toolCallId, description, approvalId: info.approvalId },
    () => (hooked ? withHooks(info, runtime, dispatch) : settled(dispatch())),
  );
}

function settled(outcome: Outcome): Promise<ToolResult> {
  return outcome instanceof Promise ? outcome : Promise.resolve(outcome);
}

async function withHooks(info: CallInfo, runtime: DispatchRuntime, dispatch: () => Outcome): Promise<ToolResult> {
  for (const hook of runtime.hooks) {
    if (hook.before === undefined) continue;
    try {
      await hook.before(info);
    } catch (error) {
      reportHookError(runtime.hookErrorListeners, hook, error, info);
    }
  }
  const result = await dispatch();
  for (const hook of runtime.hooks) {
    if (hook.after === undefined) continue;
    try {
      await hook.after(info, result);
    } catch (error) {
      reportHookError(runtime.hookErrorListeners, hook, error, info);
    }
  }
  return result;
}

/**
 * Tell `listeners` that `hook` failed during `call`; with no listener, warn on the console. A
 * listener that throws is ignored: it has nowhere left to report to.
 *
 * @example
 * ```ts
 * reportHookError(new Set(), { name: 'metrics' }, new Error('down'), info);
 * // console.warn: toolshed: hook 'metrics' failed during 'add': Error: down
 * ```
 */
export function reportHookError(
  listeners: ReadonlySet<HookErrorListener>,
  hook: CallHook,
  error: unknown,
  call: CallInfo,
): void {
  if (listeners.size === 0) {
    console.warn(`toolshed: hook '${hook.name ?? 'anonymous'}' failed during '${call.tool}':`, error);
    return;
  }
  for (const listener of listeners) {
    try {
      listener(error, hook, call);
    } catch {
      // A failing error listener has nowhere left to report to.
    }
  }
}

// ─── parse ───────────────────────────────────────────────────────────────────────────────────────

/** A call already cancelled; arguments as an object or JSON text; not nested too deep; copied when validation will write defaults. */
function parse(call: Call, rawArgs: unknown): Outcome {
  const tool = call.tool;
  const name = tool.spec.name;
  const signal = call.options?.signal;
  if (signal?.aborted) return finish(call, cancelledFailure(name, signal));
  let args: Record<string, unknown>;
  let owned = false;
  if (typeof rawArgs === 'object' && rawArgs !== null && isPlainPrototype(rawArgs)) {
    args = rawArgs as Record<string, unknown>;
  } else {
    const parsed = parseArguments(name, rawArgs);
    if ('failure' in parsed) return finish(call, parsed.failure);
    args = parsed.args;
    owned = parsed.owned;
  }
  const tooDeep = checkArgumentDepth(name, args);
  if (tooDeep !== undefined) return finish(call, tooDeep);
  call.args = owned || tool.copyArgs === 'none' ? args : copyArguments(args, tool.copyArgs);
  return validate(call);
}

// ─── validate ────────────────────────────────────────────────────────────────────────────────────

/** The JSON Schema (defaults applied), then the tool's own Standard Schema, then its credentials. */
function validate(call: Call): Outcome {
  const issues = call.tool.validateInput(call.args);
  if (issues === undefined) return validateStandardSchema(call);
  if (issues instanceof Promise) {
    return resume(call, issues, (found) =>
      found === undefined ? validateStandardSchema(call) : invalidInput(call, found),
    );
  }
  return invalidInput(call, issues);
}

/**
 * Arguments the validator refused. Undeclared arguments are refused by the validator too (see
 * `prepareTool`), so they are looked for only here: dropped (and the rest validated again) or
 * rejected, as the tool says. Then nulls a strict provider sent for optional properties are decoded.
 */
function invalidInput(call: Call, issues: readonly ValidationIssue[]): Outcome {
  const tool = call.tool;
  const declared = tool.declaredArgs;
  let args = call.args;
  let extra: string[] | undefined;
  if (declared !== undefined) {
    for (const key in args) {
      if (!declared.has(key) && Object.hasOwn(args, key)) {
        extra ??= [];
        extra.push(key);
      }
    }
    if (extra !== undefined) {
      if ((tool.extraArgs ?? call.runtime.extraArgs) === 'reject')
        return finish(call, extraArgsFailure(tool.spec, extra));
      // Copied before validation when the tool has defaults, so the caller's object is not touched.
      const kept: Record<string, unknown> = {};
      for (const key in args) if (declared.has(key)) kept[key] = args[key];
      call.metadata.droppedArgs = extra;
      call.args = args = kept;
      // The validator is compiled by now (this runs after it answered), so this answers at once.
      const again = tool.validateInput(kept) as ReturnType<CompiledValidator>;
      if (again === undefined) return validateStandardSchema(call);
      issues = again;
    }
  }
  const decoded = decodeNullsIfValid(call);
  if (decoded === undefined) return finish(call, invalidArguments(tool.spec, issues, extra));
  call.args = decoded;
  return validateStandardSchema(call);
}

function decodeNullsIfValid(call: Call): Record<string, unknown> | undefined {
  const decodeNulls = call.runtime.decodeNulls;
  if (decodeNulls === undefined || !containsNull(call.args, 0)) return undefined;
  const decoded = decodeNulls(call.tool.spec, call.args);
  if (decoded === call.args) return undefined;
  return call.tool.validateInput(decoded) === undefined ? decoded : undefined;
}

function containsNull(value: unknown, depth: number): boolean {
  if (value === null) return true;
  if (typeof value !== 'object' || depth > 32) return false;
  for (const child of Object.values(value as object)) if (containsNull(child, depth + 1)) return true;
  return false;
}

/** A tool's own Standard Schema (zod refinements and transforms), whose output becomes the arguments. */
function validateStandardSchema(call: Call): Outcome {
  const spec = call.tool.spec;
  if (spec.input === undefined) return checkCredentials(call);
  const checked = spec.input['~standard'].validate(call.args);
  if (checked instanceof Promise) {
    return resume(call, checked, (outcome) => {
      if (outcome.issues !== undefined) return finish(call, standardSchemaFailure(spec, outcome.issues));
      call.args = outcome.value as Record<string, unknown>;
      return checkCredentials(call);
    });
  }
  if (checked.issues !== undefined) return finish(call, standardSchemaFailure(spec, checked.issues));
  call.args = checked.value as Record<string, unknown>;
  return checkCredentials(call);
}

/** Every environment variable the tool requires is set (in the call's environment, else the registry's). */
function checkCredentials(call: Call): Outcome {
  const env = call.options?.context?.env;
  if (env !== undefined) call.env = env;
  const required = call.tool.requiredEnv;
  for (let index = 0; index < required.length; index++) {
    const variable = required[index] as RequiredEnvVar;
    const value = call.env[variable.name];
    if (value === undefined || value === '') return finish(call, missingCredentials(call.tool.spec.name, variable));
  }
  return approve(call);
}

// ─── approve ─────────────────────────────────────────────────────────────────────────────────────

/** A call that needs a person's approval is stored and answered `pending_approval` instead of run. */
function approve(call: Call): Outcome {
  if (!call.tool.mayNeedApproval) return execute(call);
  const runtime = call.runtime;
  const pending = requestApproval(
    call.tool.spec,
    call.args,
    call.metadata,
    call.options?.context?.agentId,
    runtime.approvalRule,
    runtime.approvals,
  );
  if (pending === undefined) return execute(call);
  if (pending instanceof Promise) {
    // A database-backed approval store: answer once the approval is stored, so it can be decided.
    return resume(call, pending, (result) => finish(call, result));
  }
  return finish(call, pending);
}

// ─── execute ─────────────────────────────────────────────────────────────────────────────────────

/** Run the handler; a sync answer goes straight on, a promise is awaited under the deadline and the caller's signal. */
function execute(call: Call): Outcome {
  const spec = call.tool.spec;
  const options = call.options;
  const context = new CallContext(spec.name, call.env, options?.toolCallId, options?.signal, options?.context);
  let output: unknown;
  try {
    output = spec.handler(call.args, context);
  } catch (error) {
    return finish(call, executionFailed(spec.name, error));
  }
  if (output === null || typeof output !== 'object' || typeof (output as PromiseLike<unknown>).then !== 'function') {
    return checkOutput(call, output);
  }
  return awaitOutput(call, context, output as PromiseLike<unknown>);
}

// `new Promise(captureResolve)` hands its resolver over here: no closure per call.
let capturedResolve: ((result: ToolResult) => void) | undefined;
function captureResolve(resolve: (result: ToolResult) => void): void {
  capturedResolve = resolve;
}

/**
 * Wait for an async handler: one promise per call, settled by whichever of output, deadline and the
 * caller's abort comes first.
 */
function awaitOutput(call: Call, context: CallContext, pending: PromiseLike<unknown>): Promise<ToolResult> {
  const spec = call.tool.spec;
  const options = call.options;
  const signal = options?.signal;
  const timeoutMs = validTimeout(options?.timeoutMs) ?? spec.timeoutMs ?? call.runtime.defaultTimeoutMs;
  if (timeoutMs === Number.POSITIVE_INFINITY && signal === undefined) return awaitUnbounded(call, pending);
  const waiting = new Waiting(call, context, timeoutMs);
  const promise = new Promise<ToolResult>(captureResolve);
  waiting.resolve = capturedResolve;
  capturedResolve = undefined;
  if (spec.resetOnProgress === true) waiting.ownDeadline = progressDeadline(waiting);
  else if (timeoutMs !== Number.POSITIVE_INFINITY) call.runtime.deadlines.enqueue(timeoutMs, call.started, waiting);
  if (signal !== undefined) {
    const onAbort = () => {
      if (waiting.settled) return;
      context.abort(signal.reason);
      waiting.settle(finish(call, cancelledFailure(spec.name, signal)));
    };
    waiting.onAbort = onAbort;
    signal.addEventListener('abort', onAbort, { once: true });
  }
  pending.then(
    (output) => {
      if (!waiting.settled) waiting.settle(checkOutputSafely(call, output));
    },
    (error: unknown) => {
      if (!waiting.settled) waiting.settle(finish(call, executionFailed(spec.name, error)));
    },
  );
  return promise;
}

/** No deadline and no signal: nothing can settle the call but the handler. */
async function awaitUnbounded(call: Call, pending: PromiseLike<unknown>): Promise<ToolResult> {
  let output: unknown;
  try {
    output = await pending;
  } catch (error) {
    return finish(call, executionFailed(call.tool.spec.name, error));
  }
  return checkOutputSafely(call, output);
}

// A per-call timeout that is not a positive number is ignored (the tool's or registry's applies):
// dispatch never throws, and a NaN must not disable the deadline.
function validTimeout(value: number | undefined): number | undefined {
  return typeof value === 'number' && value > 0 ? value : undefined;
}

/** A plain timer that each progress report pushes back, capped by `maxTotalMs` (the rare path). */
function progressDeadline(waiting: Waiting): Deadline {
  const timeoutMs = waiting.timeoutMs;
  const cap = waiting.call.started + (waiting.call.tool.spec.maxTotalMs ?? Number.POSITIVE_INFINITY);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const arm = () => {
    if (timer !== undefined) clearTimeout(timer);
    const untilCap = cap - clock.now();
    const capped = untilCap <= timeoutMs;
    timer = setTimeout(() => waiting.timedOut(capped), Math.max(0, capped ? untilCap : timeoutMs));
  };
  arm();
  waiting.context.onProgressTick = () => {
    if (!stopped) arm();
  };
  return {
    cancel: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

// ─── check output ────────────────────────────────────────────────────────────────────────────────

/** A result the handler built passes as it is; plain output is wrapped and checked against the output schema. */
function checkOutput(call: Call, output: unknown): ToolResult {
  let result: ToolSuccess;
  if (ToolResult.isToolResult(output)) {
    if (output.status !== 'success') return finish(call, output);
    result = output;
  } else {
    result = { status: 'success', data: output, metadata: call.metadata };
  }
  const validateOutput = call.tool.validateOutput;
  if (validateOutput !== undefined && result.data !== undefined) {
    const issues = validateOutput(result.data);
    if (issues !== undefined) return finish(call, outputInvalidFailure(call.tool.spec.name, issues));
  }
  return budget(call, result);
}

function checkOutputSafely(call: Call, output: unknown): ToolResult {
  try {
    return checkOutput(call, output);
  } catch (error) {
    return finish(call, internalFailure(call.tool.spec.name, error));
  }
}

// ─── budget ──────────────────────────────────────────────────────────────────────────────────────

/** Output over the tool's (or registry's) character budget is truncated and kept for `read_tool_output`. */
function budget(call: Call, result: ToolSuccess): ToolResult {
  const spec = call.tool.spec;
  const limit = spec.maxOutputChars ?? call.runtime.maxOutputChars;
  if (limit === undefined || result.data === undefined) return finish(call, result);
  const capped = capOutput(spec.name, result.data, limit, call.runtime.outputs);
  if (capped === undefined) return finish(call, result);
  if ('failure' in capped) return finish(call, capped.failure);
  call.metadata.truncated = true;
  call.metadata.outputHandle = capped.handle;
  return finish(call, { ...result, data: capped.text });
}

// ─── finish ──────────────────────────────────────────────────────────────────────────────────────

/** Give the result the call's metadata and its duration. */
function finish(call: Call, result: ToolResult): ToolResult {
  return finishWith(result, call.metadata, call.started);
}

function finishWith(result: ToolResult, metadata: ResultMetadata, started: number): ToolResult {
  if (result.metadata !== metadata) {
    // A handler-built result: keep its own metadata, but the dispatcher's fields win.
    const own = result.metadata;
    for (const key in own) if (key !== 'tool' && key !== 'durationMs' && !(key in metadata)) metadata[key] = own[key];
    result = { ...result, metadata };
  }
  metadata.durationMs = clock.now() - started;
  return result;
}

/**
 * Fill `durationMs` (since `started`) for results built outside the pipeline (lookups that failed).
 *
 * @example
 * ```ts
 * const started = performance.now();
 * stampResult(ToolResult.error('TOOL_NOT_FOUND', "Tool 'x' not found."), 'x', started).metadata;
 * // { tool: 'x', durationMs: 0.01 }
 * ```
 */
export function stampResult(result: ToolResult, toolName: string, started: number, toolCallId?: string): ToolResult {
  return finishWith(result, metadataFor(toolName, { toolCallId }), started);
}
