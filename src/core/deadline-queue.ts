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
  // Set in the constructor rather than as class fields: V8 (Node 20) builds subclasses of a class with
  // fields more slowly, and a dispatched call makes one per call to an async handler.
  /** When the deadline passes, on the `performance.now()` clock. */
  declare at: number;
  declare durationMs: number;
  declare prev: DeadlineEntry | undefined;
  declare next: DeadlineEntry | undefined;
  /** The list the entry is on: its duration's, or the queue's entries of this turn. */
  declare list: DeadlineList | undefined;

  constructor() {
    this.at = 0;
    this.durationMs = 0;
    this.prev = undefined;
    this.next = undefined;
    this.list = undefined;
  }

  /** Called once when the deadline passes (the entry is already off its list). */
  abstract expire(): void;

  cancel(): void {
    const list = this.list;
    if (list === undefined) return;
    unlink(this, list);
    // Only a list with a timer has one to release (the entries of this turn never have one).
    if (list.head === undefined && list.timer !== undefined && !list.idleCheck) {
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
 * Deadlines for many concurrent calls at the cost of linking a node each.
 *
 * A `setTimeout`/`clearTimeout` pair costs ~400 ns in Node 20, more than the rest of a dispatch.
 * Calls with the same duration expire in the order they start, so each duration keeps a FIFO list
 * and one timer armed for its head; cancelling unlinks an entry in O(1). Most calls finish within the
 * turn of the event loop they started in, before any timer could fire, so a new entry first joins the
 * list of this turn's entries, and only the ones still pending when the event loop turns move to their
 * duration's list (and timer): a call that finishes in its turn costs a link and an unlink, and leaves
 * nothing behind that keeps it alive. The timer is never cleared on the hot path: it is re-armed only
 * when it fires. When a list empties, the timer is unref'd on the next turn of the event loop if the
 * list is still empty then, so an idle process can exit while back-to-back calls never toggle it.
 */
export class DeadlineQueue {
  readonly #lists = new Map<number, DeadlineList>();
  /** Entries added in this turn of the event loop and not cancelled, in the order they started. */
  readonly #young: DeadlineList = newList();
  #flushScheduled = false;

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
    append(entry, this.#young);
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
    let entry = young.head;
    young.head = undefined;
    young.tail = undefined;
    while (entry !== undefined) {
      const next = entry.next;
      entry.prev = undefined;
      entry.next = undefined;
      this.#link(entry, now);
      entry = next;
    }
  };

  #link(entry: DeadlineEntry, now: number): void {
    let list = this.#lists.get(entry.durationMs);
    if (list === undefined) {
      list = newList();
      this.#lists.set(entry.durationMs, list);
    }
    append(entry, list);
    if (list.timer === undefined) arm(list, (list.head as DeadlineEntry).at - now);
    else if (!list.refed) {
      list.timer.ref?.();
      list.refed = true;
    }
  }
}

function newList(): DeadlineList {
  return { head: undefined, tail: undefined, timer: undefined, refed: false, idleCheck: false };
}

function append(node: Node, list: DeadlineList): void {
  node.prev = list.tail;
  node.list = list;
  if (list.tail === undefined) list.head = node;
  else list.tail.next = node;
  list.tail = node;
}

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
