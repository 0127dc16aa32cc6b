import { describe, expect, it } from 'vitest';
import type { ToolSpec } from '../core/tool-spec.js';
import { checkExports, EXPORT_CHECK_TARGETS } from './check-exports.js';
import { CASE_SPECS } from './exporters.cases.js';

describe('checkExports', () => {
  const report = checkExports(CASE_SPECS);

  it('pins the status of every case for every target', async () => {
    const statuses = Object.fromEntries(
      report.tools.map(({ tool, targets }) => [
        tool,
        Object.fromEntries(EXPORT_CHECK_TARGETS.map((target) => [target, targets[target].status])),
      ]),
    );
    await expect(`${JSON.stringify(statuses, null, 2)}\n`).toMatchFileSnapshot('./__fixtures__/check-exports.json');
  });

  it('is not ok while a tool cannot be exported to some target', () => {
    expect(report.ok).toBe(false);
    expect(report.tools.find((entry) => entry.tool === 'build_tree')?.targets.gemini).toMatchObject({
      status: 'excluded',
      warnings: [expect.objectContaining({ kind: 'unsupported', message: expect.stringMatching(/recursive schema/) })],
    });
  });

  it('is ok when every tool exports everywhere, even with rewrites', () => {
    const exportable = CASE_SPECS.filter((spec) => spec.name !== 'build_tree');
    const partial = checkExports(exportable);
    expect(partial.ok).toBe(true);
    expect(partial.tools.find((entry) => entry.tool === 'fetch_url')?.targets['openai-chat-strict'].status).toBe(
      'rewritten',
    );
  });

  it('reports a tool that is not a tool for every target without throwing', () => {
    const broken = checkExports([{ name: 'broken', inputSchema: 7 } as unknown as ToolSpec]);
    expect(broken.ok).toBe(false);
    for (const target of EXPORT_CHECK_TARGETS) expect(broken.tools[0]?.targets[target].status).toBe('excluded');
  });
});
