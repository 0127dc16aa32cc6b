/**
 * Fixture for `toolshed extract`: one tool per parameter mapping of docs/extract.md, plus functions
 * that must be ignored. The tools return what they received, so tests see what a call reached.
 */
import type { ToolContext } from '../../core/tool-spec.js';

/** A whole number: `toolshed extract` writes `type: integer` for it. */
export type Integer = number;

/** How urgent an event is. */
export enum Priority {
  Low = 1,
  Normal = 2,
  High = 3,
}

/** What the user shows to others. */
export enum Presence {
  Available = 'available',
  Busy = 'busy',
  Away = 'away',
}

/** What happens to deleted files. */
export enum DeleteMode {
  Trash = 'trash',
  Permanent = 'permanent',
}

/** Someone invited to an event. */
export interface Attendee {
  /** Email address of the attendee. */
  email: string;
  /** Whether they may skip the event. */
  optional?: boolean;
}

/** A calendar event to create. */
export interface EventInput {
  /** Title shown in the calendar. */
  title: string;
  /** When the event starts. */
  start: Date;
  /**
   * Length in minutes.
   * @defaultValue 30
   */
  durationMinutes?: Integer;
  /** Where it happens. */
  location: {
    /** Name of the place. */
    name: string;
    room?: string | null;
  };
  /** People to invite. */
  attendees: Array<Attendee>;
  priority: Priority;
  /** Free-form labels, by key. */
  labels?: Record<string, string>;
}

/** What to delete, and how. */
export type DeleteOptions = {
  /** Paths to delete, relative to the workspace. */
  paths: readonly string[];
  /** Delete folders with their contents. */
  recursive?: boolean;
  /** What happens to the files. */
  mode?: DeleteMode;
  /** Only files last modified this many days ago, as [from, to]. */
  modifiedBetween?: [from: Integer, to: Integer];
};

/**
 * Search the mailbox by full-text query.
 *
 * Ranking uses BM25; this second paragraph is not part of the description.
 *
 * @tool
 * @whenToUse When the user asks about an email they received or sent; search
 *   before reading a message.
 * @category email
 * @timeout 15
 * @readOnly
 * @idempotent
 * @param query - Words to look for in subjects and bodies.
 * @param limit - How many results to return.
 * @param sort - Order of the results.
 * @example
 * ```ts
 * searchEmails({ query: 'invoice' });
 * ```
 */
export function searchEmails({
  query,
  limit = 10,
  sort = 'newest',
  inboxes,
  unreadOnly = false,
}: {
  query: string;
  limit?: Integer;
  sort?: 'newest' | 'oldest' | 'relevance';
  /** Inboxes to search; every inbox when omitted. */
  inboxes?: string[];
  unreadOnly?: boolean;
}) {
  return { query, limit, sort, inboxes: inboxes ?? null, unreadOnly };
}

/**
 * Add two numbers and round the sum.
 *
 * @tool
 * @category math
 * @readOnly
 * @param a First addend.
 * @param b Second addend.
 * @param decimals Digits to keep after the decimal point.
 */
export function addNumbers(a: number, b: number, decimals: Integer = 2): number {
  const factor = 10 ** decimals;
  return Math.round((a + b) * factor) / factor;
}

/**
 * Create a calendar event and invite its attendees.
 *
 * @tool
 * @category calendar
 * @destructive false
 */
export function createEvent(event: EventInput) {
  return { ...event, startType: typeof event.start };
}

/**
 * Set the user's presence status.
 *
 * @tool
 * @category presence
 * @idempotent
 * @param status The new status.
 * @param message Shown next to the status; null clears it.
 * @param expiresInMinutes When the status resets; never when omitted.
 */
export function setStatus(status: Presence, message: string | null, expiresInMinutes: 15 | 30 | 60 | undefined) {
  return { status, message, expiresInMinutes: expiresInMinutes ?? null };
}

/**
 * Delete files from the workspace.
 *
 * @tool remove_files
 * @category filesystem
 * @destructive
 */
export const deleteFiles = (
  { paths, recursive = false, mode = DeleteMode.Trash, modifiedBetween }: DeleteOptions,
  context: ToolContext,
) => ({ paths, recursive, mode, modifiedBetween: modifiedBetween ?? null, tool: context.tool });

/**
 * Check that the tool server answers.
 *
 * @tool
 * @readOnly
 * @openWorld false
 */
export function ping(): string {
  return 'pong';
}

/**
 * Look words up in the glossary.
 *
 * @tool
 * @param terms Words to look up.
 * @param glossary Extra definitions by word, consulted first.
 */
function lookupWords(terms: string[], glossary: Record<string, string> = {}): Record<string, string | null> {
  const builtIn: Record<string, string> = { tool: 'A function a model can call.' };
  return Object.fromEntries(terms.map((term) => [term, glossary[term] ?? builtIn[term] ?? null]));
}
export { lookupWords };

/** Format a date for display: exported, but a helper, not a tool. */
export function formatDate(date: Date): string {
  return date.toISOString();
}

/**
 * Reset every mailbox: tagged, but not exported, so not a tool.
 *
 * @tool
 */
function resetMailboxes(): string {
  return 'reset';
}
void resetMailboxes;
