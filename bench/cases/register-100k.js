// Registry scale: register 100 000 distinct tools (defineTool + registry.register timed together),
// then the first call of a fresh tool (lazy schema compile), list() and a warm call at that size.
import { defineTool, ToolRegistry } from '../../dist/index.js';
import { check, runCase } from '../lib/case.js';
import { smallSchema, smallSchemaArgs } from '../lib/fixtures.js';
import { elapsedNs, measureCall, medianOfRounds } from '../lib/timing.js';

const COUNT = 100_000;
const CATEGORIES = ['filesystem', 'code', 'email', 'web', 'math', 'general'];

/**
 * The options of `COUNT` tools, built before the clock starts: each its own name, description,
 * schema object and handler closure.
 *
 * @param {string} salt makes this round's schemas differ from earlier rounds' (no validator cache hits)
 */
function toolOptions(salt) {
  return Array.from({ length: COUNT }, (_, index) => ({
    name: `tool_${index}`,
    description: `Search ${CATEGORIES[index % CATEGORIES.length]} items for text and return matches (tool ${index}).`,
    category: CATEGORIES[index % CATEGORIES.length],
    tags: ['generated', 'search'],
    inputSchema: smallSchema(index, salt),
    handler: (/** @type {Record<string, unknown>} */ args) => ({ tool: index, args }),
  }));
}

await runCase('register-100k', async () => {
  /** @type {ToolRegistry | undefined} */
  let registry;
  let round = 0;
  const heapBefore = process.memoryUsage().heapUsed;
  const registration = await medianOfRounds(
    () => {
      round++;
      registry = undefined;
      const options = toolOptions(` (round ${round})`);
      const fresh = new ToolRegistry();
      const start = process.hrtime.bigint();
      for (const option of options) fresh.register(defineTool(option));
      const ms = elapsedNs(start) / 1e6;
      registry = fresh;
      return ms;
    },
    { warmup: 0 },
  );
  if (registry === undefined) throw new Error('no registry was built');
  const last = registry;
  globalThis.gc?.();
  const heapMB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  check(last.size === COUNT, `the registry holds ${last.size} tools, not ${COUNT}`);

  // list() sorts once after a change, then hands out copies of the cached order.
  const listStart = process.hrtime.bigint();
  const names = last.list();
  const listFirstMs = elapsedNs(listStart) / 1e6;
  check(names.length === COUNT, `list() returned ${names.length} names`);
  const listAgain = await medianOfRounds(
    () => {
      const start = process.hrtime.bigint();
      last.list();
      return elapsedNs(start) / 1e6;
    },
    { rounds: 21, warmup: 1, collectGarbage: false },
  );

  // The first call of each tool compiles its schema; spread the tools over the whole registry.
  const firstCallTools = Array.from({ length: 51 }, (_, index) => index * 1_913 + 7);
  let next = 0;
  const firstCall = await medianOfRounds(
    async () => {
      const index = firstCallTools[next++];
      const start = process.hrtime.bigint();
      const result = await last.call(`tool_${index}`, smallSchemaArgs(index));
      const ms = elapsedNs(start) / 1e6;
      check(result.status === 'success', `tool_${index} failed: ${JSON.stringify(result)}`);
      return ms;
    },
    { rounds: firstCallTools.length, warmup: 0, collectGarbage: false },
  );

  const warmArgs = smallSchemaArgs(firstCallTools[0]);
  const warmName = `tool_${firstCallTools[0]}`;
  const warmCall = await measureCall(() => last.call(warmName, warmArgs), { async: true });

  return {
    count: COUNT,
    registerMs: registration.median,
    registerFirstRoundMs: registration.rounds[0],
    registerRoundsMs: registration.rounds,
    heapMB,
    listFirstMs,
    listMs: listAgain.median,
    // The first of them is also the process's first schema compile (Ajv compiles its meta-schema then).
    firstCallInProcessMs: firstCall.rounds[0],
    firstCallMs: firstCall.median,
    firstCallMaxOfRestMs: Math.max(...firstCall.rounds.slice(1)),
    warmCallNs: warmCall.nsPerCall,
  };
});
