/**
 * The JavaScript sandbox child: QuickJS (compiled to WebAssembly) in a Node process started by the
 * pool under the permission model, in its own network and pid namespaces. See ../child-host.mjs for
 * the protocol.
 *
 * Every run gets a fresh QuickJS runtime and context (~0.2 ms), so nothing survives from one call to
 * the next. The code sees only ECMAScript built-ins and a `console` whose methods pass text to the
 * host: no host object, no module loader, no timers, no I/O.
 */

import { pathToFileURL } from 'node:url';
import { serveSandbox } from '../child-host.mjs';

/** QuickJS's stack limit; above ~256 KB deep recursion overflows the host stack instead of throwing. */
const MAX_STACK_BYTES = 256 * 1024;
const FILENAME = 'code.js';

/**
 * Evaluated in each run before the code: the built-ins that `console` and the result encoder use,
 * taken while they are still the originals. The code may replace any global or prototype method
 * (`String.prototype.replace`, `JSON.stringify`, `Array.prototype.join`, `Object.defineProperty`...),
 * and these helpers run after it; calling only what is captured here (through `Reflect.apply`, never
 * a method looked up at call time) keeps them from running the code's replacements. The helpers
 * read it by index: array destructuring would call an iterator the code may have replaced.
 */
const INTRINSICS = `[
  globalThis,
  Reflect.apply,
  Object.defineProperty,
  Object.prototype.toString,
  Object.prototype.isPrototypeOf,
  Error.prototype,
  JSON.stringify,
  String,
]`;

/**
 * Runs inside QuickJS the first time the code touches `console`: makes it over the one host function
 * it is given (`write(stream, json)`) and returns `[console, flush]`, `flush` handing buffered output
 * to the host. Text is buffered here in pieces of ~8 KB because crossing into the host for every
 * console.log made a loop of small prints ten times slower. It crosses as JSON, since the host reads
 * C strings and a NUL would end the text early.
 */
const CONSOLE = `(function (write, intrinsics) {
  'use strict';
  const global = intrinsics[0], apply = intrinsics[1], defineProperty = intrinsics[2], objectToString = intrinsics[3];
  const isPrototypeOf = intrinsics[4], errorPrototype = intrinsics[5], stringify = intrinsics[6], toText = intrinsics[7];
  const show = (value) => {
    if (typeof value === 'string') return value;
    if (typeof value === 'function') return '[Function' + (value.name ? ': ' + value.name : '') + ']';
    if (value === undefined || typeof value === 'symbol' || typeof value === 'bigint') return toText(value);
    if (apply(isPrototypeOf, errorPrototype, [value])) return value.name + ': ' + value.message;
    try {
      const json = stringify(value);
      return json === undefined ? toText(value) : json;
    } catch (error) {
      return apply(objectToString, value, []);
    }
  };
  const pending = ['', '', ''];
  const flushStream = (stream) => {
    const text = pending[stream];
    pending[stream] = '';
    if (text !== '') write(stream, stringify(text));
  };
  const printer = (stream) => (...values) => {
    let line = '';
    for (let index = 0; index < values.length; index++) line += (index === 0 ? '' : ' ') + show(values[index]);
    pending[stream] += line + '\\n';
    if (pending[stream].length >= 8192) flushStream(stream);
  };
  const console = {
    log: printer(1), info: printer(1), debug: printer(1),
    warn: printer(2), error: printer(2), trace: printer(2),
  };
  try {
    // A null-prototype descriptor: an Object.prototype.get set by the code is not read as a getter.
    apply(defineProperty, undefined, [global, 'console', { __proto__: null, value: console, writable: true, configurable: true }]);
  } catch (error) {
    // A frozen global keeps the host's getter, which hands out this same console.
  }
  return [console, () => {
    flushStream(1);
    flushStream(2);
  }];
})`;

/** Runs inside QuickJS for a result that is not a finite number: 'J' + JSON, or 'T' + its text. */
const ENCODE = `(function (value, intrinsics) {
  'use strict';
  const apply = intrinsics[1], objectToString = intrinsics[3], stringify = intrinsics[6], toText = intrinsics[7];
  if (typeof value === 'function') return 'T[Function' + (value.name ? ': ' + value.name : '') + ']';
  if (typeof value === 'number' || typeof value === 'symbol' || typeof value === 'bigint') return 'T' + toText(value);
  try {
    const json = stringify(value);
    if (json !== undefined) return 'J' + json;
  } catch (error) {}
  try {
    return 'T' + toText(value);
  } catch (error) {
    return 'T' + apply(objectToString, value, []);
  }
})`;

/**
 * Runs inside QuickJS on a thrown object: its name, message and stack, each when it is a string. The
 * host's `context.dump` would serialise the object with JSON instead, which runs any `toJSON` the code
 * put on `Object.prototype` (and can report another error than the one thrown, or loop).
 */
const READ_THROWN = `(function (value) {
  'use strict';
  const text = (key) => {
    try {
      const property = value[key];
      return typeof property === 'string' ? property : undefined;
    } catch (error) {
      return undefined;
    }
  };
  return [text('name'), text('message'), text('stack')];
})`;

/**
 * How long the helpers that run after the code may take, past its deadline: the last flush of console
 * output (which runs nothing of the code's) and reading what it threw (which may run its getters).
 */
const HELPER_BUDGET_MS = 1_000;

function lineOf(stack) {
  const match = typeof stack === 'string' ? /code\.js:(\d+)/.exec(stack) : null;
  return match === null ? undefined : Number(match[1]);
}

serveSandbox(async (config, { limits }) => {
  const { newQuickJSWASMModuleFromVariant, shouldInterruptAfterDeadline } = await import(
    pathToFileURL(config.coreEntry).href
  );
  const variant = (await import(pathToFileURL(config.variantEntry).href)).default;
  const quickjs = await newQuickJSWASMModuleFromVariant(variant);
  const memory = quickjs.getWasmMemory();

  const describeFailure = (dumped, deadlineHit) => {
    const error = typeof dumped === 'object' && dumped !== null ? dumped : { message: String(dumped ?? '') };
    const name = typeof error.name === 'string' ? error.name : 'Error';
    const message = typeof error.message === 'string' ? error.message : String(dumped);
    const stack = typeof error.stack === 'string' ? error.stack.trim() : undefined;
    if (deadlineHit && name === 'InternalError' && message === 'interrupted') {
      return { ok: false, reason: 'timeout', message: 'The code ran past its deadline.' };
    }
    // QuickJS reports exhaustion as "out of memory"; when even the error could not be made, it
    // throws an empty value: both mean the memory limit was reached.
    if (/out of memory/i.test(message) || (message === '' && name === 'Error')) {
      return { ok: false, reason: 'memory', errorType: 'InternalError', message: 'out of memory' };
    }
    const outcome = { ok: false, reason: 'exception', errorType: name, message };
    if (stack !== undefined) outcome.traceback = `${name}: ${message}\n${stack}`;
    const line = lineOf(stack);
    if (line !== undefined) outcome.line = line;
    return outcome;
  };

  /**
   * One run's QuickJS runtime and context, with `console` and the result encoder made only when the
   * code needs them (most of the per-run cost otherwise), and every handle kept for `release`.
   */
  const open = (timeoutMs, stdout, stderr) => {
    const runtime = quickjs.newRuntime();
    const state = {
      runtime,
      context: undefined,
      handles: [],
      intrinsics: undefined,
      console: undefined,
      flush: undefined,
      encode: undefined,
      deadlineHit: false,
    };
    const interrupt = shouldInterruptAfterDeadline(Date.now() + timeoutMs);
    runtime.setInterruptHandler((rt) => {
      if (!interrupt(rt)) return false;
      state.deadlineHit = true;
      return true;
    });
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    const context = runtime.newContext();
    state.context = context;
    const keep = (handle) => {
      state.handles.push(handle);
      return handle;
    };
    // Taken before the code runs, or it could replace what the helpers call (see INTRINSICS).
    state.intrinsics = keep(context.unwrapResult(context.evalCode(INTRINSICS, 'intrinsics.js')));
    state.installConsole = () => {
      if (state.console !== undefined) return state.console;
      const write = keep(
        context.newFunction('write', (streamHandle, jsonHandle) => {
          // NULs and lone surrogates are shown as U+FFFD, as a C string would have shown them.
          const text = JSON.parse(context.getString(jsonHandle)).replaceAll('\u0000', '\uFFFD').toWellFormed();
          (context.getNumber(streamHandle) === 2 ? stderr : stdout).write(text);
        }),
      );
      const install = keep(context.unwrapResult(context.evalCode(CONSOLE, 'console.js')));
      const made = keep(
        context.unwrapResult(context.callFunction(install, context.undefined, write, state.intrinsics)),
      );
      state.flush = keep(context.getProp(made, 1));
      state.console = keep(context.getProp(made, 0));
      return state.console;
    };
    state.encoder = () => {
      state.encode ??= keep(context.unwrapResult(context.evalCode(ENCODE, 'encode.js')));
      return state.encode;
    };
    context.defineProp(context.global, 'console', {
      configurable: true,
      enumerable: false,
      get: () => state.installConsole().dup(),
      set: (value) => {
        context.defineProp(context.global, 'console', { value, configurable: true, enumerable: false });
      },
    });
    return state;
  };

  /** What the code threw, in the form `describeFailure` takes; disposes `handle`. */
  const thrownOf = (state, handle) => {
    const { context, runtime } = state;
    try {
      if (context.typeof(handle) !== 'object' || context.eq(handle, context.null)) return context.dump(handle);
      // The reader may run the thrown object's getters: they get a budget, not the spent deadline.
      runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + HELPER_BUDGET_MS));
      const reader = context.evalCode(READ_THROWN, 'thrown.js');
      if (reader.error !== undefined) {
        reader.error.dispose();
        return context.dump(handle);
      }
      const read = context.callFunction(reader.value, context.undefined, handle);
      reader.value.dispose();
      if (read.error !== undefined) {
        // Its getters ran out of budget: nothing of it can be shown.
        read.error.dispose();
        return {};
      }
      const fields = ['name', 'message', 'stack'].map((key, index) => {
        const field = context.getProp(read.value, index);
        const text = context.typeof(field) === 'string' ? context.getString(field) : undefined;
        field.dispose();
        return [key, text];
      });
      read.value.dispose();
      return Object.fromEntries(fields.filter(([, text]) => text !== undefined));
    } finally {
      if (handle.alive) handle.dispose();
    }
  };

  /** Evaluate `code`; every handle made goes into `state.handles`. */
  const evaluate = (state, code, maxResultChars) => {
    const { context, runtime } = state;
    const evaluated = context.evalCode(code, FILENAME, { type: 'global' });
    if (evaluated.error !== undefined) {
      const dumped = thrownOf(state, evaluated.error);
      return describeFailure(dumped, state.deadlineHit);
    }
    let value = evaluated.value;
    state.handles.push(value);
    // A script that ends in a promise (an async function's result) is settled before answering.
    const first = context.getPromiseState(value);
    if (first.notAPromise !== true) {
      if (first.type === 'fulfilled') first.value.dispose();
      if (first.type === 'rejected') first.error.dispose();
      // Run queued jobs until the promise settles, nothing is left to run, or a job fails (the
      // deadline interrupt, memory): a promise chain that never ends meets the deadline.
      let settled = context.getPromiseState(value);
      while (settled.type === 'pending' && runtime.hasPendingJob()) {
        const jobs = runtime.executePendingJobs();
        if (jobs.error !== undefined) {
          const dumped = thrownOf(state, jobs.error);
          return describeFailure(dumped, state.deadlineHit);
        }
        settled = context.getPromiseState(value);
      }
      if (settled.type === 'pending') {
        return describeFailure(
          state.deadlineHit
            ? { name: 'InternalError', message: 'interrupted' }
            : { name: 'Error', message: 'the promise the code returned never settled' },
          state.deadlineHit,
        );
      }
      if (settled.type === 'rejected') {
        const dumped = thrownOf(state, settled.error);
        return describeFailure(dumped, state.deadlineHit);
      }
      value = settled.value;
      state.handles.push(value);
    }
    const kind = context.typeof(value);
    if (kind === 'undefined') return { ok: true };
    if (kind === 'number') {
      const number = context.getNumber(value);
      if (Number.isFinite(number)) return { ok: true, result: number };
    }
    if (kind === 'boolean') return { ok: true, result: context.dump(value) };
    const encoded = context.callFunction(state.encoder(), context.undefined, value, state.intrinsics);
    if (encoded.error !== undefined) {
      const dumped = thrownOf(state, encoded.error);
      return describeFailure(dumped, state.deadlineHit);
    }
    const text = context.getString(encoded.value);
    encoded.value.dispose();
    if (text.length - 1 > maxResultChars) {
      const shown = text.slice(1);
      return {
        ok: true,
        result: `${shown.slice(0, maxResultChars)}... [${shown.length - maxResultChars} characters truncated]`,
        truncated: true,
      };
    }
    return { ok: true, result: text[0] === 'J' ? JSON.parse(text.slice(1)) : text.slice(1) };
  };

  /**
   * Free the run's QuickJS runtime. Jobs still queued (a promise chain cut by the deadline) are run
   * out under an interrupt that fires at once, since QuickJS aborts when a runtime is freed with
   * live objects. Returns false when that cannot be done cleanly: the process is then replaced.
   */
  const release = (state) => {
    const { context, runtime } = state;
    try {
      runtime.setInterruptHandler(() => true);
      for (let round = 0; round < 50 && runtime.hasPendingJob(); round++) {
        const jobs = runtime.executePendingJobs(100);
        if (jobs.error !== undefined) jobs.error.dispose();
      }
      if (runtime.hasPendingJob()) return false;
      // Hand over what console.log buffered, whatever happened, under a budget of its own.
      runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + HELPER_BUDGET_MS));
      if (state.flush?.alive) {
        const flushed = context.callFunction(state.flush, context.undefined);
        (flushed.error ?? flushed.value).dispose();
      }
      for (const handle of state.handles.reverse()) if (handle.alive) handle.dispose();
      context.dispose();
      runtime.dispose();
      return true;
    } catch {
      return false;
    }
  };

  return {
    memory,
    run(code, { timeoutMs, stdout, stderr, maxResultChars }) {
      const state = open(timeoutMs, stdout, stderr);
      let outcome;
      try {
        outcome = evaluate(state, code, maxResultChars);
      } finally {
        const released = release(state);
        // Only reached on success: a throw above already ends the process as a crash.
        if (!released && outcome !== undefined) outcome = { ...outcome, recycle: true };
      }
      return outcome;
    },
  };
});
