import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the proxy passed on: where it went and what came back. */
export interface ProxyHit {
  /** Index of the upstream that got it. */
  upstream: number;
  method: string;
  path: string;
  /** The `Mcp-Session-Id` header, when sent. */
  session: string | undefined;
  /** JSON-RPC methods in the body (`response` for a client's answer), for MCP POSTs. */
  rpc: string[];
  /** The upstream's status, 502 when it could not be reached. */
  status: number | undefined;
}

/** A plain round-robin HTTP proxy on a loopback port, as a load balancer in front of several servers. */
export interface RoundRobinProxy {
  base: string;
  readonly hits: ProxyHit[];
  close(): Promise<void>;
}

/**
 * Start a proxy that sends each request to the next upstream in turn (no stickiness, no health checks:
 * a dead upstream's requests get 502), streaming answers (SSE) through as they come.
 */
export async function startRoundRobinProxy(upstreams: readonly string[]): Promise<RoundRobinProxy> {
  const hits: ProxyHit[] = [];
  let next = 0;
  const server: Server = createServer((incoming, outgoing) => {
    void readAll(incoming).then((body) => {
      const upstream = next++ % upstreams.length;
      const target = new URL(upstreams[upstream] as string);
      const hit: ProxyHit = {
        upstream,
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        session: header(incoming, 'mcp-session-id'),
        rpc: rpcMethods(body),
        status: undefined,
      };
      hits.push(hit);
      const headers = { ...incoming.headers, host: target.host };
      delete headers.connection;
      const forwarded = httpRequest(
        { host: target.hostname, port: target.port, method: hit.method, path: hit.path, headers, agent: false },
        (answer) => {
          hit.status = answer.statusCode;
          const answerHeaders = { ...answer.headers, 'x-upstream': String(upstream) };
          delete answerHeaders.connection;
          delete answerHeaders['transfer-encoding'];
          outgoing.writeHead(answer.statusCode ?? 502, answerHeaders);
          outgoing.flushHeaders();
          answer.pipe(outgoing);
          answer.on('error', () => outgoing.destroy());
        },
      );
      forwarded.on('error', () => {
        hit.status ??= 502;
        if (!outgoing.headersSent) {
          outgoing.writeHead(502, { 'content-type': 'text/plain', 'x-upstream': String(upstream) });
          outgoing.end('upstream unreachable');
        } else outgoing.destroy();
      });
      outgoing.on('close', () => forwarded.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function header(incoming: IncomingMessage, name: string): string | undefined {
  const value = incoming.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readAll(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function rpcMethods(body: Buffer): string[] {
  if (body.length === 0) return [];
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return (Array.isArray(parsed) ? parsed : [parsed]).map((message) => {
      const method = (message as { method?: unknown } | null)?.method;
      return typeof method === 'string' ? method : 'response';
    });
  } catch {
    return [];
  }
}
