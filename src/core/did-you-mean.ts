import { distance } from 'fastest-levenshtein';

/**
 * Up to `limit` names from `candidates` closest to `name`, best first, or none when nothing is close.
 *
 * Names are compared after stripping namespace prefixes (`github__create_issue` → `create_issue`, as
 * tools imported from MCP servers are named) and case, so a model that drops or invents a prefix still
 * gets the right suggestion. A candidate counts as close when its edit distance is at most a third of
 * the longer name (at least 2), or when one name contains the other.
 *
 * @example
 * ```ts
 * closestNames('serach', ['search', 'fetch_url', 'calculator']); // ['search']
 * ```
 */
export function closestNames(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const wanted = baseName(name);
  const scored: Array<{ candidate: string; score: number }> = [];
  for (const candidate of candidates) {
    const base = baseName(candidate);
    const full = distance(name.toLowerCase(), candidate.toLowerCase());
    const stripped = distance(wanted, base);
    let score = Math.min(full, stripped);
    const threshold = Math.max(2, Math.floor(Math.max(wanted.length, base.length) / 3));
    if (score > threshold) {
      const contains = wanted.length >= 3 && base.length >= 3 && (base.includes(wanted) || wanted.includes(base));
      if (!contains) continue;
      score = threshold + 0.5;
    }
    scored.push({ candidate, score });
  }
  scored.sort((left, right) => left.score - right.score || (left.candidate < right.candidate ? -1 : 1));
  return scored.slice(0, limit).map((entry) => entry.candidate);
}

function baseName(name: string): string {
  const lower = name.toLowerCase();
  const separator = lower.lastIndexOf('__');
  const afterNamespace = separator >= 0 ? lower.slice(separator + 2) : lower;
  const dot = afterNamespace.lastIndexOf('.');
  return dot >= 0 ? afterNamespace.slice(dot + 1) : afterNamespace;
}

/**
 * The one of `candidates` that `value` (an argument name, an enum value) is most likely a misspelling
 * of, or `undefined`. Names of one or two characters (`a`, `b`, `x`, `id`) are all close to each other
 * by {@link closestNames}'s rule, so they are matched with nothing, on either side.
 *
 * @example
 * ```ts
 * likelyMisspelling('txet', ['text', 'count']); // 'text'
 * likelyMisspelling('b', ['a']); // undefined
 * ```
 */
export function likelyMisspelling(value: string, candidates: readonly string[]): string | undefined {
  if (value.length < 3) return undefined;
  return closestNames(
    value,
    candidates.filter((candidate) => candidate.length >= 3),
    1,
  )[0];
}
