// Declarative definitions: registry.loadYamlDirectory(dir) over 1 000 generated YAML files whose
// handlers live in one handlers.js. The first load in the process is the cold one a CLI or server pays.
import { ToolRegistry } from '../../dist/index.js';
import { check, runCase } from '../lib/case.js';
import { writeYamlTools } from '../lib/fixtures.js';
import { elapsedNs, medianOfRounds } from '../lib/timing.js';

const COUNT = 1_000;

await runCase('yaml-1000', async () => {
  const fixture = writeYamlTools(COUNT);
  try {
    const loadOnce = async () => {
      const registry = new ToolRegistry();
      const start = process.hrtime.bigint();
      const names = await registry.loadYamlDirectory(fixture.dir);
      const ms = elapsedNs(start) / 1e6;
      check(names.length === COUNT, `loadYamlDirectory registered ${names.length} tools, not ${COUNT}`);
      return ms;
    };
    // Cold: the loader modules, the yaml parser and handlers.js are imported during this first load.
    const coldMs = await loadOnce();
    const warm = await medianOfRounds(loadOnce, { warmup: 0 });
    return { count: COUNT, coldMs, warmMs: warm.median, warmRoundsMs: warm.rounds };
  } finally {
    fixture.remove();
  }
});
