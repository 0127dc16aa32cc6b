/**
 * Which `Host` and `Origin` headers an HTTP endpoint accepts (DNS-rebinding protection). Local hosts
 * and origins are always accepted.
 *
 * @example
 * ```ts
 * const policy: HostPolicy = { allowedHosts: ['tools.example.com'], allowedOrigins: ['https://app.example.com'] };
 * ```
 */
export interface HostPolicy {
  /**
   * Hosts accepted beside the local ones (`localhost`, `127.0.0.1`, `[::1]`, any port): a hostname
   * (`tools.example.com`, any port) or a host with port (`tools.example.com:8443`). `'*'` accepts any
   * host, for a server behind a proxy that checks hosts itself.
   */
  allowedHosts?: readonly string[];
  /**
   * Browser origins accepted for cross-origin requests (`https://app.example.com`), beside local
   * origins and the request's own host. `'*'` accepts any origin.
   */
  allowedOrigins?: readonly string[];
}

const LOCAL_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Check a request's `Host` and `Origin` headers against a policy; returns why the request is refused,
 * or `undefined` when it is accepted.
 *
 * A page on `evil.example.com` whose DNS name was rebound to 127.0.0.1 reaches a local server with
 * `Host: evil.example.com`, which is refused unless allowed. A request without an `Origin` header (any
 * non-browser client) passes the origin check; a browser request passes it when its origin is local,
 * is the request's own host (same origin), or is listed in `allowedOrigins`. `Origin: null` (sandboxed
 * frames, files) is refused.
 *
 * @example
 * ```ts
 * checkHostAndOrigin(new Headers({ host: '127.0.0.1:4319' }), {}); // undefined
 * checkHostAndOrigin(new Headers({ host: 'evil.example.com' }), {});
 * // "Host 'evil.example.com' is not allowed; ..."
 * ```
 */
export function checkHostAndOrigin(headers: Headers, policy: HostPolicy): string | undefined {
  const host = headers.get('host');
  if (host === null || host === '') {
    return 'The request has no Host header; send one naming this server.';
  }
  const hostname = hostnameOf(host);
  if (hostname === undefined || !isAllowedHost(host.toLowerCase(), hostname, policy.allowedHosts)) {
    return `Host '${clip(host)}' is not allowed; connect through localhost, or add the host to the server's allowedHosts.`;
  }
  const origin = headers.get('origin');
  if (origin === null) return undefined;
  if (policy.allowedOrigins?.includes('*') === true || policy.allowedOrigins?.includes(origin) === true)
    return undefined;
  let originUrl: URL;
  try {
    originUrl = new URL(origin);
  } catch {
    return `Origin '${clip(origin)}' is not allowed; only local origins and the server's allowedOrigins may call it.`;
  }
  if (LOCAL_HOSTNAMES.has(originUrl.hostname) || originUrl.host === host.toLowerCase()) return undefined;
  return `Origin '${clip(origin)}' is not allowed; only local origins and the server's allowedOrigins may call it.`;
}

function isAllowedHost(host: string, hostname: string, allowedHosts: readonly string[] | undefined): boolean {
  if (LOCAL_HOSTNAMES.has(hostname)) return true;
  if (allowedHosts === undefined) return false;
  for (const allowed of allowedHosts) {
    const entry = allowed.toLowerCase();
    if (entry === '*' || entry === host || entry === hostname) return true;
  }
  return false;
}

function hostnameOf(host: string): string | undefined {
  try {
    const url = new URL(`http://${host}`);
    // A Host header is exactly host[:port]; anything that parses into a path or credentials is not one.
    if (url.pathname !== '/' || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
      return undefined;
    return url.hostname;
  } catch {
    return undefined;
  }
}

function clip(value: string): string {
  return value.length > 100 ? `${value.slice(0, 97)}...` : value;
}
