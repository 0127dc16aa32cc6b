import { toolshedVersion } from '../../registry/toolshed-version.js';
import { CliError } from '../cli-error.js';
import { visible } from '../output.js';

/**
 * What {@link startTracing} registered: where the spans go, and how to flush and stop.
 *
 * @example
 * ```ts
 * const tracing: ServeTracing | undefined = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' });
 * tracing?.endpoint; // 'http://localhost:4318/v1/traces'
 * await tracing?.shutdown();
 * ```
 */
export interface ServeTracing {
  /** The URL the spans are posted to: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. */
  readonly endpoint: string;
  /** Export the spans still buffered, then stop exporting and unregister. */
  shutdown(): Promise<void>;
}

/**
 * Register the OpenTelemetry SDK for `toolshed serve` when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set and `OTEL_SDK_DISABLED` is not `true`: a tracer
 * provider that batches spans to the OTLP/HTTP exporter (JSON; the exporter reads the other
 * `OTEL_EXPORTER_OTLP_*` variables, such as headers and timeout), the AsyncLocalStorage context
 * manager, so a tool call's span is the parent of what the tool does, and the W3C trace-context and
 * baggage propagators, which read `traceparent` on requests and write it on outbound calls. The
 * resource is `service.name` (`OTEL_SERVICE_NAME`, default `toolshed`), `service.version` and
 * `OTEL_RESOURCE_ATTRIBUTES`. Without the variable it loads nothing and answers `undefined`: the SDK
 * packages are imported here, on demand, never by the library. An endpoint that is not an http(s) URL
 * is a {@link CliError} (exit 2) naming the variable.
 *
 * @example
 * ```ts
 * const tracing = await startTracing(process.env);
 * // ... serve ...
 * await tracing?.shutdown();
 * ```
 */
export async function startTracing(
  env: Readonly<Record<string, string | undefined>>,
  version: string = toolshedVersion(),
): Promise<ServeTracing | undefined> {
  const own = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if ((own ?? base) === undefined || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const variable = own === undefined ? 'OTEL_EXPORTER_OTLP_ENDPOINT' : 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT';
  const given = (own ?? base) as string;
  if (!URL.canParse(given) || !['http:', 'https:'].includes(new URL(given).protocol)) {
    throw new CliError(
      `error: ${variable} must be an http:// or https:// URL of an OTLP/HTTP collector (such as http://localhost:4318), got '${visible(given)}'.`,
      2,
    );
  }
  // The signal's own endpoint is used as it is; the general one gets the traces path, as the exporter does.
  const endpoint = own ?? `${given.replace(/\/+$/, '')}/v1/traces`;
  const [api, { AsyncLocalStorageContextManager }, core, resources, sdk, { OTLPTraceExporter }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  // OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES, as the specification says.
  const serviceName = nonEmpty(env.OTEL_SERVICE_NAME);
  const resource = resources
    .resourceFromAttributes({ 'service.name': 'toolshed', 'service.version': version })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
    .merge(resources.resourceFromAttributes(serviceName === undefined ? {} : { 'service.name': serviceName }));
  // The SDK's own OTEL_* variables apply too: OTEL_TRACES_SAMPLER, OTEL_BSP_SCHEDULE_DELAY, ...
  const provider = new sdk.BasicTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(new OTLPTraceExporter({ url: endpoint }))],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  api.context.setGlobalContextManager(contextManager);
  api.propagation.setGlobalPropagator(
    new core.CompositePropagator({
      propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()],
    }),
  );
  api.trace.setGlobalTracerProvider(provider);
  return {
    endpoint,
    async shutdown() {
      try {
        await provider.shutdown();
      } finally {
        api.trace.disable();
        api.propagation.disable();
        api.context.disable();
      }
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
