import {
  type Context,
  context,
  ProxyTracerProvider,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { ToolResult } from './tool-result.js';

// Tool calls as OpenTelemetry spans (docs/observability.md). Everything here goes through the
// `@opentelemetry/api` globals, so whatever SDK the application registers receives the spans, and
// with none registered no span is made at all: `activeTracer()` answers undefined after two property
// reads, which is what keeps dispatch's cost the same without an SDK.

/**
 * The instrumentation scope of toolshed's spans (`otel.scope.name`), to tell them apart in an
 * exporter that receives other libraries' spans too.
 *
 * @example
 * ```ts
 * const ours = exporter.getFinishedSpans().filter((span) => span.instrumentationScope.name === TRACER_NAME);
 * ```
 */
export const TRACER_NAME = 'toolshed';

// The no-op provider the API's proxy falls back to while no SDK is registered: one shared instance.
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

// Where `@opentelemetry/api` 1.x keeps what is registered (tracer provider, propagator, context
// manager), shared by every copy of the API in the process.
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');
type OtelGlobals = { [API_GLOBAL]?: { trace?: unknown } };

let knownDelegate: TracerProvider = NOOP_PROVIDER;
let knownTracer: Tracer | undefined;

/**
 * The tracer of the globally registered tracer provider, or `undefined` when none is registered (then
 * no span should be made). Cheap enough to ask once per call: the tracer is kept until the registered
 * provider changes.
 *
 * @example
 * ```ts
 * const tracer = activeTracer();
 * const span = tracer?.startSpan('work');
 * span?.end();
 * ```
 */
export function activeTracer(): Tracer | undefined {
  // Tracing off, the common case, answered by one property read: no tracer provider is registered in
  // the API's global registry (what `trace.getTracerProvider()` reads, plus a version check).
  if ((globalThis as OtelGlobals)[API_GLOBAL]?.trace === undefined) return undefined;
  const provider = trace.getTracerProvider();
  const delegate = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  if (delegate !== knownDelegate) {
    knownDelegate = delegate;
    knownTracer = delegate === NOOP_PROVIDER ? undefined : delegate.getTracer(TRACER_NAME);
  }
  return knownTracer;
}

/**
 * Facts about a call that its span carries; see {@link startToolSpan}.
 *
 * @example
 * ```ts
 * const info: ToolSpanInfo = { tool: 'delete_file', toolCallId: 'call_9', approvalId: 'appr_1' };
 * ```
 */
export interface ToolSpanInfo {
  /** The tool's name as called (`gen_ai.tool.name`). */
  tool: string;
  /** The model's id for the call (`gen_ai.tool.call.id`), when the caller gave one. */
  toolCallId?: string | undefined;
  /** The tool's description (`gen_ai.tool.description`), when the tool exists. */
  description?: string | undefined;
  /** The approval whose decision runs this call (`toolshed.approval.id`). */
  approvalId?: string | undefined;
}

/**
 * Start the `execute_tool {name}` span of one tool call (GenAI semantic conventions) as a child of
 * the active context's span, and answer it with the context that makes it the parent of what the
 * tool does (REST requests, sandbox runs, upstream MCP calls). End it with {@link endToolSpan}.
 *
 * @example
 * ```ts
 * const tracer = activeTracer();
 * if (tracer !== undefined) {
 *   const { span } = startToolSpan(tracer, { tool: 'add', toolCallId: 'call_1' });
 *   endToolSpan(span, ToolResult.success(3));
 * }
 * ```
 */
export function startToolSpan(tracer: Tracer, info: ToolSpanInfo): { span: Span; context: Context } {
  const parent = context.active();
  const span = tracer.startSpan(
    `execute_tool ${info.tool}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': info.tool,
        'gen_ai.tool.type': 'function',
        ...(info.toolCallId === undefined ? {} : { 'gen_ai.tool.call.id': info.toolCallId }),
        ...(info.description === undefined ? {} : { 'gen_ai.tool.description': info.description }),
        ...(info.approvalId === undefined ? {} : { 'toolshed.approval.id': info.approvalId }),
      },
    },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}

/**
 * Record a call's result on its span and end it: `toolshed.status` always; for a failure (status
 * `error`, `timeout` or `cancelled`) `toolshed.error.code`, `error.type` (the same code) and the span
 * status `ERROR` with the message.
 *
 * @example
 * ```ts
 * endToolSpan(span, ToolResult.error('TIMEOUT', "Tool 'slow' timed out after 50 ms."));
 * // span: toolshed.status=error, toolshed.error.code=TIMEOUT, error.type=TIMEOUT, status ERROR
 * ```
 */
export function endToolSpan(span: Span, result: ToolResult): void {
  span.setAttribute('toolshed.status', result.status);
  // Every failure, a timeout and a cancellation (a denied approval) too, names its code.
  if (result.status === 'error' || result.status === 'timeout' || result.status === 'cancelled') {
    span.setAttribute('toolshed.error.code', result.error.code);
    span.setAttribute('error.type', result.error.code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.message });
  }
  span.end();
}

/**
 * Run one tool call (`call`, which never rejects) inside its `execute_tool {name}` span: the span is
 * the active one while the call runs, so what the tool does becomes its children, and it ends with
 * the call's result (see {@link endToolSpan}).
 *
 * @example
 * ```ts
 * const tracer = activeTracer();
 * if (tracer !== undefined) await traceToolCall(tracer, { tool: 'add' }, () => registry.call('add', { a: 1, b: 2 }));
 * ```
 */
export function traceToolCall(
  tracer: Tracer,
  info: ToolSpanInfo,
  call: () => Promise<ToolResult>,
): Promise<ToolResult> {
  const { span, context: inside } = startToolSpan(tracer, info);
  return context.with(inside, call).then(
    (result) => {
      endToolSpan(span, result);
      return result;
    },
    (error: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.end();
      throw error;
    },
  );
}

/**
 * Run `work` inside a span named `name` (a child of the active span) when a tracer provider is
 * registered, else just run it. The span ends when `work` settles; a rejection records the error
 * (`error.type` is the error's name) and is passed on. `work` may set attributes on the span it gets.
 *
 * @example
 * ```ts
 * const outcome = await withSpan('sandbox.run python', { 'toolshed.sandbox.language': 'python' }, () => pool.run(code));
 * ```
 */
export async function withSpan<T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  work: (span: Span | undefined) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  const tracer = activeTracer();
  if (tracer === undefined) return work(undefined);
  const parent = context.active();
  const span = tracer.startSpan(name, { kind, attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    span.setAttribute('error.type', error instanceof Error ? error.name : typeof error);
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Add the active trace context to `carrier` (`traceparent`, and `tracestate` when there is one) with
 * the registered propagator, for an outbound HTTP request's headers or an MCP request's `_meta`.
 * Without a registered propagator or an active span, nothing is added.
 *
 * @example
 * ```ts
 * const headers: Record<string, string> = {};
 * injectTraceContext(headers); // headers.traceparent === '00-<trace id>-<span id>-01' inside a span
 * ```
 */
export function injectTraceContext(carrier: Record<string, unknown>): void {
  propagation.inject(context.active(), carrier);
}

const recordGetter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    if (!Object.hasOwn(carrier, key)) return undefined;
    const value = carrier[key];
    if (typeof value === 'string') return value;
    // A repeated HTTP header arrives as a list; trace context takes the first.
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
    return undefined;
  },
};

/**
 * The context a request carries in `carrier` (HTTP headers with lower-case names, or an MCP
 * request's `_meta`), read with the registered propagator on top of the active context. Values that
 * are not strings are ignored, and so is a malformed `traceparent` (the W3C propagator drops it).
 *
 * @example
 * ```ts
 * const parent = extractTraceContext({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
 * await context.with(parent, () => registry.call('add', { a: 1, b: 2 }));
 * ```
 */
export function extractTraceContext(carrier: Readonly<Record<string, unknown>> | undefined): Context {
  const active = context.active();
  if (carrier === undefined || carrier === null || typeof carrier !== 'object') return active;
  return propagation.extract(active, carrier, recordGetter);
}

/**
 * Run `work` in the trace context `carrier` holds (see {@link extractTraceContext}). Without a
 * registered tracer provider it just runs `work`.
 *
 * @example
 * ```ts
 * const result = await inTraceContext(request.headers, () => registry.call('add', { a: 1, b: 2 }));
 * ```
 */
export function inTraceContext<T>(carrier: Readonly<Record<string, unknown>> | undefined, work: () => T): T {
  if (activeTracer() === undefined) return work();
  return context.with(extractTraceContext(carrier), work);
}

export { SpanKind, SpanStatusCode };
