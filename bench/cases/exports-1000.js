// Export caching: the first toOpenAITools({api: 'chat', strict: true}) / toAnthropicTools /
// toGeminiTools / toMcpTools of a registry of 1 000 tools (builds the list), and the second (cached).
import { defineTool, ToolRegistry } from '../../dist/index.js';
import { check, runCase } from '../lib/case.js';
import { smallSchema } from '../lib/fixtures.js';
import { elapsedNs, measureCall, median, medianOfRounds } from '../lib/timing.js';

const COUNT = 1_000;

/** @typedef {{ tools: Array<{ functionDeclarations?: unknown[] }> }} Exported */

/** @type {Record<string, (registry: ToolRegistry) => Exported>} */
const EXPORTERS = {
  openaiChatStrict: (registry) => registry.toOpenAITools({ api: 'chat', strict: true }),
  anthropic: (registry) => registry.toAnthropicTools(),
  gemini: (registry) => registry.toGeminiTools(),
  mcp: (registry) => registry.toMcpTools(),
};

/**
 * A fresh registry of `COUNT` tools whose schemas (see `smallSchema`) differ from every other round's.
 *
 * @param {string} salt
 */
function buildRegistry(salt) {
  const registry = new ToolRegistry();
  registry.registerAll(
    Array.from({ length: COUNT }, (_, index) =>
      defineTool({
        name: `tool_${index}`,
        title: `Tool ${index}`,
        description: `Search the items of tool ${index} for text and return the matches${salt}.`,
        inputSchema: smallSchema(index, salt),
        handler: () => index,
      }),
    ),
  );
  return registry;
}

/**
 * How many tools an export holds (Gemini puts them all in one `functionDeclarations` entry).
 *
 * @param {Exported} result
 */
const exportedCount = (result) =>
  result.tools.reduce((total, tool) => total + (tool.functionDeclarations?.length ?? 1), 0);

await runCase('exports-1000', async () => {
  /** @type {Record<string, number[]>} */
  const firstMs = Object.fromEntries(Object.keys(EXPORTERS).map((name) => [name, []]));
  /** @type {ToolRegistry | undefined} */
  let registry;
  let round = 0;
  // Each round: a fresh registry (built before the clock starts), then each exporter's first call.
  await medianOfRounds(
    () => {
      round++;
      registry = buildRegistry(` (round ${round})`);
      for (const [name, exporter] of Object.entries(EXPORTERS)) {
        const start = process.hrtime.bigint();
        const result = exporter(registry);
        firstMs[name].push(elapsedNs(start) / 1e6);
        const count = exportedCount(result);
        check(count === COUNT, `${name} exported ${count} tools, not ${COUNT}`);
      }
      return 0;
    },
    { rounds: 5, warmup: 0 },
  );
  if (registry === undefined) throw new Error('no registry was built');
  const last = registry;

  const exporters = {};
  for (const [name, exporter] of Object.entries(EXPORTERS)) {
    // The cache must hand back the built list, and a change of the tool set must rebuild it.
    const built = exporter(last);
    check(exporter(last) === built, `${name}: the second call built a new list`);
    const second = await measureCall(() => exporter(last), { roundMs: 100 });
    const rounds = firstMs[name];
    const firstMedianMs = median(rounds);
    exporters[name] = {
      firstMs: firstMedianMs,
      firstRoundsMs: rounds,
      firstInProcessMs: rounds[0],
      secondNs: second.nsPerCall,
      secondRoundsNs: second.roundsNsPerCall,
      secondOverFirst: second.nsPerCall / 1e6 / firstMedianMs,
    };
  }
  const before = EXPORTERS.mcp(last);
  last.register(defineTool({ name: 'one_more', description: 'One more tool.', handler: () => 0 }));
  check(EXPORTERS.mcp(last) !== before, 'registering a tool did not invalidate the cached export');

  const worst = Object.entries(exporters).reduce((top, entry) =>
    entry[1].secondOverFirst > top[1].secondOverFirst ? entry : top,
  );
  return { count: COUNT, exporters, worstExporter: worst[0], worstSecondOverFirst: worst[1].secondOverFirst };
});
