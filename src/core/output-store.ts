/** One page of a stored output. */
export interface OutputPage {
  handle: string;
  text: string;
  offset: number;
  /** Where the next page starts; absent on the last page. */
  nextOffset?: number;
  totalChars: number;
}

interface StoredOutput {
  text: string;
  tool: string;
}

/**
 * Full outputs of calls that were truncated by `maxOutputChars`, kept for `read_tool_output`.
 *
 * Bounded by total characters (oldest evicted first), so a long-running process does not grow
 * without limit.
 */
export class OutputStore {
  readonly #entries = new Map<string, StoredOutput>();
  readonly #capacityChars: number;
  #usedChars = 0;
  #counter = 0;

  constructor(capacityChars = 50_000_000) {
    this.#capacityChars = capacityChars;
  }

  /** The largest single output that can be kept. */
  get capacityChars(): number {
    return this.#capacityChars;
  }

  /** Keep `text` and return its handle. */
  put(tool: string, text: string): string {
    this.#counter++;
    const handle = `out_${this.#counter.toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
    this.#entries.set(handle, { text, tool });
    this.#usedChars += text.length;
    for (const [oldest, entry] of this.#entries) {
      if (this.#usedChars <= this.#capacityChars || oldest === handle) break;
      this.#entries.delete(oldest);
      this.#usedChars -= entry.text.length;
    }
    return handle;
  }

  /** A page of the output behind `handle`, or `undefined` when the handle is unknown or evicted. */
  read(handle: string, offset: number, limit: number): OutputPage | undefined {
    const entry = this.#entries.get(handle);
    if (entry === undefined) return undefined;
    const start = Math.min(Math.max(0, offset), entry.text.length);
    const end = Math.min(entry.text.length, start + limit);
    const page: OutputPage = {
      handle,
      text: entry.text.slice(start, end),
      offset: start,
      totalChars: entry.text.length,
    };
    if (end < entry.text.length) page.nextOffset = end;
    return page;
  }
}
