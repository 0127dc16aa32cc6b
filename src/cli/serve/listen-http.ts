import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError } from '../cli-error.js';
import { visible } from '../output.js';

/**
 * Start `server` listening on `host:port` and resolve with the address it got (port 0 picks a free
 * port). Failures become one-line {@link CliError}s (exit 1): a port in use, a port that needs
 * privileges, a host that is not an address of this machine.
 *
 * @example
 * ```ts
 * const address = await listenHttp(createServer(listener), '127.0.0.1', 4319);
 * console.error(`listening on ${address.port}`);
 * ```
 */
export function listenHttp(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(listenError(error, host, port));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/**
 * The URL of a listening address, with IPv6 hosts in brackets.
 *
 * @example
 * ```ts
 * serverUrl('::1', 4319); // 'http://[::1]:4319'
 * ```
 */
export function serverUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function listenError(error: NodeJS.ErrnoException, host: string, port: number): CliError {
  const where = visible(`${host}:${port}`);
  switch (error.code) {
    case 'EADDRINUSE':
      return new CliError(
        `error: cannot listen on ${where}: the port is already in use; stop the other server or pass another --port (0 picks a free one).`,
      );
    case 'EACCES':
      return new CliError(`error: cannot listen on ${where}: permission denied; use a port above 1023.`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new CliError(
        `error: cannot listen on ${where}: '${visible(host)}' is not an address of this machine; use --host 127.0.0.1, or 0.0.0.0 for every interface.`,
      );
    default:
      return new CliError(`error: cannot listen on ${where}: ${visible(error.message)}`);
  }
}
