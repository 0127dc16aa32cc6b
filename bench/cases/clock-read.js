// (t) One read of the clock dispatch uses for metadata.durationMs (`performance.now()`). registry.call
// reads it twice per call, at the start and at the end, so 2 × t of e − d is the price of durationMs.
import { runDispatchCase } from '../lib/add-tool.js';
import { check } from '../lib/case.js';

const clock = globalThis.performance;

await runDispatchCase('clock-read', async () => ({
  call: () => clock.now(),
  async: false,
  verify: async () => {
    const first = clock.now();
    check(typeof first === 'number' && clock.now() >= first, 'performance.now() is not a monotonic number');
  },
}));
