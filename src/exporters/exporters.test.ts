import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { ToolSpec } from '../core/tool-spec.js';
import { CASE_SPECS, EXPORTER_CASES, EXPORTER_TARGETS, type ExpectedOutcome, LONG_NAME } from './exporters.cases.js';
import { toOpenAITools } from './openai/to-openai-tools.js';
import { type ExportResult, isExclusion } from './shared/export-result.js';
import { createWireNameMap } from './shared/wire-name.js';

function outcomeOf(result: ExportResult<unknown>, tool: string): ExpectedOutcome {
  const warnings = result.warnings.filter((warning) => warning.tool === tool);
  if (warnings.some(isExclusion)) return 'excluded';
  return warnings.length > 0 ? 'rewritten' : 'ok';
}

const wireNames = createWireNameMap(CASE_SPECS.map((spec) => spec.name));

const BROKEN_SPECS = [
  null,
  'read_file',
  { description: 'A tool without a name.', inputSchema: { type: 'object', properties: {} } },
  { name: 'string_input', description: 'Takes a bare string.', inputSchema: { type: 'string' } },
  { name: 'list_properties', description: 'Properties as a list.', inputSchema: { type: 'object', properties: [] } },
  { name: 'typo_type', description: 'A typo.', inputSchema: { type: 'object', properties: { a: { type: 'strnig' } } } },
] as unknown as ToolSpec[];

for (const target of EXPORTER_TARGETS) {
  describe(`exporter ${target.id}`, () => {
    const result = target.exportTools(CASE_SPECS);
    const entries = target.entries(result);

    it('matches its golden fixture', async () => {
      await expect(`${JSON.stringify(result, null, 2)}\n`).toMatchFileSnapshot(`./__fixtures__/${target.id}.json`);
    });

    it('exports only entries that obey the provider rules', () => {
      for (const entry of entries) expect(target.problems(entry), target.nameOf(entry)).toEqual([]);
    });

    it('accounts for every tool: exported, or left out with exactly one warning', () => {
      const excluded = result.warnings.filter(isExclusion);
      expect(entries.length + excluded.length).toBe(CASE_SPECS.length);
      const exportedNames = entries.map((entry) => wireNames.toCanonical.get(target.nameOf(entry)));
      for (const warning of excluded) expect(exportedNames).not.toContain(warning.tool);
    });

    it('uses distinct wire names that map back to the canonical names', () => {
      const names = entries.map((entry) => target.nameOf(entry));
      expect(new Set(names).size).toBe(names.length);
      for (const name of names) expect(CASE_SPECS.map((spec) => spec.name)).toContain(wireNames.toCanonical.get(name));
    });

    for (const testCase of EXPORTER_CASES) {
      const expected = testCase.outcomes[target.id];
      it(`handles ${testCase.about} (${expected})`, () => {
        expect(outcomeOf(result, testCase.spec.name)).toBe(expected);
        const alone = target.exportTools([testCase.spec]);
        const inList = entries.filter(
          (entry) => wireNames.toCanonical.get(target.nameOf(entry)) === testCase.spec.name,
        );
        expect(target.entries(alone)).toEqual(inList);
        expect(inList).toHaveLength(expected === 'excluded' ? 0 : 1);
      });
    }

    it('gives the 70-character name a 64-character wire name with a stable hash suffix', () => {
      const entry = entries.find((item) => wireNames.toCanonical.get(target.nameOf(item)) === LONG_NAME);
      const name = target.nameOf(entry);
      expect(name).toHaveLength(64);
      expect(name).toMatch(/^summarize_the_quarterly_financial_report_for_the_board__[0-9a-f]{8}$/);
      expect(result.warnings.find((warning) => warning.tool === LONG_NAME)?.message).toContain(name);
    });

    it('leaves malformed tools out with a dropped warning each and exports the rest', () => {
      const mixed = target.exportTools([CASE_SPECS[0]!, ...BROKEN_SPECS, CASE_SPECS[1]!]);
      expect(target.entries(mixed).map((entry) => target.nameOf(entry))).toEqual([
        'search_emails',
        'convert_temperature',
      ]);
      const dropped = mixed.warnings.filter((warning) => warning.kind === 'dropped');
      expect(dropped.map((warning) => warning.tool)).toEqual([
        '#1',
        '#2',
        '#3',
        'string_input',
        'list_properties',
        'typo_type',
      ]);
      expect(dropped.find((warning) => warning.tool === 'typo_type')?.message).toMatch(/not valid JSON Schema/);
    });

    it('exports the first of two tools with the same name and drops the second', () => {
      const twin = { ...CASE_SPECS[0]!, description: 'A second search.' } as ToolSpec;
      const twins = target.exportTools([CASE_SPECS[0]!, twin]);
      expect(target.entries(twins)).toHaveLength(1);
      expect(twins.warnings.filter(isExclusion)).toEqual([
        expect.objectContaining({
          tool: 'search_emails',
          kind: 'dropped',
          message: expect.stringMatching(/comes first/),
        }),
      ]);
    });

    it('gives names that sanitize alike distinct wire names and reports the collision', () => {
      const named = (name: string) => ({ ...CASE_SPECS[7]!, name }) as ToolSpec;
      const collided = target.exportTools([named('web.search'), named('web search'), named('web_search')]);
      const names = target.entries(collided).map((entry) => target.nameOf(entry));
      expect(names).toHaveLength(3);
      expect(new Set(names).size).toBe(3);
      expect(names).toContain('web_search');
      const messages = collided.warnings.map((warning) => warning.message).join('\n');
      expect(messages).toMatch(/was taken by 'web_search', so it got a hash suffix/);
    });

    it('returns no tools and no warnings for an empty list', () => {
      const empty = target.exportTools([]);
      expect(target.entries(empty)).toEqual([]);
      expect(empty.warnings).toEqual([]);
    });

    it('does not change the specs it exports', () => {
      const before = JSON.stringify(CASE_SPECS.map((spec) => spec.inputSchema));
      target.exportTools(CASE_SPECS);
      expect(JSON.stringify(CASE_SPECS.map((spec) => spec.inputSchema))).toBe(before);
    });
  });
}

describe('target specifics', () => {
  it('MCP entries parse with the MCP SDK tool schema', () => {
    const mcp = EXPORTER_TARGETS.find((target) => target.id === 'mcp')!;
    for (const entry of mcp.entries(mcp.exportTools(CASE_SPECS))) {
      expect(ToolSchema.safeParse(entry).success, mcp.nameOf(entry)).toBe(true);
    }
  });

  it('OpenAI strict mode marks each tool strict, except the one with an open object', () => {
    const strict = EXPORTER_TARGETS.find((target) => target.id === 'openai-chat-strict')!;
    const flags = Object.fromEntries(
      strict.entries(strict.exportTools(CASE_SPECS)).map((entry) => {
        const fn = (entry as { function: { name: string; strict?: boolean } }).function;
        return [fn.name, fn.strict];
      }),
    );
    expect(flags.fetch_url).toBe(false);
    expect(Object.entries(flags).filter(([, flag]) => flag !== true)).toEqual([['fetch_url', false]]);
  });

  it('OpenAI without strict mode leaves strict out of chat tools and sends strict: false to the Responses API', () => {
    const chat = EXPORTER_TARGETS.find((target) => target.id === 'openai-chat')!;
    for (const entry of chat.entries(chat.exportTools(CASE_SPECS))) {
      expect(entry).not.toHaveProperty('function.strict');
    }
    for (const tool of toOpenAITools(CASE_SPECS, { api: 'responses' }).tools) expect(tool.strict).toBe(false);
  });
});
