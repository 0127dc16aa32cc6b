import { distance } from 'fastest-levenshtein';
import { stemmer } from 'stemmer';
import type { JsonSchema } from '../core/json-schema.js';
import type { ToolSpec } from '../core/tool-spec.js';
import { ENGLISH_STOP_WORDS } from './english-stop-words.js';

/** One ranked match of a tool search. */
export interface ToolSearchHit {
  name: string;
  score: number;
  title?: string;
  description: string;
  category: string;
}

/** Options of a tool search. */
export interface ToolSearchOptions {
  /** At most this many hits (default 10). */
  limit?: number;
  /** Only tools of this category. */
  category?: string;
}

interface IndexedTool {
  name: string;
  title: string | undefined;
  description: string;
  category: string;
  /** Weighted length over all fields (BM25F). */
  length: number;
  /** The distinct terms of the tool, to update document frequencies on removal. */
  terms: string[];
}

interface Postings {
  slots: number[];
  weights: number[];
  /** Live tools containing the term. */
  documentFrequency: number;
}

// Field weights: a word in the name says more than one in a parameter description. A parameter's
// allowed values (`enum`: `Comedy`, `Psychiatrist`, `celsius`) name what the tool deals in as plainly
// as its description does; measured on the BFCL retrieval set, 0.5 to 1.5 rank alike. They are a
// menu, not prose, so they do not count in the tool's length: a long list of choices does not dilute
// the tool's other words (BM25's length normalisation).
const FIELD_WEIGHTS = {
  name: 3,
  title: 2,
  tags: 2,
  description: 1,
  whenToUse: 0.7,
  parameters: 0.5,
  choices: 1,
} as const;
// Measured on the BFCL retrieval set (bench/cases/search-bfcl.js): 0.6 ranks long descriptions a
// little better than the textbook 0.75.
const K1 = 1.2;
const B = 0.6;
const PREFIX_WEIGHT = 0.4;
const FUZZY_WEIGHT = 0.3;

/**
 * What the index reads of a tool: a {@link ToolSpec} fits, and so does a stored row's text.
 *
 * @example
 * ```ts
 * const tool: SearchableTool = { name: 'read_file', description: 'Read a file.', category: 'filesystem', tags: [], inputSchema: { type: 'object' } };
 * ```
 */
export type SearchableTool = Pick<
  ToolSpec,
  'name' | 'title' | 'description' | 'whenToUse' | 'category' | 'tags' | 'inputSchema'
>;

/**
 * A BM25F index over tools: name (split on `_`, `.`, `-` and camelCase), title, description,
 * when-to-use, tags, parameter names, titles and descriptions (nested objects and array items too),
 * and parameters' allowed values (`enum`, `const`), each field weighted. Words are stemmed (Porter:
 * `cooking` finds `cook`), and English stop words are left out, as are a query's bare numbers and
 * words of asking (`please`, `help`) beside other words, so a question such as "Could you help me
 * convert 100 euros to dollars, please?" is matched on `convert`, `euro` and `dollar`. A tool the
 * query names outright (`send_email`) comes first. Updated one tool at a time as the registry
 * changes; removals leave tombstones that are compacted in bulk.
 *
 * Queries score only the postings of their terms into a reused score array and keep the best `limit`
 * with a small heap, so a query matching half of 100 000 tools stays in single-digit milliseconds
 * (a general-purpose engine that builds and sorts a result object per match took ~200 ms there; see
 * docs/decisions/004-tool-search.md). The last query word also matches as a prefix (`calc` finds
 * `calculator`); when no word matches at all, each is corrected to the closest indexed words
 * (`calculater` finds `calculator`).
 *
 * @example
 * ```ts
 * const index = new ToolSearchIndex();
 * index.add(readFileTool);
 * index.search('open a file'); // [{ name: 'read_file', score: 4.2, ... }]
 * ```
 */
export class ToolSearchIndex {
  #tools: Array<IndexedTool | undefined> = [];
  readonly #slotOf = new Map<string, number>();
  #postings = new Map<string, Postings>();
  #sortedTerms: string[] | undefined;
  #totalLength = 0;
  #tombstones = 0;
  #scores = new Float64Array(0);

  /** Number of indexed tools. */
  get size(): number {
    return this.#slotOf.size;
  }

  /** Index a tool (a whole spec, or only what is searched), replacing an earlier one of the same name. */
  add(spec: SearchableTool): void {
    const parameters: string[] = [];
    const choices: string[] = [];
    collectSchemaText(spec.inputSchema.properties, 0, parameters, choices);
    this.#insert(spec.name, spec.title, spec.description, spec.category, {
      name: spec.name,
      title: spec.title ?? '',
      tags: spec.tags.join(' '),
      description: spec.description,
      whenToUse: spec.whenToUse ?? '',
      parameters: parameters.join(' '),
      choices: choices.join(' '),
    });
  }

  /** Index a tool known only by name (a factory that has not run yet). */
  addName(name: string): void {
    this.#insert(name, undefined, '', 'general', {
      name,
      title: '',
      tags: '',
      description: '',
      whenToUse: '',
      parameters: '',
      choices: '',
    });
  }

  /** Remove a tool; false when it was not indexed. */
  remove(name: string): boolean {
    const slot = this.#slotOf.get(name);
    if (slot === undefined) return false;
    const tool = this.#tools[slot]!;
    for (const term of tool.terms) {
      const postings = this.#postings.get(term);
      if (postings !== undefined) postings.documentFrequency--;
    }
    this.#totalLength -= tool.length;
    this.#tools[slot] = undefined;
    this.#slotOf.delete(name);
    this.#tombstones++;
    if (this.#tombstones > 1_000 && this.#tombstones > this.#slotOf.size) this.#compact();
    return true;
  }

  /** Remove every tool. */
  clear(): void {
    this.#tools = [];
    this.#slotOf.clear();
    this.#postings = new Map();
    this.#sortedTerms = undefined;
    this.#totalLength = 0;
    this.#tombstones = 0;
  }

  /** Tools ranked by relevance to `query`, best first. An empty query matches nothing. */
  search(query: string, options: ToolSearchOptions = {}): ToolSearchHit[] {
    const limit = Math.max(0, Math.min(Math.floor(options.limit ?? 10), 1_000));
    const words = queryTerms(query.slice(0, 1_000)).slice(0, 32);
    if (words.length === 0 || limit === 0 || this.#slotOf.size === 0) return [];
    const live = this.#slotOf.size;
    const averageLength = this.#totalLength / live || 1;
    if (this.#scores.length < this.#tools.length) this.#scores = new Float64Array(this.#tools.length * 2);
    const scores = this.#scores;
    const touched: number[] = [];

    const scoreTerm = (term: string, weight: number) => {
      const postings = this.#postings.get(term);
      if (postings === undefined || postings.documentFrequency <= 0) return;
      const idf = Math.log(1 + (live - postings.documentFrequency + 0.5) / (postings.documentFrequency + 0.5));
      const { slots, weights } = postings;
      for (let index = 0; index < slots.length; index++) {
        const slot = slots[index]!;
        const tool = this.#tools[slot];
        if (tool === undefined) continue;
        const frequency = weights[index]!;
        const norm = frequency + K1 * (1 - B + (B * tool.length) / averageLength);
        if (scores[slot] === 0) touched.push(slot);
        scores[slot]! += weight * idf * ((frequency * (K1 + 1)) / norm);
      }
    };

    const distinct = [...new Set(words)];
    distinct.forEach((word, position) => {
      if (this.#postings.has(word)) scoreTerm(word, 1);
      // The last word may still be being typed: let it match longer words too.
      if (position === distinct.length - 1 && word.length >= 3) {
        for (const term of this.#termsStartingWith(word)) if (term !== word) scoreTerm(term, PREFIX_WEIGHT);
      }
    });
    // Nothing matched: the words are probably misspelt. (Correcting every unknown word of a longer
    // query, such as a proper name, only added noise: no better recall on BFCL.)
    if (touched.length === 0) {
      for (const word of distinct) {
        if (word.length >= 4) for (const term of this.#closeTerms(word)) scoreTerm(term, FUZZY_WEIGHT);
      }
    }
    // A tool named outright ("then use `sort_list`") comes before every tool that only shares words.
    const named = this.#namedTools(query.slice(0, 1_000));
    if (named.length > 0) {
      let highest = 0;
      for (const slot of touched) highest = Math.max(highest, scores[slot]!);
      for (const slot of named) {
        if (scores[slot] === 0) touched.push(slot);
        scores[slot]! += highest + 1;
      }
    }

    const best = topK(
      touched,
      scores,
      limit,
      options.category === undefined ? undefined : (slot) => this.#tools[slot]!.category === options.category,
    );
    const hits = best.map((slot) => {
      const tool = this.#tools[slot]!;
      const hit: ToolSearchHit = {
        name: tool.name,
        score: scores[slot]!,
        description: tool.description,
        category: tool.category,
      };
      if (tool.title !== undefined) hit.title = tool.title;
      return hit;
    });
    for (const slot of touched) scores[slot] = 0;
    return hits;
  }

  #insert(
    name: string,
    title: string | undefined,
    description: string,
    category: string,
    fields: Record<keyof typeof FIELD_WEIGHTS, string>,
  ): void {
    if (this.#slotOf.has(name)) this.remove(name);
    const frequencies = new Map<string, number>();
    let length = 0;
    for (const field of Object.keys(FIELD_WEIGHTS) as Array<keyof typeof FIELD_WEIGHTS>) {
      const weight = FIELD_WEIGHTS[field];
      const tokens = searchTerms(fields[field]);
      if (field !== 'choices') length += weight * tokens.length;
      for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + weight);
    }
    const slot = this.#tools.length;
    this.#tools.push({ name, title, description, category, length, terms: [...frequencies.keys()] });
    this.#slotOf.set(name, slot);
    this.#totalLength += length;
    for (const [term, frequency] of frequencies) {
      let postings = this.#postings.get(term);
      if (postings === undefined) {
        postings = { slots: [], weights: [], documentFrequency: 0 };
        this.#postings.set(term, postings);
        this.#sortedTerms = undefined;
      }
      postings.slots.push(slot);
      postings.weights.push(frequency);
      postings.documentFrequency++;
    }
  }

  // Rebuild postings without tombstones, renumbering slots densely.
  #compact(): void {
    const tools = this.#tools.filter((tool): tool is IndexedTool => tool !== undefined);
    const renumber = new Map<number, number>();
    this.#tools.forEach((tool, slot) => {
      if (tool !== undefined) renumber.set(slot, renumber.size);
    });
    const postings = new Map<string, Postings>();
    for (const [term, old] of this.#postings) {
      if (old.documentFrequency <= 0) continue;
      const next: Postings = { slots: [], weights: [], documentFrequency: old.documentFrequency };
      old.slots.forEach((slot, index) => {
        const moved = renumber.get(slot);
        if (moved !== undefined) {
          next.slots.push(moved);
          next.weights.push(old.weights[index]!);
        }
      });
      postings.set(term, next);
    }
    this.#tools = tools;
    this.#postings = postings;
    this.#sortedTerms = undefined;
    this.#slotOf.clear();
    for (const [slot, tool] of tools.entries()) this.#slotOf.set(tool.name, slot);
    this.#tombstones = 0;
  }

  // The tools whose whole name the query spells out: only compound names (`send_email`,
  // `math.factorial`, `getWeather`), as a plain word such as `help` is left to the ranking.
  #namedTools(query: string): number[] {
    const slots: number[] = [];
    for (const token of query.split(/[^\p{L}\p{N}_.-]+/u)) {
      const name = token.replace(/^[.-]+|[.-]+$/g, '');
      if (name.length < 3 || !/[_.-]|\p{Ll}\p{Lu}/u.test(name)) continue;
      const slot = this.#slotOf.get(name) ?? this.#slotOf.get(name.toLowerCase());
      if (slot !== undefined && !slots.includes(slot)) slots.push(slot);
      if (slots.length >= 32) break;
    }
    return slots;
  }

  #termsStartingWith(prefix: string): string[] {
    this.#sortedTerms ??= [...this.#postings.keys()].sort();
    const terms = this.#sortedTerms;
    let low = 0;
    let high = terms.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (terms[middle]! < prefix) low = middle + 1;
      else high = middle;
    }
    const found: string[] = [];
    for (let index = low; index < terms.length && terms[index]!.startsWith(prefix) && found.length < 50; index++)
      found.push(terms[index]!);
    return found;
  }

  #closeTerms(word: string): string[] {
    // Two edits only in long words: in short ones they reach other words (`french` → `fetch`).
    const allowed = word.length >= 8 ? 2 : 1;
    const close: string[] = [];
    for (const term of this.#postings.keys()) {
      if (Math.abs(term.length - word.length) > allowed || term[0] !== word[0]) continue;
      if (distance(term, word) <= allowed || swapsTwoLetters(term, word)) close.push(term);
      if (close.length >= 10) break;
    }
    return close;
  }
}

/** Whether `a` is `b` with two neighbouring letters swapped (`emial` and `email`): one slip of the fingers. */
function swapsTwoLetters(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let first = -1;
  for (let index = 0; index < a.length; index++) {
    if (a[index] === b[index]) continue;
    if (first !== -1)
      return (
        index === first + 1 &&
        a[first] === b[index] &&
        a[index] === b[first] &&
        a.slice(index + 1) === b.slice(index + 1)
      );
    first = index;
  }
  return false;
}

// How deep parameter schemas are read (objects in arrays in objects…) and how many allowed values are
// kept per tool: enough for any real schema, bounded for a generated one.
const MAX_SCHEMA_DEPTH = 4;
const MAX_CHOICES = 200;

/**
 * The words of parameter schemas: each property's name, title and description, and its allowed string
 * values (`enum`, `const`), through nested objects, array items and `anyOf`/`oneOf`/`allOf` branches
 * (where zod and others put an optional or nullable choice).
 */
function collectSchemaText(
  properties: Record<string, JsonSchema> | undefined,
  depth: number,
  parameters: string[],
  choices: string[],
): void {
  if (typeof properties !== 'object' || properties === null || depth >= MAX_SCHEMA_DEPTH) return;
  for (const [key, schema] of Object.entries(properties)) {
    parameters.push(key);
    collectSchemaNode(schema, depth, parameters, choices);
  }
}

function collectSchemaNode(schema: unknown, depth: number, parameters: string[], choices: string[]): void {
  if (typeof schema !== 'object' || schema === null || depth >= MAX_SCHEMA_DEPTH) return;
  const node = schema as JsonSchema;
  if (typeof node.title === 'string') parameters.push(node.title);
  if (typeof node.description === 'string') parameters.push(node.description);
  const allowed = Array.isArray(node.enum) ? node.enum : node.const === undefined ? [] : [node.const];
  for (const value of allowed) {
    if (choices.length >= MAX_CHOICES) break;
    if (typeof value === 'string') choices.push(value);
  }
  collectSchemaText(node.properties, depth + 1, parameters, choices);
  if (node.items !== undefined && typeof node.items === 'object')
    collectSchemaNode(node.items, depth + 1, parameters, choices);
  for (const branches of [node.anyOf, node.oneOf, node.allOf]) {
    if (Array.isArray(branches))
      for (const branch of branches) collectSchemaNode(branch, depth + 1, parameters, choices);
  }
}

const STOPWORDS: ReadonlySet<string> = new Set(ENGLISH_STOP_WORDS);
const NUMBER = /^\p{N}+$/u;

/**
 * The search terms of a text: words split on anything that is not a letter or digit and at camelCase
 * humps (`getHTTPResponse` → get, http, response), lower-cased, without English stop words,
 * Porter-stemmed.
 */
function searchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of text.split(/[^\p{L}\p{N}]+|(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u)) {
    if (word.length === 0) continue;
    const lower = word.toLowerCase();
    if (!STOPWORDS.has(lower)) terms.push(NUMBER.test(lower) ? lower : stem(lower));
  }
  return terms;
}

// Stemming is the costliest step of indexing; a catalogue repeats the same few thousand words.
const stems = new Map<string, string>();
function stem(word: string): string {
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    if (stems.size >= 100_000) stems.clear();
    stemmed = stemmer(word);
    stems.set(word, stemmed);
  }
  return stemmed;
}

// Words of asking rather than of the task ("Hi, could you help me check the weather, please?"): left
// out of a query that has other words, so `help` tools do not outrank the weather. Still indexed, and
// still searched alone ("help").
const REQUEST_WORDS: ReadonlySet<string> = new Set(
  ['hi', 'hey', 'hello', 'please', 'thanks', 'thank', 'help', 'tell', 'want', 'need', 'know'].map(stemmer),
);

/**
 * The terms of a query: its search terms, without bare numbers and words of asking unless it has
 * nothing else (the values in "convert 100 euros" say nothing about which tool to use; `2999` alone
 * may be a name).
 */
function queryTerms(query: string): string[] {
  const terms = searchTerms(query);
  const words = terms.filter((term) => !NUMBER.test(term) && !REQUEST_WORDS.has(term));
  return words.length > 0 ? words : terms;
}

/** The `limit` slots with the highest scores, best first (ties by slot, i.e. insertion order). */
function topK(
  slots: number[],
  scores: Float64Array,
  limit: number,
  keep: ((slot: number) => boolean) | undefined,
): number[] {
  // A min-heap of the best so far: each candidate costs O(log limit).
  const heap: number[] = [];
  const better = (left: number, right: number) =>
    scores[left]! > scores[right]! || (scores[left] === scores[right] && left < right);
  const siftDown = (start: number) => {
    let index = start;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && better(heap[smallest]!, heap[left]!)) smallest = left;
      if (right < heap.length && better(heap[smallest]!, heap[right]!)) smallest = right;
      if (smallest === index) return;
      [heap[index], heap[smallest]] = [heap[smallest]!, heap[index]!];
      index = smallest;
    }
  };
  for (const slot of slots) {
    if (keep !== undefined && !keep(slot)) continue;
    if (heap.length < limit) {
      heap.push(slot);
      let index = heap.length - 1;
      while (index > 0) {
        const parent = (index - 1) >>> 1;
        if (!better(heap[parent]!, heap[index]!)) break;
        [heap[index], heap[parent]] = [heap[parent]!, heap[index]!];
        index = parent;
      }
    } else if (better(slot, heap[0]!)) {
      heap[0] = slot;
      siftDown(0);
    }
  }
  return heap.sort((left, right) => (better(left, right) ? -1 : 1));
}
