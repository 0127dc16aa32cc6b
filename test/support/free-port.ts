import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: bound to port 0 and released. For a process a
 * test starts that must be told its port before it binds (a `toolshed serve --port`, a database).
 *
 * @example
 * ```ts
 * const port = await freePort();
 * ```
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}
