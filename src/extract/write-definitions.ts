import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { displayPath } from './display-path.js';
import { combineExtractErrors, ExtractError } from './extract-error.js';
import type { ExtractedTool } from './extract-tools.js';
import { readGeneratedFolder } from './generated-folder.js';
import { generatedFiles } from './render-definitions.js';

/** What {@link writeDefinitions} did. Paths are `outDir`-joined. */
export interface WriteDefinitionsResult {
  /** Files created or replaced because their text changed. */
  written: string[];
  /** Files already up to date (left untouched, so their modification times stay). */
  unchanged: string[];
  /** Stale files removed: generated earlier from the same source for a tool that is gone. */
  removed: string[];
}

/**
 * Write one `NAME.yaml` per tool to `outDir` (created when absent), each starting with a header that
 * names the source and says the file is generated, plus the `SOURCE.handlers.mjs` wrapper module when
 * a tool takes positional parameters; then remove stale files generated earlier from the same source.
 * Unchanged files are not rewritten; changed ones are replaced atomically (write, then rename).
 *
 * Never overwrites a file it did not generate from the same source: that is an `ExtractError`
 * (`OUTPUT_CONFLICT`), raised before anything is written.
 *
 * @example
 * ```ts
 * const tools = await extractTools('src/tools.ts', { moduleOut: 'dist/tools.js' });
 * const { written } = await writeDefinitions(tools, 'tools'); // ['tools/search_emails.yaml', ...]
 * await registry.loadYamlDirectory('tools');
 * ```
 */
export async function writeDefinitions(
  tools: readonly ExtractedTool[],
  outDir: string,
): Promise<WriteDefinitionsResult> {
  const expected = generatedFiles(tools, outDir);
  const onDisk = await readGeneratedFolder(outDir);
  const sources = new Set(tools.map((tool) => tool.sourceFile));
  const conflicts: ExtractError[] = [];
  for (const name of expected.keys()) {
    const existing = onDisk.get(name);
    if (existing === undefined || (existing.source !== undefined && sources.has(existing.source))) continue;
    const file = join(outDir, name);
    conflicts.push(
      new ExtractError(
        'OUTPUT_CONFLICT',
        existing.source === undefined
          ? 'refusing to overwrite it: it was written by hand (it has no `toolshed extract` header); move it away or rename the tool.'
          : `refusing to overwrite it: it was generated from ${displayPath(existing.source)}, not from ${[...sources].map((source) => displayPath(source)).join(', ')}; two sources make the same tool.`,
        { file },
      ),
    );
  }
  if (conflicts.length > 0) throw combineExtractErrors(conflicts, displayPath(resolve(outDir)));
  const result: WriteDefinitionsResult = { written: [], unchanged: [], removed: [] };
  await mkdir(outDir, { recursive: true });
  for (const [name, text] of expected) {
    const file = join(outDir, name);
    if (onDisk.get(name)?.text === text) {
      result.unchanged.push(file);
      continue;
    }
    const temporary = join(outDir, `.${name}.${process.pid}.tmp`);
    await writeFile(temporary, text, 'utf8');
    await rename(temporary, file);
    result.written.push(file);
  }
  for (const existing of onDisk.values()) {
    if (expected.has(existing.name) || existing.source === undefined || !sources.has(existing.source)) continue;
    const file = join(outDir, existing.name);
    await rm(file, { force: true });
    result.removed.push(file);
  }
  return result;
}
