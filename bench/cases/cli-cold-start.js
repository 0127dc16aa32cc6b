// `toolshed list --tools <dir>` cold start: wall clock of the whole process, beside a bare `node -e 0`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { firstLine, runCase } from '../lib/case.js';
import { writeYamlTools } from '../lib/fixtures.js';
import { elapsedNs, median, medianOfRounds } from '../lib/timing.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../bin/toolshed.js', import.meta.url));
const RUNS = 10;

/**
 * Run node with `args` from the repository root; the wall-clock milliseconds and how it ended.
 *
 * @param {string[]} args
 */
function runNode(args) {
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  return { ms: elapsedNs(start) / 1e6, status: child.status, stdout: child.stdout, stderr: child.stderr };
}

/**
 * Median wall-clock milliseconds of `RUNS` runs of `args` and of a bare `node -e 0`, interleaved so
 * both see the same machine load, after one untimed pair (which warms the file cache).
 *
 * @param {string[]} args
 */
async function medianRuns(args) {
  const bare = [];
  const cli = await medianOfRounds(
    () => {
      bare.push(runNode(['-e', '0']).ms);
      return runNode(args).ms;
    },
    { rounds: RUNS, warmup: 1, collectGarbage: false },
  );
  const bareRuns = bare.slice(1);
  return { cliMs: cli.median, cliRunsMs: cli.rounds, nodeMs: median(bareRuns), nodeRunsMs: bareRuns };
}

await runCase('cli-cold-start', async () => {
  if (!existsSync(CLI)) return { skipped: 'bin/toolshed.js not present' };
  const fixture = writeYamlTools(3);
  try {
    const args = [CLI, 'list', '--tools', fixture.dir];
    const probe = runNode(args);
    if (probe.status !== 0) {
      return {
        skipped: `toolshed list exited ${probe.status ?? 'by signal'}: ${firstLine(probe.stderr || probe.stdout)}`,
      };
    }
    return { runs: RUNS, ...(await medianRuns(args)) };
  } finally {
    fixture.remove();
  }
});
