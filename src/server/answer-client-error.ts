import type { Duplex } from 'node:stream';
import type { ApiErrorBody } from './api-error.js';

/**
 * Answer a request Node's HTTP parser refused before any route saw it (the `clientError` event of a
 * `node:http` server): headers over Node's limit (16 KiB by default) get 431, anything else that is
 * not valid HTTP 400, both in the API's error shape, and the connection is closed. Nothing of the
 * request is echoed.
 *
 * @example
 * ```ts
 * const server = createServer((request, response) => app.routing(request, response));
 * server.on('clientError', answerClientError);
 * ```
 */
export function answerClientError(error: Error, socket: Duplex): void {
  if (!socket.writable) return;
  const code = (error as NodeJS.ErrnoException).code;
  const tooLarge = code === 'HPE_HEADER_OVERFLOW';
  const body: ApiErrorBody = tooLarge
    ? { error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request headers are larger than the limit.' } }
    : { error: { code: 'VALIDATION_ERROR', message: 'The request is not valid HTTP.', details: { field: 'request' } } };
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}
