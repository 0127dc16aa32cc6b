import type { ToolResult } from '../core/tool-result.js';

/** One of a model's parallel tool calls. */
export interface BatchCall {
  /** The model's tool-call id, echoed in the result's metadata. */
  id?: string;
  name: string;
  /** Arguments as an object or JSON text. */
  args?: unknown;
}

interface Scheduler {
  call(call: BatchCall): Promise<ToolResult>;
  isReadOnly(name: string): boolean;
  maxConcurrencyOf(name: string): number | undefined;
  maxConcurrency: number;
}

/**
 * Run calls in "mutator turns": consecutive read-only calls form a group that runs concurrently
 * (bounded by the registry-wide and per-tool limits); a call to any other tool waits for everything
 * before it and runs alone, so side effects happen in the order the model asked for them.
 */
export async function runCallMany(calls: readonly BatchCall[], scheduler: Scheduler): Promise<ToolResult[]> {
  const results: ToolResult[] = new Array(calls.length);
  let index = 0;
  while (index < calls.length) {
    const call = calls[index]!;
    if (!scheduler.isReadOnly(call.name)) {
      results[index] = await scheduler.call(call);
      index++;
      continue;
    }
    const group: number[] = [];
    while (index < calls.length && scheduler.isReadOnly(calls[index]!.name)) group.push(index++);
    await runGroup(group, calls, results, scheduler);
  }
  return results;
}

async function runGroup(
  group: number[],
  calls: readonly BatchCall[],
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
        const name = calls[index]!.name;
        const limit = scheduler.maxConcurrencyOf(name) ?? Number.POSITIVE_INFINITY;
        if ((running.get(name) ?? 0) >= limit) {
          position++;
          continue;
        }
        waiting.splice(position, 1);
        active++;
        running.set(name, (running.get(name) ?? 0) + 1);
        scheduler.call(calls[index]!).then((result) => {
          results[index] = result;
          active--;
          running.set(name, (running.get(name) ?? 1) - 1);
          pump();
        });
      }
    };
    pump();
  });
}
