/** Size and time limits of the filesystem tools. Every field is optional; defaults are below. */
export interface FileToolLimits {
  /** Largest file `read_file` returns whole (default 1 MB); bigger files need a line range. */
  maxReadBytes?: number;
  /** Largest file `read_file` scans for a line range (default 20 MB). */
  maxScanBytes?: number;
  /** Largest content `write_file` writes (default 5 MB). */
  maxWriteBytes?: number;
  /** Most entries `list_files` shows (default 1000). */
  maxListEntries?: number;
  /** Files bigger than this are skipped by `search_code` (default 2 MB). */
  maxSearchFileBytes?: number;
  /** `search_code` stops after reading this many bytes in total (default 100 MB). */
  maxSearchBytes?: number;
  /** `search_code` stops after this many files (default 50 000). */
  maxSearchFiles?: number;
  /** Characters of a line `search_code` matches against; the rest of a longer line is ignored (default 4000). */
  maxLineLength?: number;
  /** Wall time `search_code` may take, in milliseconds (default 10 000). */
  searchTimeoutMs?: number;
}

/** {@link FileToolLimits} with every default filled in. */
export type ResolvedFileToolLimits = Required<FileToolLimits>;

/** The default {@link FileToolLimits}. */
export const DEFAULT_FILE_TOOL_LIMITS: Readonly<ResolvedFileToolLimits> = Object.freeze({
  maxReadBytes: 1024 * 1024,
  maxScanBytes: 20 * 1024 * 1024,
  maxWriteBytes: 5 * 1024 * 1024,
  maxListEntries: 1000,
  maxSearchFileBytes: 2 * 1024 * 1024,
  maxSearchBytes: 100 * 1024 * 1024,
  maxSearchFiles: 50_000,
  maxLineLength: 4000,
  searchTimeoutMs: 10_000,
});

/**
 * Fill in the defaults, refusing (`RangeError`) limits that are not positive numbers.
 *
 * @example
 * ```ts
 * resolveFileToolLimits({ maxReadBytes: 4096 }).maxWriteBytes; // 5242880
 * ```
 */
export function resolveFileToolLimits(limits: FileToolLimits = {}): ResolvedFileToolLimits {
  const resolved = { ...DEFAULT_FILE_TOOL_LIMITS };
  for (const key of Object.keys(DEFAULT_FILE_TOOL_LIMITS) as Array<keyof FileToolLimits>) {
    const value = limits[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !(value > 0)) {
      throw new RangeError(`File tool limit ${key} must be a number greater than 0, got ${String(value)}.`);
    }
    resolved[key] = value;
  }
  return resolved;
}

/**
 * A byte count for people.
 *
 * @example
 * ```ts
 * formatBytes(512); // '512 bytes'
 * formatBytes(1536); // '1.5 KB'
 * formatBytes(20 * 1024 * 1024); // '20 MB'
 * ```
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = value >= 10 ? Math.round(value).toString() : value.toFixed(1).replace(/\.0$/, '');
  return `${shown} ${units[unit]}`;
}
