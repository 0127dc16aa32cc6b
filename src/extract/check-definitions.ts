import { join, resolve } from 'node:path';
import { displayPath } from './display-path.js';
import type { ExtractedTool } from './extract-tools.js';
import { readGeneratedFolder } from './generated-folder.js';
import { generatedFiles } from './render-definitions.js';
import { unifiedDiff } from './unified-diff.js';

/** How the generated files in a folder differ from what the code makes now. Paths are `outDir`-joined. */
export interface DefinitionDrift {
  /** Files the code makes that the folder lacks. */
  missing: string[];
  /** Files generated earlier from the same source whose tool is gone (stale). */
  extra: string[];
  /** Files whose text differs, each with a unified diff from the file on disk to the code's version. */
  changed: Array<{ file: string; diff: string }>;
  /** True when nothing is missing, extra or changed. */
  clean: boolean;
}

/**
 * Compare the files extraction would write to `outDir` with those there, without writing: the check
 * behind `toolshed extract --check` in CI. A file counts as extra only when its generated-file header
 * names one of the tools' sources, so hand-written definitions can share the folder. Line ends are
 * compared as LF.
 *
 * @example
 * ```ts
 * const drift = await checkDefinitions(await extractTools('src/tools.ts'), 'tools');
 * if (!drift.clean) console.error(formatDrift(drift));
 * ```
 */
export async function checkDefinitions(tools: readonly ExtractedTool[], outDir: string): Promise<DefinitionDrift> {
  const expected = generatedFiles(tools, outDir);
  const onDisk = await readGeneratedFolder(outDir);
  const sources = new Set(tools.map((tool) => tool.sourceFile));
  const sourceLabel = [...sources].map((source) => displayPath(source)).join(', ');
  const drift: DefinitionDrift = { missing: [], extra: [], changed: [], clean: true };
  for (const [name, text] of expected) {
    const file = join(outDir, name);
    const existing = onDisk.get(name);
    if (existing === undefined) {
      drift.missing.push(file);
    } else if (existing.text !== text) {
      drift.changed.push({
        file,
        diff: unifiedDiff(existing.text, text, {
          fromLabel: `${file} (on disk)`,
          toLabel: `${file} (from ${sourceLabel})`,
        }),
      });
    }
  }
  for (const existing of onDisk.values()) {
    if (!expected.has(existing.name) && existing.source !== undefined && sources.has(resolve(existing.source))) {
      drift.extra.push(join(outDir, existing.name));
    }
  }
  drift.clean = drift.missing.length === 0 && drift.extra.length === 0 && drift.changed.length === 0;
  return drift;
}

/**
 * {@link DefinitionDrift} as text for a terminal or CI log: one line per missing or stale file, and
 * each changed file with its diff. `''` when clean.
 *
 * @example
 * ```ts
 * formatDrift({ missing: ['tools/add.yaml'], extra: [], changed: [], clean: false });
 * // 'missing: tools/add.yaml (the code defines this tool, the folder lacks it)\n'
 * ```
 */
export function formatDrift(drift: DefinitionDrift): string {
  let text = '';
  for (const file of drift.missing) text += `missing: ${file} (the code defines this tool, the folder lacks it)\n`;
  for (const file of drift.extra) text += `stale: ${file} (generated earlier, but no tool in the code makes it now)\n`;
  for (const change of drift.changed) text += `changed: ${change.file}\n${change.diff}`;
  return text;
}
