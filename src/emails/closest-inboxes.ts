import { distance } from 'fastest-levenshtein';
import { closestNames } from '../core/did-you-mean.js';

/**
 * `closestNames` reads `a__b` and `a.b` as a namespace and a name, and compares the part after the
 * last dot too: every `…@enron.example` would then be as close as can be to every other. Inbox names
 * are compared whole, so their dots and underscores are swapped for private-use characters first
 * (one for one, so edit distances do not change).
 */
const DOT = '\uE000';
const UNDERSCORE = '\uE001';

function opaque(name: string): string {
  return name.replaceAll('.', DOT).replaceAll('_', UNDERSCORE);
}

/**
 * The inbox names of `candidates` closest to `inbox` (at most `limit`), or none when nothing is close.
 * A name is close by the rule of the registry's "did you mean" for tool names (edit distance at most
 * a third of the longer name, ignoring case, or one name containing the other), over whole inbox
 * names; of those, only the ones at the smallest edit distance are kept, because addresses of one
 * domain share most of their letters: `alcie@enron.com` is as close to `bob@enron.com` as that rule
 * goes, but `alice@enron.com` is closer.
 *
 * @example
 * ```ts
 * closestInboxes('jhon.arnold@enron.example', ['john.arnold@enron.example', 'jane.doe@enron.example']);
 * // ['john.arnold@enron.example']
 * ```
 */
export function closestInboxes(inbox: string, candidates: Iterable<string>, limit = 3): string[] {
  const byOpaque = new Map<string, string>();
  for (const candidate of candidates) byOpaque.set(opaque(candidate), candidate);
  const close = closestNames(opaque(inbox), byOpaque.keys(), Number.POSITIVE_INFINITY);
  const wanted = inbox.toLowerCase();
  const scored = close.map((name) => {
    const candidate = byOpaque.get(name) ?? name;
    return { candidate, score: distance(wanted, candidate.toLowerCase()) };
  });
  const best = Math.min(...scored.map((entry) => entry.score));
  return scored
    .filter((entry) => entry.score === best)
    .slice(0, limit)
    .map((entry) => entry.candidate);
}
