const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration of the configuration and the CLI (`30d`, `12h`, `90m`, `45s`, `500ms`) in milliseconds,
 * or `undefined` when it is not one. A module of its own, so that `toolshed serve`'s flags can read
 * durations without loading the configuration's validator on every start of the CLI.
 *
 * @example
 * ```ts
 * durationMs('30d'); // 2592000000
 * ```
 */
export function durationMs(value: unknown): number | undefined {
  const match = typeof value === 'string' ? /^([1-9][0-9]{0,8})(ms|s|m|h|d)$/.exec(value) : null;
  if (match === null) return undefined;
  return Number(match[1]) * (DURATION_UNITS_MS[match[2] as string] as number);
}
