// (e₀) registry.call('add', {a, b}) as in row e, with tracing compiled out: a loader hook gives this
// process a dist/core/tracing.js whose activeTracer() answers undefined without looking for an SDK.
// Row e runs the real check with @opentelemetry/api loaded and no SDK registered, so e ÷ e₀ is what
// tracing costs a call when nobody traces.
import { register } from 'node:module';

register('../lib/without-tracing-hook.js', import.meta.url);
const { ADD_ARGS, add, runDispatchCase } = await import('../lib/add-tool.js');
const { createAddRegistry, verifyAddRegistry } = await import('../lib/toolshed-add.js');
const { trace } = await import('@opentelemetry/api');
const { BasicTracerProvider } = await import('@opentelemetry/sdk-trace-base');
const { check } = await import('../lib/case.js');

await runDispatchCase('toolshed-call-untraced', async () => {
  const registry = createAddRegistry({ handler: add });
  return {
    call: () => registry.call('add', ADD_ARGS),
    async: true,
    verify: async () => {
      await verifyAddRegistry(registry, ADD_ARGS);
      // The hook took effect: with an SDK registered, this registry still makes no span.
      let started = 0;
      const provider = new BasicTracerProvider({
        spanProcessors: [
          {
            onStart: () => {
              started += 1;
            },
            onEnd: () => undefined,
            forceFlush: async () => undefined,
            shutdown: async () => undefined,
          },
        ],
      });
      check(trace.setGlobalTracerProvider(provider), 'the tracer provider could not be registered');
      await registry.call('add', ADD_ARGS);
      check(started === 0, `the tracing check was not compiled out: ${started} span(s) started`);
      trace.disable();
    },
  };
});
