import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { vi } from 'vitest';
import type { HostResolver } from '../../src/builtins/web/ssrf-guard.js';
import type { ToolFailure, ToolResult, ToolSuccess } from '../../src/core/tool-result.js';

/** The result as a success, or a test failure showing what came back instead. */
export function expectSuccess(result: ToolResult): ToolSuccess {
  if (result.status !== 'success') throw new Error(`expected a success, got ${JSON.stringify(result)}`);
  return result;
}

/** The result as a failure, or a test failure showing what came back instead. */
export function expectFailure(result: ToolResult): ToolFailure {
  if (result.status === 'success' || result.status === 'pending_approval') {
    throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  }
  return result;
}

/** A request a fake server received, exactly as it arrived. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A node:http server on 127.0.0.1 and a free port, recording every request and connection. */
export interface FakeServer {
  url: string;
  port: number;
  host: string;
  requests: RecordedRequest[];
  connections: number;
  close(): Promise<void>;
}

/** Start a loopback fake answering with `respond`. */
export async function startFakeServer(
  respond: (request: RecordedRequest, response: ServerResponse) => void,
): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      respond(recorded, response);
    });
  });
  const fake: FakeServer = {
    url: '',
    port: 0,
    host: '',
    requests,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', () => {
    fake.connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.port = (server.address() as AddressInfo).port;
  fake.host = `127.0.0.1:${fake.port}`;
  fake.url = `http://127.0.0.1:${fake.port}`;
  return fake;
}

/**
 * Names the fake resolver knows. Only loopback answers are ever connected to; the public and private
 * answers exist to be refused before any connection.
 */
export const FAKE_DNS: Record<string, Array<{ address: string; family: 4 | 6 }>> = {
  localhost: [{ address: '127.0.0.1', family: 4 }],
  'loopback.test': [{ address: '127.0.0.1', family: 4 }],
  'metadata.test': [{ address: '169.254.169.254', family: 4 }],
  'intranet.test': [{ address: '10.1.2.3', family: 4 }],
  'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'mixed.test': [
    { address: '93.184.215.14', family: 4 },
    { address: '10.0.0.5', family: 4 },
  ],
};

/** A resolver over {@link FAKE_DNS} that records the names asked for; unknown names are ENOTFOUND. */
export function createFakeResolver(): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const answer = FAKE_DNS[hostname];
    if (answer === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    }
    return answer;
  };
  return Object.assign(resolve, { asked });
}

function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/**
 * The check the network tripwire runs on the arguments of `Socket.prototype.connect`, before the real
 * `connect`: throws (and records) for a TCP target that is not a loopback IP literal, and wraps the
 * socket's `lookup` so that a host name whose answer is not loopback fails the same way before the
 * socket can use it. Unix sockets pass.
 */
export function inspectConnect(args: unknown[], violations: string[]): void {
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  const options = (typeof first === 'object' && first !== null ? first : {}) as {
    host?: string | null;
    port?: number | string | null;
    path?: string | null;
    lookup?: net.LookupFunction;
  };
  const port = typeof first === 'object' && first !== null ? options.port : first;
  const isPipe = typeof options.path === 'string' && options.path !== '' && (port === undefined || port === null);
  if (isPipe) return;
  const host = options.host ?? (typeof args[1] === 'string' ? args[1] : 'localhost');
  if (net.isIP(host) !== 0) {
    if (isLoopback(host)) return;
    violations.push(host);
    throw new Error(`Network tripwire: the test tried to connect to '${host}'.`);
  }
  const lookup = options.lookup;
  if (typeof lookup !== 'function') {
    if (host === 'localhost') return;
    violations.push(host);
    throw new Error(`Network tripwire: the test tried to resolve and connect to '${host}'.`);
  }
  options.lookup = (hostname, lookupOptions, callback) =>
    lookup(hostname, lookupOptions, (error, address, family) => {
      const addresses = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
      const outside = error ? [] : addresses.filter((entry) => !isLoopback(entry));
      if (outside.length > 0) {
        violations.push(`${hostname} -> ${outside.join(', ')}`);
        callback(new Error(`Network tripwire: '${hostname}' resolved to ${outside.join(', ')}.`), '', 0);
        return;
      }
      callback(error, address as string, family);
    });
}

/**
 * Make every TCP connection attempt of the test process to anything but loopback throw, and record
 * it (see {@link inspectConnect}): tests must never send traffic off this machine. Returns the
 * recorded violations and a function that restores `connect`.
 */
export function installNetworkTripwire(): { violations: string[]; restore(): void } {
  const violations: string[] = [];
  const original = net.Socket.prototype.connect;
  const spy = vi.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (
    this: net.Socket,
    ...args: unknown[]
  ) {
    inspectConnect(args, violations);
    return (original as (...parameters: unknown[]) => net.Socket).apply(this, args);
  } as typeof original);
  return { violations, restore: () => spy.mockRestore() };
}
