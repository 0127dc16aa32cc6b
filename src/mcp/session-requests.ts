import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ClientRequestSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { describeValue } from '../core/define-tool.js';

/** The error a cancelled request is answered with: LSP's `RequestCancelled`, which MCP leaves free. */
const REQUEST_CANCELLED = -32800;

/**
 * The ids of the requests a session's client has under way, kept beside its transport: an id a client
 * sends again before its first request is answered is refused ({@link SessionRequests.refuseTaken}),
 * since the transport would hand the first request's answer to the second and leave the first one's
 * stream open for good; and a request the client cancels (`notifications/cancelled`) is answered with
 * a `-32800` error once the SDK has stopped it, so the stream that waits for it ends (the client, having
 * cancelled, ignores the answer).
 *
 * @example
 * ```ts
 * const requests = new SessionRequests(transport); // after server.connect(transport)
 * const refusal = requests.refuseTaken(message); // 'Request id 7 is already in use ...' or undefined
 * ```
 */
export class SessionRequests {
  /** Ids taken by a request not answered yet. */
  readonly #open = new Set<RequestId>();

  constructor(transport: Transport) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (isAnswer(message)) this.#open.delete(message.id);
      return send(message, options);
    };
    const receive = transport.onmessage;
    transport.onmessage = (message, extra) =>
      deliverAnswering(
        message,
        (delivered) => receive?.(delivered, extra),
        (answer) => {
          this.#open.delete(answer.id);
          void send(answer, { relatedRequestId: answer.id }).catch(() => undefined);
        },
        (id) => this.#open.has(id),
      );
  }

  /**
   * Take the ids of the requests in `message` (one message or a batch): `undefined` when all are
   * free, else the refusal to answer, naming the first id in use (by a request under way, or twice in
   * the batch), and nothing is taken. A taken id is freed when its answer is sent; call
   * {@link SessionRequests.release} with what this returned for ids the transport then refused.
   */
  refuseTaken(message: unknown): string | undefined {
    const ids: RequestId[] = [];
    for (const item of Array.isArray(message) ? message : [message]) {
      const id = requestIdOf(item);
      if (id === undefined) continue;
      if (this.#open.has(id) || ids.includes(id)) return requestIdInUse(id).error.message;
      ids.push(id);
    }
    for (const id of ids) this.#open.add(id);
    return undefined;
  }

  /** Free the ids of `message`'s requests the transport did not take (it refused the POST). */
  release(message: unknown, status: number): void {
    if (status < 400) return;
    for (const item of Array.isArray(message) ? message : [message]) {
      const id = requestIdOf(item);
      if (id !== undefined) this.#open.delete(id);
    }
  }
}

function requestIdOf(message: unknown): RequestId | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, id } = message as { method?: unknown; id?: unknown };
  if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  return id;
}

function isAnswer(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } {
  return !('method' in message) && 'id' in message && ('result' in message || 'error' in message);
}

/**
 * Deliver a client's `message` to the server, and answer through `answer` what the SDK would answer
 * wrongly or not at all: a request whose params its method refuses gets `-32602` instead of being
 * delivered ({@link invalidParamsAnswer}), and a cancellation of a request still under way (`isOpen`)
 * gets that request its `-32800` answer once the SDK has stopped it. What HTTP sessions and stdio share.
 *
 * @example
 * ```ts
 * transport.onmessage = (message) => deliverAnswering(message, deliver, (answer) => void transport.send(answer), isOpen);
 * ```
 */
export function deliverAnswering(
  message: JSONRPCMessage,
  deliver: (message: JSONRPCMessage) => void,
  answer: (answer: JSONRPCMessage & { id: RequestId }) => void,
  isOpen: (id: RequestId) => boolean,
): void {
  const invalid = invalidParamsAnswer(message);
  if (invalid !== undefined) {
    answer(invalid);
    return;
  }
  deliver(message);
  const cancelled = cancelledRequestId(message);
  if (cancelled !== undefined && isOpen(cancelled)) answer(requestCancelled(cancelled));
}

/**
 * The answer to a request its client cancelled: `-32800`, which ends the stream or the session
 * bookkeeping that waits for it.
 *
 * @example
 * ```ts
 * requestCancelled('c1'); // { jsonrpc: '2.0', id: 'c1', error: { code: -32800, message: 'The request was cancelled ...' } }
 * ```
 */
function requestCancelled(id: RequestId) {
  return {
    jsonrpc: '2.0' as const,
    id,
    error: { code: REQUEST_CANCELLED, message: 'The request was cancelled by the client; no result follows.' },
  };
}

/**
 * The answer to a request whose id its client already has under way (`-32600`).
 *
 * @example
 * ```ts
 * requestIdInUse(7).error.message; // 'Request id 7 is already in use by a request of this session ...'
 * ```
 */
export function requestIdInUse(id: RequestId) {
  return invalidRequestAnswer(
    id,
    `Request id ${JSON.stringify(id)} is already in use by a request of this session that has not been answered; send each request with a new id.`,
  );
}

/**
 * The `-32600` (Invalid Request) answer to the request `id`, saying why in `message`.
 *
 * @example
 * ```ts
 * invalidRequestAnswer(3, alreadyInitializedMessage('start the server again'));
 * // { jsonrpc: '2.0', id: 3, error: { code: -32600, message: "Invalid Request: the session is already initialized; ..." } }
 * ```
 */
export function invalidRequestAnswer(id: RequestId, message: string) {
  return { jsonrpc: '2.0' as const, id, error: { code: -32600, message } };
}

/**
 * The answer to a request sent before the session's `initialize` (`-32600`): before it, only `ping` is
 * served (the MCP lifecycle).
 *
 * @example
 * ```ts
 * notInitialized(3).error.message; // "Invalid Request: the session is not initialized; send 'initialize' first ..."
 * ```
 */
export function notInitialized(id: RequestId) {
  return invalidRequestAnswer(
    id,
    "Invalid Request: the session is not initialized; send 'initialize' first (before it, only 'ping' is answered).",
  );
}

/**
 * The message refusing an `initialize` sent in a session already initialized (`-32600`), with what
 * the client does instead: `connection` names how a new session is opened on its transport.
 *
 * @example
 * ```ts
 * alreadyInitializedMessage('open a new connection');
 * // "Invalid Request: the session is already initialized; 'initialize' is sent once, to open a session (open a new connection to open a new one)."
 * ```
 */
export function alreadyInitializedMessage(newSession: string): string {
  return `Invalid Request: the session is already initialized; 'initialize' is sent once, to open a session (${newSession} to open a new one).`;
}

/**
 * The id a `notifications/cancelled` names; `undefined` for any other message.
 *
 * @example
 * ```ts
 * cancelledRequestId({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1' } }); // 'c1'
 * ```
 */
function cancelledRequestId(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled' || 'id' in message) return undefined;
  const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
}

/** The SDK's schema of each request a client may send, by method. */
let requestSchemas: Map<string, (typeof ClientRequestSchema.options)[number]> | undefined;

/**
 * The `-32602` answer to a request whose params its method's schema refuses, saying where and what
 * (`'params.arguments' must be an object, got "x".`); `undefined` for a request that fits, a method
 * the SDK answers itself (unknown: `-32601`), or a message that is not a request. The SDK would answer
 * such a request `-32603 Internal error` with its schema library's issue list.
 *
 * @example
 * ```ts
 * invalidParamsAnswer({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: 'x' } });
 * // { jsonrpc: '2.0', id: 1, error: { code: -32602, message: "Invalid params for tools/call: 'params.arguments' must be an object, got \"x\"." } }
 * ```
 */
export function invalidParamsAnswer(message: JSONRPCMessage) {
  if (!('method' in message) || !('id' in message)) return undefined;
  requestSchemas ??= new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]));
  const schema = requestSchemas.get(message.method);
  const checked = schema?.safeParse({ method: message.method, params: message.params });
  const issue = checked?.success === false ? checked.error.issues[0] : undefined;
  if (issue === undefined) return undefined;
  const path = issue.path.map(String).join('.');
  let received: unknown = message;
  for (const key of issue.path) received = (received as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey];
  let problem: string;
  if (issue.code === 'invalid_type' && received === undefined) {
    problem = `'${path}' is required (${expectedOf(issue.expected)})`;
  } else if (issue.code === 'invalid_type') {
    problem = `'${path}' must be ${expectedOf(issue.expected)}, got ${describeValue(received)}`;
  } else if (issue.code === 'invalid_value') {
    problem = `'${path}' must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}, got ${describeValue(received)}`;
  } else {
    problem = `'${path}' ${issue.message.replace(/^Invalid input: /, '')}`;
  }
  return {
    jsonrpc: '2.0' as const,
    id: message.id,
    error: { code: -32602, message: `Invalid params for ${message.method}: ${problem}.` },
  };
}

function expectedOf(expected: string): string {
  if (expected === 'record' || expected === 'object') return 'an object';
  if (expected === 'array') return 'an array';
  if (expected === 'int') return 'an integer';
  return `a ${expected}`;
}
