import { isPlainObject } from '../../core/json-schema.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { failingExamples } from '../schema-lint.js';
import { type ToolSource, toolList } from '../shared/tool-source.js';

/**
 * Options of {@link renderPromptDocs}.
 *
 * @example
 * ```ts
 * renderPromptDocs(specs, { cliBlock: true, heading: null });
 * ```
 */
export interface PromptDocsOptions {
  /** Output format; `'markdown'` (the default) is the only one today. */
  format?: 'markdown';
  /** Append the command-line block, for runtimes without tool calling (default `false`). */
  cliBlock?: boolean;
  /** The top heading (default `'Tools'`); `null` for none, and the category sections start at `##`. */
  heading?: string | null;
}

interface DocEntry {
  name: string;
  description: string;
  whenToUse: string | undefined;
  /** Example calls, as compact JSON. */
  examples: string[];
  category: string;
  cli: string | null | undefined;
}

/**
 * The system-prompt block describing tools: a section per `category` (sorted), a bullet per tool
 * (`- **name** — description`, sorted by name), then, for each tool with `whenToUse`, a heading and
 * that paragraph, and for each tool with `inputExamples`, a heading and one line of JSON per example. With `cliBlock`, a "Command line" section lists every tool's `cli` keyword; tools
 * with `cli: null` are listed as not exposed via CLI, and tools without a CLI decision as not exposed
 * yet (`cliDecisionGaps` finds those for a drift test).
 *
 * Whitespace in descriptions and `whenToUse` collapses to single spaces, so a bullet is one line and
 * a paragraph one paragraph. The output is deterministic (pin it with a snapshot) and ends with a
 * newline. Entries that are not tools are skipped; never throws.
 *
 * @example
 * ```ts
 * renderPromptDocs([readFile, searchWeb], { cliBlock: true });
 * // ## Tools
 * //
 * // ### Filesystem
 * //
 * // - **read_file** — Read the contents of a file.
 * //
 * // #### When to use read_file
 * //
 * // Before editing a file, read it.
 * // ...
 * ```
 */
export function renderPromptDocs(specs: ToolSource, options: PromptDocsOptions = {}): string {
  const format = options.format ?? 'markdown';
  switch (format) {
    case 'markdown':
      return renderMarkdown(entries(specs), options);
    default: {
      const unreachable: never = format;
      throw new TypeError(`Unknown prompt docs format ${JSON.stringify(unreachable)}; use 'markdown'.`);
    }
  }
}

function renderMarkdown(tools: readonly DocEntry[], options: PromptDocsOptions): string {
  const heading = options.heading === undefined ? 'Tools' : options.heading;
  const level = heading === null ? 2 : 3;
  const blocks: string[] = [];
  if (heading !== null) blocks.push(`## ${oneLine(heading)}`);
  const categories = [...new Set(tools.map((tool) => tool.category))].sort(compare);
  for (const category of categories) {
    const members = tools.filter((tool) => tool.category === category);
    blocks.push(`${'#'.repeat(level)} ${categoryTitle(category)}`);
    blocks.push(members.map((tool) => `- **${tool.name}** — ${tool.description}`).join('\n'));
    for (const tool of members) {
      if (tool.whenToUse !== undefined)
        blocks.push(`${'#'.repeat(level + 1)} When to use ${tool.name}`, tool.whenToUse);
      if (tool.examples.length > 0)
        blocks.push(
          `${'#'.repeat(level + 1)} Example calls of ${tool.name}`,
          tool.examples.map((example) => `- \`${example}\``).join('\n'),
        );
    }
  }
  if (options.cliBlock === true) {
    blocks.push(`${'#'.repeat(level)} Command line`);
    blocks.push('Without tool calling, run a tool by its command keyword:');
    blocks.push(tools.map(cliLine).join('\n'));
  }
  return `${blocks.filter((block) => block !== '').join('\n\n')}\n`;
}

function cliLine(tool: DocEntry): string {
  if (typeof tool.cli === 'string') return `- \`${tool.cli}\` — ${tool.name}`;
  if (tool.cli === null) return `- ${tool.name} — not exposed via CLI`;
  return `- ${tool.name} — not exposed via CLI (no CLI decision yet)`;
}

function entries(specs: ToolSource): DocEntry[] {
  const list = toolList(specs);
  const result: DocEntry[] = [];
  for (const candidate of list) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const spec = candidate as Partial<Record<keyof ToolSpec, unknown>>;
    if (typeof spec.name !== 'string' || spec.name === '') continue;
    const whenToUse = typeof spec.whenToUse === 'string' ? oneLine(spec.whenToUse) : '';
    result.push({
      name: oneLine(spec.name),
      description: typeof spec.description === 'string' ? oneLine(spec.description) : '',
      whenToUse: whenToUse === '' ? undefined : whenToUse,
      examples: validExamples(spec.inputSchema, spec.inputExamples).map((example) => JSON.stringify(example)),
      category: typeof spec.category === 'string' && spec.category.trim() !== '' ? spec.category.trim() : 'general',
      cli: typeof spec.cli === 'string' ? oneLine(spec.cli) : spec.cli === null ? null : undefined,
    });
  }
  return result.sort((left, right) => compare(left.name, right.name));
}

/** The examples that pass the input schema (the others are left out, as every export does). */
function validExamples(schema: unknown, examples: unknown): unknown[] {
  if (!Array.isArray(examples) || examples.length === 0) return [];
  if (!isPlainObject(schema)) return examples;
  const failing = new Set(failingExamples(schema, examples).map((entry) => entry.index));
  return examples.filter((_, index) => !failing.has(index));
}

/** `web_search` → `Web search`. */
function categoryTitle(category: string): string {
  const words = oneLine(category.replace(/[_-]+/g, ' '));
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Code-unit order: the same on every machine and locale. */
function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
