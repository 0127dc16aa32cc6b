import { describe, expect, it } from 'vitest';
import type { ToolSpec } from '../../core/tool-spec.js';
import { CASE_SPECS } from '../exporters.cases.js';
import { cliDecisionGaps } from './cli-decision-gaps.js';
import { renderPromptDocs } from './render-prompt-docs.js';

describe('renderPromptDocs', () => {
  it('renders the system-prompt block of the shared cases', async () => {
    await expect(renderPromptDocs(CASE_SPECS)).toMatchFileSnapshot('../__fixtures__/prompt-docs.md');
  });

  it('renders the command-line block under its own heading', async () => {
    await expect(renderPromptDocs(CASE_SPECS, { cliBlock: true, heading: 'Available tools' })).toMatchFileSnapshot(
      '../__fixtures__/prompt-docs-cli.md',
    );
  });

  it('sorts categories and the tools inside them, whatever the order of the list', () => {
    expect(renderPromptDocs([...CASE_SPECS].reverse())).toBe(renderPromptDocs(CASE_SPECS));
    const headings = renderPromptDocs(CASE_SPECS)
      .split('\n')
      .filter((line) => line.startsWith('### '));
    expect(headings).toEqual([...headings].sort());
  });

  it('mentions every tool, and every CLI keyword in the CLI block', () => {
    const docs = renderPromptDocs(CASE_SPECS, { cliBlock: true });
    const cliBlock = docs.slice(docs.indexOf('### Command line'));
    for (const spec of CASE_SPECS) {
      expect(docs).toContain(`- **${spec.name}** — `);
      if (typeof spec.cli === 'string') expect(cliBlock).toContain(`- \`${spec.cli}\` — ${spec.name}`);
      else expect(cliBlock).toMatch(new RegExp(`- ${spec.name} — not exposed via CLI`));
    }
  });

  it('renders a when-to-use heading and paragraph for each tool that has one', () => {
    const docs = renderPromptDocs(CASE_SPECS);
    for (const spec of CASE_SPECS.filter((item) => item.whenToUse !== undefined)) {
      expect(docs).toContain(`#### When to use ${spec.name}\n\n${spec.whenToUse}\n`);
    }
  });

  it('starts sections at ## without a top heading', () => {
    const docs = renderPromptDocs(CASE_SPECS, { heading: null });
    expect(docs.startsWith('## ')).toBe(true);
    expect(docs).not.toContain('### Email');
    expect(docs).toContain('## Email');
  });

  it('keeps each bullet on one line and skips entries that are not tools', () => {
    const odd = [
      { name: 'multi_line', description: 'First line.\n\nSecond   line.', category: 'general', cli: null },
      null,
      { description: 'no name' },
    ] as unknown as ToolSpec[];
    expect(renderPromptDocs(odd)).toBe('## Tools\n\n### General\n\n- **multi_line** — First line. Second line.\n');
  });
});

describe('cliDecisionGaps', () => {
  it('names the tools without a CLI decision, and only those', () => {
    expect(cliDecisionGaps(CASE_SPECS)).toEqual([
      'add_note',
      'summarize_the_quarterly_financial_report_for_the_board_of_directors_now',
    ]);
  });

  it('counts null as a decision', () => {
    expect(cliDecisionGaps(CASE_SPECS.filter((spec) => spec.cli === null))).toEqual([]);
  });
});
