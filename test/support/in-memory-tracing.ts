import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/**
 * An OpenTelemetry SDK registered globally for a test file, keeping every ended span in memory.
 *
 * @example
 * ```ts
 * const tracing: InMemoryTracing = startInMemoryTracing();
 * tracing.reset();
 * ```
 */
export interface InMemoryTracing {
  /** The spans ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** The ended spans named `name`. */
  named(name: string): ReadableSpan[];
  /** Forget the spans ended so far. */
  reset(): void;
  /** Unregister the SDK (the API is back to no-op). */
  stop(): Promise<void>;
}

/**
 * Register a tracer provider that exports to memory, the AsyncLocalStorage context manager and the
 * W3C trace-context propagator, as `toolshed serve` does with OTLP.
 *
 * @example
 * ```ts
 * const tracing = startInMemoryTracing();
 * await registry.call('add', { a: 1, b: 2 });
 * tracing.named('execute_tool add').length; // 1
 * await tracing.stop();
 * ```
 */
export function startInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (!trace.setGlobalTracerProvider(provider)) throw new Error('a tracer provider is already registered');
  return {
    spans: () => exporter.getFinishedSpans(),
    named: (name) => exporter.getFinishedSpans().filter((span) => span.name === name),
    reset: () => exporter.reset(),
    async stop() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/**
 * The id of a span's parent span, or undefined for a root span.
 *
 * @example
 * ```ts
 * expect(parentSpanId(child)).toBe(parent.spanContext().spanId);
 * ```
 */
export function parentSpanId(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
