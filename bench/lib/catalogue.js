/**
 * A realistic, deterministic tool catalogue for the search case: names (snake_case `verb_object`),
 * titles, descriptions and parameter names drawn from a Zipf-distributed vocabulary, and queries
 * drawn the same way. Seeded, so every run searches the same tools with the same queries.
 */

/**
 * A seeded PRNG (mulberry32): the same seed gives the same sequence of floats in [0, 1).
 *
 * @param {number} seed
 * @returns {() => number}
 */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * A sampler of ranks 0 … `size` − 1 with P(rank k) ∝ 1 / (k + 1)^`exponent` (Zipf's law).
 *
 * @param {number} size
 * @param {() => number} random
 * @param {number} [exponent]
 * @returns {() => number}
 */
function zipfSampler(size, random, exponent = 1) {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let rank = 0; rank < size; rank++) {
    total += 1 / (rank + 1) ** exponent;
    cumulative[rank] = total;
  }
  return () => {
    const target = random() * total;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle] < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

/** Verbs of tool names, most common first (their own Zipf ranking). */
const VERBS = [
  'get', 'list', 'create', 'update', 'delete', 'search', 'send', 'read', 'find', 'add', 'set', 'check',
  'run', 'fetch', 'write', 'remove', 'upload', 'download', 'convert', 'generate', 'validate', 'parse',
  'export', 'import', 'sync', 'schedule', 'cancel', 'approve', 'reject', 'archive', 'summarize',
  'translate', 'compare', 'merge', 'split', 'resolve', 'assign', 'publish', 'render', 'count',
]; // biome-ignore format: one list

const ONSETS = ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z', 'br', 'ch', 'cl', 'dr', 'fl', 'gr', 'pl', 'pr', 'sh', 'st', 'th', 'tr']; // biome-ignore format: one list
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou'];
const CODAS = ['', '', '', 'n', 'r', 's', 't', 'l', 'm', 'ck', 'nd', 'st'];

/** Words every description sentence is glued with; never drawn into queries. */
const GLUE = ['the', 'a', 'for', 'of', 'and', 'with', 'to', 'in', 'by', 'from'];

/**
 * `size` distinct lowercase pseudo-words, ranked: like natural language, frequent words are short
 * (1–2 syllables in the top 200 ranks, 2–3 below).
 *
 * @param {number} size
 * @param {() => number} random
 * @returns {string[]}
 */
function pseudoWords(size, random) {
  const pick = (/** @type {string[]} */ list) => list[Math.floor(random() * list.length)];
  const taken = new Set([...VERBS, ...GLUE]);
  const words = [];
  while (words.length < size) {
    const syllables = words.length < 200 ? 1 + Math.floor(random() * 2) : 2 + Math.floor(random() * 2);
    let word = '';
    for (let index = 0; index < syllables; index++) word += pick(ONSETS) + pick(VOWELS);
    word += pick(CODAS);
    if (word.length >= 3 && !taken.has(word)) {
      taken.add(word);
      words.push(word);
    }
  }
  return words;
}

/**
 * The tool options of a catalogue of `count` tools, and `queryCount` queries of 1–3 words, from a
 * vocabulary of `vocabularySize` words (the 40 verbs plus pseudo-words), each drawn with Zipf's law.
 *
 * - name: `verb_object`, made unique by a second object word (`verb_object_word`, up to 3 tries)
 *   and, failing that, a number; title: the name's words capitalised.
 * - description: one sentence of 8–20 words (verb, object, then vocabulary words with glue words
 *   between some of them).
 * - parameters: 1–4, each named by one or two vocabulary words, with a 3–8 word description.
 * - queries: 1–3 distinct words, the first a verb one time in three, the rest vocabulary words.
 *
 * @param {{ count: number, queryCount: number, vocabularySize?: number, seed?: number }} options
 * @returns {{ tools: Array<Record<string, unknown>>, queries: string[], vocabularySize: number }}
 */
export function zipfCatalogue({ count, queryCount, vocabularySize = 5_000, seed = 20_261_122 }) {
  const random = seededRandom(seed);
  const words = pseudoWords(vocabularySize - VERBS.length, random);
  const word = (() => {
    const rank = zipfSampler(words.length, random);
    return () => words[rank()];
  })();
  const verb = (() => {
    const rank = zipfSampler(VERBS.length, random);
    return () => VERBS[rank()];
  })();
  const glue = () => GLUE[Math.floor(random() * GLUE.length)];
  const between = (/** @type {number} */ low, /** @type {number} */ high) =>
    low + Math.floor(random() * (high - low + 1));
  const sentence = (/** @type {number} */ length) => {
    const parts = [];
    for (let index = 0; index < length; index++) parts.push(random() < 0.3 ? `${glue()} ${word()}` : word());
    return parts.join(' ');
  };

  const names = new Set();
  const tools = [];
  for (let index = 0; index < count; index++) {
    const action = verb();
    const object = word();
    let name = `${action}_${object}`;
    for (let extra = 0; extra < 3 && names.has(name); extra++) name = `${action}_${object}_${word()}`;
    if (names.has(name)) name = `${name}_${index}`;
    names.add(name);
    const properties = {};
    const parameterCount = between(1, 4);
    for (let parameter = 0; parameter < parameterCount; parameter++) {
      const key = random() < 0.4 ? `${word()}_${word()}` : word();
      properties[key] = { type: 'string', description: `The ${sentence(between(3, 8))}.` };
    }
    const required = Object.keys(properties).slice(0, 1);
    tools.push({
      name,
      title: name
        .split('_')
        .map((part) => part[0].toUpperCase() + part.slice(1))
        .join(' '),
      description: `${action[0].toUpperCase()}${action.slice(1)} the ${object} ${sentence(between(6, 18))}.`,
      inputSchema: { type: 'object', properties, required },
      handler: () => name,
    });
  }

  const queries = [];
  for (let index = 0; index < queryCount; index++) {
    const length = between(1, 3);
    const parts = [random() < 1 / 3 ? verb() : word()];
    while (parts.length < length) {
      const next = word();
      if (!parts.includes(next)) parts.push(next);
    }
    queries.push(parts.join(' '));
  }
  return { tools, queries, vocabularySize: words.length + VERBS.length };
}
