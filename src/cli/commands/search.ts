import { type Command, InvalidArgumentError } from 'commander';
import { addToolsOptions, type CliContext, type ToolsOptions } from '../cli-context.js';
import { withTools } from '../load-registry.js';
import { firstSentence, formatTable, oneLine, toJson, truncate } from '../output.js';

/** Options of `toolshed search`. */
export interface SearchCommandOptions extends ToolsOptions {
  /** `--limit N`: at most this many results (default 10). */
  limit?: number;
  /** `--category C`: only tools of this category. */
  category?: string;
}

/** One result of `toolshed search --json`. */
export interface SearchResultJson {
  name: string;
  /** BM25 relevance, rounded to two decimals. */
  score: number;
  category: string;
  description: string;
}

/** The most results `--limit` allows. */
export const MAX_SEARCH_LIMIT = 100;

/** The longest query accepted, in characters. */
const MAX_QUERY_LENGTH = 1000;

/**
 * The relevance floor: a result scoring under this share of the best one is left out. Such results
 * match one common word of the query at most (`text` in "how many words are in this text") and
 * read as noise beside the answer.
 */
export const RELEVANCE_FLOOR = 0.2;

/**
 * Add `toolshed search "query"`: the tools ranked by relevance to the query (BM25 over names, titles,
 * descriptions, when-to-use, tags and parameters, SPEC §8) — name, score, category and the first
 * sentence of the description — or `{"results": [...]}` with `--json`. Results scoring under a fifth
 * of the best one are left out ({@link RELEVANCE_FLOOR}). No match is not a failure (exit 0).
 *
 * @example
 * ```ts
 * defineSearchCommand(program, context);
 * await program.parseAsync(['search', 'count words', '--limit', '3'], { from: 'user' });
 * ```
 */
export function defineSearchCommand(program: Command, context: CliContext): Command {
  const command = program
    .command('search')
    .description('Find tools by what they do: the best matches for a query, with their scores.')
    .argument('<query>', 'what the tool should do, in a few words')
    .option('--limit <n>', `at most this many results, 1 to ${MAX_SEARCH_LIMIT} (default: 10)`, parseLimit)
    .option('--category <category>', 'only tools of this category');
  return addToolsOptions(command)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  toolshed search "count the words of a text" --config examples/toolshed.yaml',
        '  toolshed search "read a file" --category filesystem --limit 3 --json',
      ].join('\n'),
    )
    .action(async (query: string, options: SearchCommandOptions) => {
      context.setExitCode(await runSearch(query, options, context));
    });
}

/** The `search` action; returns the exit code. */
export async function runSearch(query: string, options: SearchCommandOptions, { io }: CliContext): Promise<0> {
  const hits = await withTools(options, io, (tools) =>
    tools.registry.search(query.slice(0, MAX_QUERY_LENGTH), {
      limit: options.limit ?? 10,
      ...(options.category === undefined ? {} : { category: options.category }),
    }),
  );
  const best = hits[0]?.score ?? 0;
  const relevant = hits.filter((hit) => hit.score >= best * RELEVANCE_FLOOR);
  const results: SearchResultJson[] = relevant.map((hit) => ({
    name: hit.name,
    score: Math.round(hit.score * 100) / 100,
    category: hit.category,
    description: hit.description,
  }));
  if (options.json === true) {
    io.stdout.write(toJson({ results }));
    return 0;
  }
  if (results.length === 0) {
    const where = options.category === undefined ? '' : ` in category '${oneLine(options.category)}'`;
    io.stdout.write(`No tools match '${oneLine(query)}'${where}.\n`);
    return 0;
  }
  // Scores right-aligned, so their magnitudes line up.
  const scores = results.map((result) => result.score.toFixed(2));
  const scoreWidth = Math.max(...scores.map((score) => score.length));
  const rows = results.map((result, index) => [
    result.name,
    (scores[index] ?? '').padStart(scoreWidth),
    oneLine(result.category),
    firstSentence(result.description),
  ]);
  const lines = formatTable(rows);
  io.stdout.write(lines.map((line) => `${truncate(line, io.stdout.columns)}\n`).join(''));
  return 0;
}

function parseLimit(value: string): number {
  const limit = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_SEARCH_LIMIT)) {
    throw new InvalidArgumentError(`Use a whole number from 1 to ${MAX_SEARCH_LIMIT}.`);
  }
  return limit;
}
