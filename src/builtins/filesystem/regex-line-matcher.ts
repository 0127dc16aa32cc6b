import { Worker } from 'node:worker_threads';
import { ToolshedError } from '../../core/errors/toolshed-error.js';

/** One matching line found by a {@link RegexLineMatcher}. */
export interface LineMatch {
  /** 1-based line number. */
  line: number;
  /** The line, cut to `maxShownChars`. */
  text: string;
  /** Up to `contextLines` lines before the match (when asked for). */
  before?: string[];
  /** Up to `contextLines` lines after the match (when asked for). */
  after?: string[];
}

/** Options of {@link RegexLineMatcher}. */
export interface RegexLineMatcherOptions {
  /** Characters of each line the pattern is tested against (longer lines are cut). */
  maxLineLength: number;
  /** Lines of context before and after each match (0 for none). */
  contextLines: number;
  /** Characters of a line returned to the caller. */
  maxShownChars: number;
}

/**
 * Rejection of {@link RegexLineMatcher.match} when the deadline passes, the signal aborts or the worker dies.
 *
 * @example
 * ```ts
 * matcher.match(text, 100, Date.now() + 1_000).catch((error) => {
 *   if (error instanceof MatcherStoppedError && error.reason === 'deadline') console.log('too slow');
 * });
 * ```
 */
export class MatcherStoppedError extends ToolshedError<'MATCHER_STOPPED'> {
  readonly reason: 'deadline' | 'aborted' | 'crashed';

  constructor(reason: 'deadline' | 'aborted' | 'crashed', message: string) {
    super('MATCHER_STOPPED', message);
    this.name = 'MatcherStoppedError';
    this.reason = reason;
  }
}

// Plain CommonJS run by an `eval` worker, so it works from the TypeScript sources and the build alike.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { source, flags, maxLineLength, contextLines, maxShownChars } = workerData;
const regex = new RegExp(source, flags);
const clip = (line) => (line.length > maxShownChars ? line.slice(0, maxShownChars) + '…' : line);
parentPort.on('message', ({ id, text, limit }) => {
  const lines = text.split('\\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) if (lines[i].endsWith('\\r')) lines[i] = lines[i].slice(0, -1);
  const matches = [];
  for (let i = 0; i < lines.length && matches.length < limit; i++) {
    const line = lines[i];
    if (!regex.test(line.length > maxLineLength ? line.slice(0, maxLineLength) : line)) continue;
    const match = { line: i + 1, text: clip(line) };
    if (contextLines > 0) {
      match.before = lines.slice(Math.max(0, i - contextLines), i).map(clip);
      match.after = lines.slice(i + 1, i + 1 + contextLines).map(clip);
    }
    matches.push(match);
  }
  parentPort.postMessage({ id, matches });
});
`;

/**
 * Tests a regular expression against the lines of texts in a worker thread, so that a pattern that
 * backtracks catastrophically (`(a+)+$`) costs a terminated worker, never a blocked event loop: a
 * JavaScript `RegExp` cannot be interrupted on the thread that runs it.
 *
 * @example
 * ```ts
 * const matcher = new RegexLineMatcher('TODO', 'i', { maxLineLength: 4000, contextLines: 0, maxShownChars: 500 });
 * try {
 *   const matches = await matcher.match('a\n// todo: b\n', 100, Date.now() + 5_000);
 *   // [{ line: 2, text: '// todo: b' }]
 * } finally {
 *   await matcher.close();
 * }
 * ```
 */
export class RegexLineMatcher {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve(matches: LineMatch[]): void; reject(error: Error): void }>();
  #nextId = 0;
  #failure: Error | undefined;

  /** `source` and `flags` must already compile (check with `new RegExp` first for a clear error). */
  constructor(source: string, flags: string, options: RegexLineMatcherOptions) {
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { source, flags, ...options },
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    this.#worker.on('message', (message: { id: number; matches: LineMatch[] }) => {
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      pending?.resolve(message.matches);
    });
    const fail = (error: Error) => {
      this.#failure ??= error;
      for (const pending of this.#pending.values()) pending.reject(this.#failure);
      this.#pending.clear();
    };
    this.#worker.on('error', (error) =>
      fail(new MatcherStoppedError('crashed', `The search worker failed: ${(error as Error).message}`)),
    );
    this.#worker.on('exit', () => fail(new MatcherStoppedError('crashed', 'The search worker stopped.')));
  }

  /**
   * The first `limit` matching lines of `text`. Rejects with {@link MatcherStoppedError} (and stops the
   * worker) when `deadline` (an epoch time in ms) passes or `signal` aborts first.
   */
  match(text: string, limit: number, deadline: number, signal?: AbortSignal): Promise<LineMatch[]> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise<LineMatch[]>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => stop(new MatcherStoppedError('aborted', 'The search was cancelled.'));
      const cleanup = () => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const stop = (error: MatcherStoppedError) => {
        cleanup();
        this.#pending.delete(id);
        this.#failure ??= error;
        reject(error);
        void this.#worker.terminate();
      };
      this.#pending.set(id, {
        resolve: (matches) => {
          cleanup();
          resolve(matches);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      timer = setTimeout(
        () => stop(new MatcherStoppedError('deadline', 'The search ran out of time.')),
        Math.max(0, deadline - Date.now()),
      );
      if (signal !== undefined) {
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
      }
      this.#worker.postMessage({ id, text, limit });
    });
  }

  /** Stop the worker. */
  async close(): Promise<void> {
    this.#failure ??= new MatcherStoppedError('aborted', 'The matcher is closed.');
    await this.#worker.terminate();
  }
}
