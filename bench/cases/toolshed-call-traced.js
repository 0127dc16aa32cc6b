// (e‴) registry.call again (sync handler, object arguments), with an OpenTelemetry SDK registered:
// every call makes and ends a sampled `execute_tool` span, which no exporter sends anywhere (the cost
// of tracing on, without the network). Row e is the same call with the API loaded and no SDK.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { ADD_ARGS, add, runDispatchCase } from '../lib/add-tool.js';
import { check } from '../lib/case.js';
import { createAddRegistry, verifyAddRegistry } from '../lib/toolshed-add.js';

await runDispatchCase('toolshed-call-traced', async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  let ended = 0;
  const provider = new BasicTracerProvider({
    spanProcessors: [
      {
        onStart: () => undefined,
        onEnd: () => {
          ended += 1;
        },
        forceFlush: async () => undefined,
        shutdown: async () => undefined,
      },
    ],
  });
  check(trace.setGlobalTracerProvider(provider), 'the tracer provider could not be registered');
  const registry = createAddRegistry({ handler: add });
  return {
    call: () => registry.call('add', ADD_ARGS),
    async: true,
    verify: async () => {
      await verifyAddRegistry(registry, ADD_ARGS);
      check(ended === 2, `expected 2 spans from the checks, got ${ended}`);
    },
  };
});
