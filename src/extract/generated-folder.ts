import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generatedFrom } from './render-definitions.js';

/** Generated files are small; anything larger in the folder is not one of them. */
const MAX_GENERATED_BYTES = 1_000_000;

/** A file in an output folder: its name, its text (LF line ends) and the source its header names. */
export interface FolderFile {
  name: string;
  text: string;
  /** Absolute path of the source named in the generated-file header; `undefined` for a hand-written file. */
  source: string | undefined;
}

/**
 * The YAML files and `.handlers.mjs` modules directly in `outDir`, read, with the source each was
 * generated from. An absent folder has none. CRLF line ends are read as LF, so a checkout that
 * converts line ends does not look like drift.
 *
 * @example
 * ```ts
 * const files = await readGeneratedFolder('tools');
 * files.get('ping.yaml')?.source; // '/app/src/tools.ts' (undefined for a hand-written file)
 * ```
 */
export async function readGeneratedFolder(outDir: string): Promise<Map<string, FolderFile>> {
  const files = new Map<string, FolderFile>();
  let names: string[];
  try {
    names = await readdir(outDir);
  } catch (error) {
    // No folder there (or a file on its path): none of the files exist yet.
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return files;
    throw error;
  }
  for (const name of names.sort()) {
    if (!/\.ya?ml$/.test(name) && !name.endsWith('.handlers.mjs')) continue;
    const file = await readText(join(outDir, name));
    if (file === undefined) continue;
    files.set(name, { name, text: file, source: generatedFrom(file, outDir) });
  }
  return files;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    const buffer = await readFile(path);
    if (buffer.length > MAX_GENERATED_BYTES) return undefined;
    return buffer.toString('utf8').replace(/\r\n/g, '\n');
  } catch (error) {
    // A folder named like a definition, or a file removed meanwhile, is not a generated file.
    const code = (error as { code?: string }).code;
    if (code === 'EISDIR' || code === 'ENOENT') return undefined;
    throw error;
  }
}
