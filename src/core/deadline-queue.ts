/** A pending deadline; `cancel()` it when the work finishes first. */
export interface Deadline {
  cancel(): void;
}

/**
 * Something with a deadline that is its own list node, so a caller with per-call state (a dispatched
 * call) queues that state instead of allocating a node and a callback. `expire()` runs when the
 * deadline passes; `cancel()` (inherited) takes the entry off its list.
 *
 * @example
 * ```ts
 * class Job extends DeadlineEntry {
 *   expire(): void {
 *     console.log('too late');
 *   }
 * }
 * const job = new Job();
 * queue.enqueue(1000, performance.now(), job);
 * job.cancel(); // finished in time
 * ```
 */
export abstract class DeadlineEntry implements Deadline {
  /** When the deadline passes, on the `performance.now()` clock. */
  at = 0;
  durationMs = 0;
  /** Set by `cancel()`: an entry not yet on its list stays off it. */
  cancelled = false;
  prev: DeadlineEntry | undefined = undefined;
  next: DeadlineEntry | undefined = undefined;
  list: DeadlineList | undefined = undefined;

  /** Called once when the deadline passes (the entry is already off its list). */
  abstract expire(): void;

  cancel(): void {
    this.cancelled = true;
    const list = this.list;
    if (list === undefined) return;
    unlink(this, list);
    if (list.head === undefined && !list.idleCheck) {
      list.idleCheck = true;
      nextTurn(() => releaseIfIdle(list));
    }
  }
}

class CallbackEntry extends DeadlineEntry {
  readonly #fire: () => void;

  constructor(fire: () => void) {
    super();
    this.#fire = fire;
  }

  expire(): void {
    this.#fire();
  }
}

type Node = DeadlineEntry;

// Node's timers have ref/unref; browsers and some edge runtimes return a plain number instead.
type TimerHandle = ReturnType<typeof setTimeout> & { ref?(): unknown; unref?(): unknown };

/** The entries of one duration, in start order, and the timer armed for the first. */
export interface DeadlineList {
  head: Node | undefined;
  tail: Node | undefined;
  timer: TimerHandle | undefined;
  /** Whether the timer currently keeps the process alive. */
  refed: boolean;
  /** Whether an idle check is scheduled. */
  idleCheck: boolean;
}

// Node has setImmediate; other runtimes get the next timer turn instead.
const nextTurn: (callback: () => void) => unknown =
  (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate ??
  ((callback: () => void) => setTimeout(callback, 0));

/**
 * Deadlines for many concurrent calls at the cost of an array slot each.
 *
 * A `setTimeout`/`clearTimeout` pair costs ~400 ns in Node 20, more than the rest of a dispatch.
 * Calls with the same duration expire in the order they start, so each duration keeps a FIFO list
 * and one timer armed for its head; cancelling unlinks an entry in O(1). Most calls finish within the
 * turn of the event loop they started in, before any timer could fire, so a new entry first waits in
 * an array, and only the ones still pending when the event loop turns join their lists: a call that
 * finishes in its turn costs a push and a flag. The timer is never cleared on the hot path: it is
 * re-armed only when it fires. When a list empties, the timer is unref'd on the next turn of the
 * event loop if the list is still empty then, so an idle process can exit while back-to-back calls
 * never toggle it.
 */
export class DeadlineQueue {
  readonly #lists = new Map<number, DeadlineList>();
  /** Entries added in this turn of the event loop, in the order they started. */
  readonly #young: DeadlineEntry[] = [];
  #flushScheduled = false;
  /** When `#young` is this long, cancelled entries are dropped from it (calls that never yield). */
  #compactAt = YOUNG_COMPACT_AT;

  /** Call `fire` after `durationMs` unless the returned deadline is cancelled first. */
  add(durationMs: number, now: number, fire: () => void): Deadline {
    const entry = new CallbackEntry(fire);
    this.enqueue(durationMs, now, entry);
    return entry;
  }

  /** Expire `entry` `durationMs` after `now` unless it is cancelled first; it must not be queued already. */
  enqueue(durationMs: number, now: number, entry: DeadlineEntry): void {
    entry.at = now + durationMs;
    entry.durationMs = durationMs;
    entry.cancelled = false;
    const young = this.#young;
    if (young.length >= this.#compactAt) this.#compact();
    young.push(entry);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      nextTurn(this.#flush);
    }
  }

  // The event loop turned: entries still pending join their lists (and timers).
  readonly #flush = (): void => {
    this.#flushScheduled = false;
    const young = this.#young;
    const now = performance.now();
    for (let index = 0; index < young.length; index++) {
      const entry = young[index] as DeadlineEntry;
      if (!entry.cancelled) this.#link(entry, now);
    }
    young.length = 0;
    this.#compactAt = YOUNG_COMPACT_AT;
  };

  #compact(): void {
    const young = this.#young;
    let kept = 0;
    for (let index = 0; index < young.length; index++) {
      const entry = young[index] as DeadlineEntry;
      if (!entry.cancelled) young[kept++] = entry;
    }
    young.length = kept;
    // Many entries still pending: compact less often, so adding stays O(1) amortised.
    if (kept * 2 > this.#compactAt) this.#compactAt *= 2;
  }

  #link(entry: DeadlineEntry, now: number): void {
    let list = this.#lists.get(entry.durationMs);
    if (list === undefined) {
      list = { head: undefined, tail: undefined, timer: undefined, refed: false, idleCheck: false };
      this.#lists.set(entry.durationMs, list);
    }
    entry.prev = list.tail;
    entry.list = list;
    if (list.tail === undefined) list.head = entry;
    else list.tail.next = entry;
    list.tail = entry;
    if (list.timer === undefined) arm(list, (list.head as DeadlineEntry).at - now);
    else if (!list.refed) {
      list.timer.ref?.();
      list.refed = true;
    }
  }
}

const YOUNG_COMPACT_AT = 1024;

function releaseIfIdle(list: DeadlineList): void {
  list.idleCheck = false;
  if (list.head === undefined && list.refed && list.timer !== undefined) {
    list.timer.unref?.();
    list.refed = false;
  }
}

function unlink(node: Node, list: DeadlineList): void {
  if (node.prev === undefined) list.head = node.next;
  else node.prev.next = node.next;
  if (node.next === undefined) list.tail = node.prev;
  else node.next.prev = node.prev;
  node.prev = undefined;
  node.next = undefined;
  node.list = undefined;
}

// setTimeout turns longer delays into 1 ms (with a warning); a deadline that far out is re-armed when
// the capped timer fires.
const MAX_TIMER_DELAY = 2_147_483_647;

function arm(list: DeadlineList, delay: number): void {
  list.timer = setTimeout(() => expire(list), Math.min(MAX_TIMER_DELAY, Math.max(0, delay))) as TimerHandle;
  list.refed = true;
}

function expire(list: DeadlineList): void {
  list.timer = undefined;
  list.refed = false;
  const now = performance.now();
  // A 1 ms tolerance: timers may fire a fraction of a millisecond early.
  while (list.head !== undefined && list.head.at <= now + 1) {
    const node = list.head;
    unlink(node, list);
    node.expire();
  }
  if (list.head !== undefined) arm(list, list.head.at - now);
}
