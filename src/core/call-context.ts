import { CallerCapabilityError } from './errors/caller-capability-error.js';
import type { JsonSchema } from './json-schema.js';
import type { ElicitationResult, LogLevel, SamplingRequest, SamplingResult, ToolContext } from './tool-spec.js';

/** A progress report a tool sent while running. */
export interface ProgressEvent {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * What the caller of a tool can offer the handler: per-agent config, environment overrides, and
 * channels back to the client (progress, logs, elicitation, sampling).
 */
export interface CallContextOptions {
  /** Per-attachment config, handed to the handler as `ctx.config`. */
  config?: Record<string, unknown>;
  /** Environment for this call (overrides the registry's). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The agent on whose behalf the call runs, when there is one. */
  agentId?: string;
  onProgress?(event: ProgressEvent): void;
  onLog?(level: LogLevel, data: unknown): void;
  /** Ask the person behind the client; `signal` aborts when the call times out or is cancelled. */
  elicit?(message: string, requestedSchema: JsonSchema, options: { signal: AbortSignal }): Promise<ElicitationResult>;
  /** Ask the client's model; `signal` aborts when the call times out or is cancelled. */
  sample?(request: SamplingRequest, options: { signal: AbortSignal }): Promise<SamplingResult>;
}

let callCounter = 0;

/** Mutable per-call state shared by the dispatcher and the handler's context. */
export class CallContext implements ToolContext {
  readonly tool: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly #options: CallContextOptions | undefined;
  readonly #callerSignal: AbortSignal | undefined;
  #toolCallId: string | undefined;
  #config: Record<string, unknown> | undefined;
  #controller: AbortController | undefined;
  #abortReason: unknown;
  /** Set by the dispatcher when the deadline should move on progress. */
  onProgressTick: (() => void) | undefined;

  constructor(
    tool: string,
    env: Readonly<Record<string, string | undefined>>,
    toolCallId: string | undefined,
    callerSignal: AbortSignal | undefined,
    options: CallContextOptions | undefined,
  ) {
    this.tool = tool;
    this.env = env;
    this.#toolCallId = toolCallId;
    this.#callerSignal = callerSignal;
    this.#options = options;
    this.#config = options?.config;
  }

  // The empty default is made on first use: most handlers never read `config`, and each call gets its
  // own object (a handler may write to it).
  get config(): Record<string, unknown> {
    this.#config ??= {};
    return this.#config;
  }

  get toolCallId(): string {
    if (this.#toolCallId === undefined) this.#toolCallId = `call_${(++callCounter).toString(36)}`;
    return this.#toolCallId;
  }

  // Created on first use: most handlers never look at the signal, and the dispatcher does not need it
  // to enforce deadlines.
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#abortReason !== undefined) this.#controller.abort(this.#abortReason);
      else if (this.#callerSignal !== undefined) {
        const controller = this.#controller;
        if (this.#callerSignal.aborted) controller.abort(this.#callerSignal.reason);
        else
          this.#callerSignal.addEventListener('abort', () => controller.abort(this.#callerSignal?.reason), {
            once: true,
          });
      }
    }
    return this.#controller.signal;
  }

  /** Abort the handler's signal (timeout or cancellation). */
  abort(reason: unknown): void {
    if (this.#abortReason !== undefined) return;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }

  progress(progress: number, total?: number, message?: string): void {
    this.onProgressTick?.();
    const onProgress = this.#options?.onProgress;
    if (onProgress === undefined) return;
    const event: ProgressEvent = { progress };
    if (total !== undefined) event.total = total;
    if (message !== undefined) event.message = message;
    onProgress(event);
  }

  log(level: LogLevel, data: unknown): void {
    this.#options?.onLog?.(level, data);
  }

  elicit(message: string, requestedSchema: JsonSchema): Promise<ElicitationResult> {
    const elicit = this.#options?.elicit;
    if (elicit === undefined) {
      return Promise.reject(
        new CallerCapabilityError(
          'elicitation',
          `Tool '${this.tool}' asked the user a question, but this caller cannot ask (elicitation needs an MCP client that supports it).`,
        ),
      );
    }
    return elicit(message, requestedSchema, { signal: this.signal });
  }

  sample(request: SamplingRequest): Promise<SamplingResult> {
    const sample = this.#options?.sample;
    if (sample === undefined) {
      return Promise.reject(
        new CallerCapabilityError(
          'sampling',
          `Tool '${this.tool}' asked for a model completion, but this caller cannot provide one (sampling needs an MCP client that supports it).`,
        ),
      );
    }
    return sample(request, { signal: this.signal });
  }
}
