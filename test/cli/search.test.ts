import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, lines, ROOT, runCli } from './run-cli.js';

beforeAll(assertBuilt);

const CONFIG = ['--config', 'examples/toolshed.yaml'];

describe('toolshed search', () => {
  it('ranks the tools for a query: name, score, category, first sentence', async () => {
    const run = await runCli(['search', 'count the words of a text', ...CONFIG, '--limit', '2'], { cwd: ROOT });
    expect(run.exitCode).toBe(0);
    const [first, second] = lines(run.stdout);
    expect(first).toMatch(
      /^word_count +\d+\.\d\d {2}text +Count the words, lines and characters of a text, and list its most frequent words\.$/,
    );
    expect(second).toMatch(/^\S+ +\d+\.\d\d {2}\S+ +\S/);
    expect(lines(run.stdout)).toHaveLength(2);
  });

  it('filters by category and prints {"results": [...]} with --json', async () => {
    const run = await runCli(['search', 'file', ...CONFIG, '--category', 'filesystem', '--json'], { cwd: ROOT });
    expect(run.exitCode).toBe(0);
    const { results } = JSON.parse(run.stdout) as {
      results: Array<{ name: string; score: number; category: string; description: string }>;
    };
    expect(results.map((result) => result.name).sort()).toEqual([
      'list_files',
      'read_file',
      'search_code',
      'write_file',
    ]);
    for (const result of results) {
      expect(result.category).toBe('filesystem');
      expect(Math.round(result.score * 100) / 100).toBe(result.score);
      expect(Object.keys(result)).toEqual(['name', 'score', 'category', 'description']);
    }
  });

  it('leaves out results scoring under a fifth of the best one', async () => {
    const run = await runCli(['search', 'how many words are in this text', ...CONFIG, '--json'], { cwd: ROOT });
    expect(run.exitCode).toBe(0);
    const { results } = JSON.parse(run.stdout) as { results: Array<{ name: string; score: number }> };
    expect(results.map((result) => result.name)).toEqual(['word_count']);
  });

  it.each(['send an email', 'book a flight', 'translate to french'])(
    'answers %j, which no example tool does, with no match',
    async (query) => {
      const run = await runCli(['search', query, ...CONFIG], { cwd: ROOT });
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toBe(`No tools match '${query}'.\n`);
    },
  );

  it('says so when nothing matches (exit 0)', async () => {
    const run = await runCli(['search', 'zzzqqq']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe("No tools match 'zzzqqq'.\n");
  });

  it.each(['0', '101', 'ten', '1.5'])('rejects --limit %s (exit 2)', async (limit) => {
    const run = await runCli(['search', 'file', '--limit', limit]);
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)).toEqual([
      `error: option '--limit <n>' argument '${limit}' is invalid. Use a whole number from 1 to 100.`,
      "Run 'toolshed search --help' for usage.",
    ]);
  });

  it('needs a query (exit 2)', async () => {
    const run = await runCli(['search']);
    expect(run.exitCode).toBe(2);
    expect(lines(run.stderr)[0]).toBe("error: missing required argument 'query'");
  });
});
