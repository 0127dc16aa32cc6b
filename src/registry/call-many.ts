import type { CallContextOptions } from '../core/call-context.js';
import { describeValue } from '../core/define-tool.js';
import { type CallOptions, type DispatchRuntime, deliverFailure, type PreparedTool } from '../core/dispatch.js';
import { ToolResult } from '../core/tool-result.js';

/** One of a model's parallel tool calls. */
export interface BatchCall {
  /** The model's tool-call id, echoed in the result's metadata. */
  id?: string;
  name: string;
  /** Arguments as an object or JSON text. */
  args?: unknown;
}

/**
 * An entry of `callMany`'s list, read once: a call, or why the entry is not one (`problem`, a
 * sentence) with what could be read of it.
 */
export type BatchEntry = { call: BatchCall } | { problem: string; name: string; id?: string; args?: unknown };

/** Options of `callMany`: one signal and one context for every call of the batch. */
export interface CallManyOptions {
  signal?: AbortSignal;
  context?: CallContextOptions;
}

/** What `callMany` needs of a registry. */
export interface BatchTarget {
  /** The registry's `call`. */
  call(name: string, args: unknown, options: CallOptions): Promise<ToolResult>;
  /** The prepared tool of that name, or `undefined` when there is none or its factory fails. */
  find(name: string): PreparedTool | undefined;
  /** The runtime a refused entry's result is delivered through (its hooks see it). */
  readonly runtime: DispatchRuntime;
  /** The bound on concurrent calls of the batch. */
  readonly maxConcurrency: number;
}

/**
 * Run a model's parallel tool calls on `target` (see `ToolRegistry.callMany`): read-only tools
 * concurrently, any other tool alone and in order; results in the calls' order, one per index. An
 * entry that is not a call gets an `INVALID_ARGUMENTS` result at its index; an argument that is not
 * an array, a list of one such result. Never throws.
 *
 * @example
 * ```ts
 * const results = await callMany(
 *   { call: (name, args, options) => registry.call(name, args, options), find, runtime, maxConcurrency: 8 },
 *   [{ id: 'call_1', name: 'search', args: { query: 'x' } }],
 * );
 * ```
 */
export function callMany(
  target: BatchTarget,
  calls: readonly BatchCall[],
  options: CallManyOptions = {},
): Promise<ToolResult[]> {
  const signal = options?.signal;
  const context = options?.context;
  const callOptions = (id: string | undefined): CallOptions => ({
    ...(signal === undefined ? {} : { signal }),
    ...(id === undefined ? {} : { toolCallId: id }),
    ...(context === undefined ? {} : { context }),
  });
  const reject = (problem: string, name: string, args: unknown, id: string | undefined) =>
    deliverFailure(
      name,
      args,
      callOptions(id),
      target.runtime,
      ToolResult.error('INVALID_ARGUMENTS', problem, {
        hint: "Pass an array of calls, each { name: 'tool_name', args: {...}, id?: 'call_id' }.",
      }),
    );
  const entries = readBatch(calls);
  if (typeof entries === 'string') return reject(entries, '', undefined, undefined).then((result) => [result]);
  return runCallMany(entries, {
    run: (entry) =>
      'call' in entry
        ? target.call(entry.call.name, entry.call.args, callOptions(entry.call.id))
        : reject(entry.problem, entry.name, entry.args, entry.id),
    isReadOnly: (name) => target.find(name)?.spec.annotations.readOnly === true,
    maxConcurrencyOf: (name) => target.find(name)?.spec.maxConcurrency,
    maxConcurrency: target.maxConcurrency,
  });
}

interface Scheduler {
  run(entry: BatchEntry): Promise<ToolResult>;
  isReadOnly(name: string): boolean;
  maxConcurrencyOf(name: string): number | undefined;
  maxConcurrency: number;
}

/**
 * Read `callMany`'s argument without trusting it: a list of entries, one per index (holes included),
 * each a {@link BatchCall} or the reason it is not one; or, when the argument is not a readable array,
 * the reason as a string. Every property is read once, inside a `try`, so a getter or Proxy trap that
 * throws becomes a problem, and the scheduler never touches the caller's objects again.
 *
 * @example
 * ```ts
 * readBatch([{ name: 'search' }, null]);
 * // [{ call: { name: 'search' } }, { problem: 'Call 1 must be an object with a tool name, got null.', name: '' }]
 * readBatch('search'); // 'callMany takes an array of calls such as [...], got "search".'
 * ```
 */
export function readBatch(calls: unknown): BatchEntry[] | string {
  let length: number;
  try {
    if (!Array.isArray(calls)) {
      return `callMany takes an array of calls such as [{ name: 'search', args: { query: 'x' } }], got ${describeValue(calls)}.`;
    }
    length = calls.length;
  } catch (error) {
    return `callMany could not read its list of calls: ${thrown(error)}.`;
  }
  const entries: BatchEntry[] = [];
  for (let index = 0; index < length; index++) entries.push(readEntry(calls, index));
  return entries;
}

function readEntry(calls: readonly unknown[], index: number): BatchEntry {
  let step = 'reading it';
  try {
    const entry = calls[index];
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      return { problem: `Call ${index} must be an object with a tool name, got ${describeValue(entry)}.`, name: '' };
    }
    const fields = entry as Record<string, unknown>;
    step = `reading its 'name'`;
    const name = fields.name;
    step = `reading its 'id'`;
    const id = fields.id;
    step = `reading its 'args'`;
    const args = fields.args;
    const read = { ...(typeof id === 'string' ? { id } : {}), ...(args === undefined ? {} : { args }) };
    if (typeof name !== 'string') {
      return {
        problem: `Call ${index} must be an object with a tool name, got ${name === undefined ? 'an object without a string name' : `the name ${describeValue(name)}`}.`,
        name: '',
        ...read,
      };
    }
    if (id !== undefined && typeof id !== 'string') {
      return { problem: `Call ${index} has the id ${describeValue(id)}; an id must be a string.`, name, ...read };
    }
    return { call: { name, ...read } };
  } catch (error) {
    return { problem: `Call ${index} could not be read: ${step} threw ${thrown(error)}.`, name: '' };
  }
}

/** What was thrown, in a few words, without trusting it (it may be a Proxy whose traps throw too). */
function thrown(error: unknown): string {
  try {
    if (error instanceof Error) {
      const message = String(error.message);
      return `${error.name} ${JSON.stringify(message.length > 80 ? `${message.slice(0, 77)}...` : message)}`;
    }
    return describeValue(error);
  } catch {
    return 'a value that cannot be read';
  }
}

/**
 * Run calls in "mutator turns": consecutive read-only calls form a group that runs concurrently
 * (bounded by the registry-wide and per-tool limits); a call to any other tool waits for everything
 * before it and runs alone, so side effects happen in the order the model asked for them. An entry
 * that is not a call has no side effect, so it joins whichever group it stands in.
 */
export async function runCallMany(entries: readonly BatchEntry[], scheduler: Scheduler): Promise<ToolResult[]> {
  const results: ToolResult[] = new Array(entries.length);
  const readOnly = (entry: BatchEntry) => !('call' in entry) || scheduler.isReadOnly(entry.call.name);
  let index = 0;
  while (index < entries.length) {
    const entry = entries[index]!;
    if (!readOnly(entry)) {
      results[index] = await scheduler.run(entry);
      index++;
      continue;
    }
    const group: number[] = [];
    while (index < entries.length && readOnly(entries[index]!)) group.push(index++);
    await runGroup(group, entries, results, scheduler);
  }
  return results;
}

async function runGroup(
  group: number[],
  entries: readonly BatchEntry[],
  results: ToolResult[],
  scheduler: Scheduler,
): Promise<void> {
  const running = new Map<string, number>();
  const waiting = [...group];
  let active = 0;
  await new Promise<void>((resolve) => {
    const pump = () => {
      if (waiting.length === 0 && active === 0) {
        resolve();
        return;
      }
      for (let position = 0; position < waiting.length && active < scheduler.maxConcurrency; ) {
        const index = waiting[position]!;
        const entry = entries[index]!;
        // Entries that are not calls count against no tool's limit.
        const name = 'call' in entry ? entry.call.name : undefined;
        const limit = name === undefined ? undefined : scheduler.maxConcurrencyOf(name);
        if (name !== undefined && (running.get(name) ?? 0) >= (limit ?? Number.POSITIVE_INFINITY)) {
          position++;
          continue;
        }
        waiting.splice(position, 1);
        active++;
        if (name !== undefined) running.set(name, (running.get(name) ?? 0) + 1);
        scheduler.run(entry).then((result) => {
          results[index] = result;
          active--;
          if (name !== undefined) running.set(name, (running.get(name) ?? 1) - 1);
          pump();
        });
      }
    };
    pump();
  });
}
