/**
 * The part every sandbox child shares: the WebAssembly memory cap, the line protocol with the pool,
 * output capture, and dropping root. A runtime's child entry (`python/python-child.mjs`,
 * `javascript/javascript-child.mjs`) imports this module first, then calls `serveSandbox`.
 *
 * Protocol: the pool writes one JSON message per line to the child's stdin (`init`, then `run`s);
 * the child answers one JSON message per line on file descriptor 3 (`ready` or `prepared`, then one
 * `result` per `run`). The child's stdout is discarded, so nothing a runtime prints by itself can be
 * taken for a message. Everything the child says is untrusted by the pool.
 *
 * This file is plain JavaScript on purpose: the child is started with `node` directly, from the
 * sources under vitest and from `dist/` in the package, and the build copies it unchanged.
 */

import { writeSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { setFlagsFromString } from 'node:v8';

// Baseline (Liftoff) WebAssembly code only. By default V8 recompiles a runtime's hot functions in the
// background during its first hundreds of runs; on a busy 2-core host that made a trivial Python run
// take 10-30 ms at the 90th percentile instead of under 1 ms. Heavy loops run ~20% slower; short
// snippets, the common case, answer steadily. Unknown flags are ignored, so this is safe elsewhere.
setFlagsFromString('--liftoff-only');

const PROTOCOL_FD = 3;
const WASM_PAGE = 65_536;

/** The most bytes any WebAssembly memory may reach; set once the runtime is loaded. */
let memoryCap = Number.POSITIVE_INFINITY;
const originalGrow = WebAssembly.Memory.prototype.grow;

// Installed before any runtime loads. Emscripten treats a throwing grow() as a failed allocation, so
// malloc returns NULL and the language raises its own error (MemoryError, "out of memory") instead of
// the process growing without bound. Non-writable and non-configurable: code that reaches JavaScript
// cannot put the original back (the pool's RSS watchdog and RLIMIT_DATA back this up).
Object.defineProperty(WebAssembly.Memory.prototype, 'grow', {
  value: function grow(delta) {
    const next = this.buffer.byteLength + Number(delta) * WASM_PAGE;
    if (next > memoryCap) throw new RangeError('The sandbox memory limit was reached.');
    return originalGrow.call(this, delta);
  },
  writable: false,
  configurable: false,
  enumerable: false,
});

// Diagnostics from libraries go to stderr (which the pool keeps a short tail of), never to stdout.
console.log = console.info = console.debug = console.error;

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/** Write one protocol message, waiting out a full pipe. */
export function send(message) {
  const bytes = Buffer.from(`${JSON.stringify(message)}\n`, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(PROTOCOL_FD, bytes, offset);
    } catch (error) {
      if (error?.code !== 'EAGAIN') throw error;
      Atomics.wait(sleepCell, 0, 0, 1);
    }
  }
}

/**
 * Text output kept within `limit` characters: the first three quarters and the last quarter, with a
 * marker saying how much was left out between them.
 */
export class OutputCapture {
  constructor(limit) {
    this.limit = limit;
    this.headLimit = Math.ceil(limit * 0.75);
    this.tailLimit = limit - this.headLimit;
    this.head = '';
    this.tail = [];
    this.tailStart = 0;
    this.tailLength = 0;
    this.total = 0;
  }

  write(text) {
    if (typeof text !== 'string' || text.length === 0) return;
    this.total += text.length;
    if (this.head.length < this.headLimit) {
      const room = this.headLimit - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
      if (text.length === 0) return;
    }
    if (this.tailLimit === 0) return;
    if (text.length >= this.tailLimit) {
      this.tail = [text.slice(-this.tailLimit)];
      this.tailStart = 0;
      this.tailLength = this.tailLimit;
      return;
    }
    this.tail.push(text);
    this.tailLength += text.length;
    // Drop whole chunks that fall out of the tail window; compact the array now and then.
    while (this.tailLength - this.tail[this.tailStart].length >= this.tailLimit) {
      this.tailLength -= this.tail[this.tailStart].length;
      this.tailStart += 1;
    }
    if (this.tailStart > 1024) {
      this.tail = this.tail.slice(this.tailStart);
      this.tailStart = 0;
    }
  }

  get truncated() {
    return this.total > this.limit;
  }

  text() {
    const tail = this.tail.slice(this.tailStart).join('');
    if (!this.truncated) return this.head + tail;
    const keptTail = tail.slice(-this.tailLimit);
    const omitted = this.total - this.head.length - keptTail.length;
    return `${this.head}\n[... ${omitted} characters of output truncated ...]\n${keptTail}`;
  }
}

/** Bytes to text for runtimes that write bytes (Pyodide): one streaming decoder per stream. */
export function byteWriter(capture) {
  const decoder = new TextDecoder('utf-8');
  return {
    write(bytes) {
      capture.write(decoder.decode(bytes, { stream: true }));
      return bytes.length;
    },
    flush() {
      capture.write(decoder.decode());
    },
  };
}

function dropPrivileges() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'unprivileged';
  try {
    process.setgroups([]);
    process.setgid(65_534);
    process.setuid(65_534);
    return 'dropped';
  } catch {
    // Inside a user namespace only our own uid is mapped; the pid namespace still shields the host.
    return 'kept';
  }
}

/** Error texts are the code's to choose (`raise ValueError('x' * 10**6)`): keep them short. */
const TEXT_LIMITS = { errorType: 200, message: 2_000, traceback: 8_000 };

function capped(outcome) {
  const fields = {};
  for (const [key, limit] of Object.entries(TEXT_LIMITS)) {
    const value = outcome[key];
    if (typeof value === 'string' && value.length > limit) {
      fields[key] = `${value.slice(0, limit)}... [${value.length - limit} characters truncated]`;
    }
  }
  return fields;
}

function describeError(error) {
  if (error instanceof Error) {
    const permission =
      typeof error.permission === 'string' ? ` (${error.code ?? 'ERR_ACCESS_DENIED'} ${error.permission})` : '';
    return `${error.name}: ${error.message}${permission}`;
  }
  return String(error);
}

/**
 * Serve the pool: read `init`, load the runtime with `setup`, cap its memory, drop root, say
 * `ready`, then answer `run` messages one at a time. A run blocks this process; the pool enforces
 * the deadline from outside by killing it.
 *
 * `setup(config, context)` resolves with `{ memory, run(code, { timeoutMs, stdout, stderr, maxResultChars }) }`,
 * or with `{ prepared: {...} }` for a preparation child (which then exits). `run` returns
 * `{ ok: true, result? }` or `{ ok: false, reason, errorType?, message, traceback?, line?, recycle? }`;
 * a throw from `run` means the runtime itself broke: the pool replaces this process.
 */
export function serveSandbox(setup) {
  let buffered = '';
  let runtime;
  let limits = { memoryBytes: 50 * 2 ** 20, maxOutputChars: 20_000 };
  let queue = Promise.resolve();

  const handle = async (message) => {
    if (message.type === 'init') {
      limits = { ...limits, ...message.limits };
      const loaded = await setup(message.config ?? {}, { limits });
      if (loaded.prepared !== undefined) {
        send({ type: 'prepared', ...loaded.prepared });
        process.exit(0);
      }
      runtime = loaded;
      memoryCap = runtime.memory.buffer.byteLength + limits.memoryBytes;
      const privileges = message.dropPrivileges === true ? dropPrivileges() : 'unchanged';
      send({
        type: 'ready',
        memoryBytes: runtime.memory.buffer.byteLength,
        privileges,
        uid: process.getuid?.() ?? -1,
        networkInterfaces: Object.keys(networkInterfaces()).length,
      });
      return;
    }
    if (message.type === 'run' && runtime !== undefined) {
      const stdout = new OutputCapture(limits.maxOutputChars);
      const stderr = new OutputCapture(limits.maxOutputChars);
      let outcome;
      try {
        outcome = runtime.run(String(message.code), {
          timeoutMs: Number(message.timeoutMs),
          stdout,
          stderr,
          maxResultChars: limits.maxOutputChars,
        });
      } catch (error) {
        outcome = {
          ok: false,
          reason: 'crashed',
          message: `The runtime failed: ${describeError(error)}`,
          recycle: true,
        };
      }
      send({
        type: 'result',
        id: message.id,
        ...outcome,
        ...capped(outcome),
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated || stderr.truncated || outcome.truncated === true,
      });
      if (outcome.recycle === true && outcome.reason === 'crashed') process.exit(70);
    }
  };

  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      queue = queue.then(() =>
        handle(message).catch((error) => {
          send({ type: 'fatal', message: describeError(error) });
          process.exit(70);
        }),
      );
    }
  });
  // The pool went away: nothing more will come.
  process.stdin.on('end', () => process.exit(0));
}
