import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { UrlBlockedError } from './url-blocked-error.js';

/** One address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (default: the system resolver, like `dns.lookup`). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Options of {@link SsrfGuard}. */
export interface SsrfGuardOptions {
  /** Allow every address, private ones included (the guard then only checks schemes and credentials). */
  allowPrivateNetwork?: boolean;
  /**
   * Hosts exempt from the address check, as `hostname` or `hostname:port` (`'127.0.0.1:8080'`,
   * `'[::1]:3000'`, `'intranet.example'`). Meant for tests and known internal services; every other
   * host, including the targets of redirects from these, is still checked.
   */
  allowHosts?: readonly string[];
  /** How to resolve host names (default: the system resolver). Tests inject a fake. */
  resolve?: HostResolver;
}

/** A URL that passed {@link SsrfGuard.checkUrl}, with what a request to it needs. */
export interface CheckedUrl {
  url: URL;
  /** The host name or IP address to connect to, without IPv6 brackets. */
  hostname: string;
  /** True when the host is exempt from the address check (`allowHosts` or `allowPrivateNetwork`). */
  exempt: boolean;
  /**
   * The `lookup` to hand to `http.request`: it resolves through the guard's resolver and, unless the
   * host is exempt, refuses non-public addresses, so the address checked is the address connected to.
   */
  lookup: LookupFunction;
}

/** What kind of address an IP is, and whether a request may go there. */
export interface AddressClass {
  /** ipaddr.js's range name (`unicast`, `loopback`, `private`, `linkLocal`, ...). */
  range: string;
  /** True only for globally routable unicast addresses. */
  isPublic: boolean;
}

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address (this machine)',
  private: 'a private-network address',
  uniqueLocal: 'a private (unique local) IPv6 address',
  linkLocal: 'a link-local address (where cloud metadata services live)',
  carrierGradeNat: 'a carrier-grade NAT address',
  unspecified: 'the unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  ipv4Compatible: 'an IPv4-compatible IPv6 address',
  invalid: 'not a valid IP address',
};

const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * Classify an IP address for the SSRF guard: only globally routable unicast addresses are public.
 *
 * Loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16 — cloud metadata
 * at 169.254.169.254 — and fe80::/10), unspecified, multicast, broadcast, carrier-grade NAT
 * (100.64/10), documentation, benchmarking and other reserved ranges are not. IPv6 forms that carry an
 * IPv4 address (IPv4-mapped `::ffff:127.0.0.1`, IPv4-translated, NAT64 `64:ff9b::/96`) are judged by
 * that IPv4 address; IPv4-compatible (`::a.b.c.d`), 6to4 and Teredo addresses are refused. Any IPv4
 * spelling ipaddr.js parses (`2130706433`, `0177.0.0.1`, `0x7f.1`) is classified by its value.
 *
 * @example
 * ```ts
 * classifyAddress('169.254.169.254'); // { range: 'linkLocal', isPublic: false }
 * classifyAddress('::ffff:10.0.0.1'); // { range: 'private', isPublic: false }
 * classifyAddress('93.184.215.14'); // { range: 'unicast', isPublic: true }
 * ```
 */
export function classifyAddress(address: string): AddressClass {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return { range: 'invalid', isPublic: false };
  }
  if (parsed.kind() === 'ipv4') {
    const range = (parsed as ipaddr.IPv4).range();
    return { range, isPublic: range === 'unicast' };
  }
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || (range === 'rfc6052' && v6.match(NAT64))) {
    return classifyAddress(embeddedIPv4(v6));
  }
  // ::a.b.c.d (deprecated IPv4-compatible, which the URL parser writes as ::7f00:1): some stacks route
  // it to the IPv4 address. ipaddr.js reads the dotted spelling as IPv4-mapped, handled above.
  if (range !== 'loopback' && range !== 'unspecified' && v6.parts.slice(0, 6).every((part) => part === 0)) {
    return { range: 'ipv4Compatible', isPublic: false };
  }
  return { range, isPublic: range === 'unicast' };
}

/**
 * True when requests to `address` are allowed without `allowPrivateNetwork`; see {@link classifyAddress}.
 *
 * @example
 * ```ts
 * isPublicAddress('10.0.0.1'); // false
 * isPublicAddress('1.1.1.1'); // true
 * ```
 */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).isPublic;
}

/**
 * Server-side request forgery guard for tools that fetch URLs a model chose: only `http:`/`https:`,
 * no credentials in the URL, and no request to a non-public address.
 *
 * Addresses are checked twice over: {@link SsrfGuard.checkUrl} refuses IP literals (in every spelling
 * the URL parser accepts: `http://2130706433`, `http://0x7f.1`, `http://[::ffff:127.0.0.1]`) and
 * `localhost` names before anything is sent, and the `lookup` it returns checks every address a host
 * name resolves to *at connection time*, so DNS rebinding (a name that resolves to a public address
 * when checked and a private one when used) cannot slip through: the checked address is the one
 * connected to. Check every redirect target with `checkUrl` again. Refusals throw
 * {@link UrlBlockedError}.
 *
 * @example
 * ```ts
 * import http from 'node:http';
 *
 * const guard = new SsrfGuard();
 * const checked = guard.checkUrl('https://example.com/'); // throws UrlBlockedError for a private target
 * http.get(checked.url, { lookup: checked.lookup }, (response) => response.resume());
 * ```
 */
export class SsrfGuard {
  readonly allowPrivateNetwork: boolean;
  readonly #allowHosts: ReadonlySet<string>;
  readonly #resolve: HostResolver;

  constructor(options: SsrfGuardOptions = {}) {
    this.allowPrivateNetwork = options.allowPrivateNetwork === true;
    this.#allowHosts = new Set((options.allowHosts ?? []).map((host) => host.toLowerCase()));
    this.#resolve = options.resolve ?? systemResolver;
  }

  /**
   * Parse `input` and refuse it unless it may be fetched: scheme, credentials, `localhost` names and
   * literal IP addresses are checked here, host names when the returned `lookup` resolves them.
   * `redirectedFrom` words the error for a redirect target.
   */
  checkUrl(input: string | URL, redirectedFrom?: string): CheckedUrl {
    const shown = shortUrl(String(input));
    const prefix = redirectedFrom === undefined ? '' : `The redirect from '${shortUrl(redirectedFrom)}' to `;
    const subject = redirectedFrom === undefined ? `The URL '${shown}'` : `${prefix}'${shown}'`;
    const invalid = `${subject} is not a valid absolute URL.`;
    const meant = input instanceof URL ? undefined : withoutScheme(input);
    if (meant !== undefined) {
      throw new UrlBlockedError(
        'invalid_url',
        String(input),
        `${invalid} It has no scheme; did you mean '${shortUrl(meant)}'?`,
      );
    }
    let url: URL;
    try {
      url = input instanceof URL ? new URL(input.href) : new URL(input);
    } catch {
      throw new UrlBlockedError('invalid_url', String(input), invalid);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UrlBlockedError(
        'scheme',
        url.href,
        `${subject} was refused: only http and https URLs can be fetched, not ${url.protocol.slice(0, -1)}.`,
      );
    }
    if (url.username !== '' || url.password !== '') {
      throw new UrlBlockedError(
        'credentials',
        url.href,
        `${subject} was refused: URLs with a user name or password are not allowed; send an Authorization header instead.`,
      );
    }
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const exempt = this.allowPrivateNetwork || this.#isAllowedHost(url, hostname);
    if (!exempt) {
      const bare = hostname.toLowerCase().replace(/\.$/, '');
      if (bare === 'localhost' || bare.endsWith('.localhost')) {
        throw new UrlBlockedError(
          'local_hostname',
          url.href,
          `${subject} was refused: '${url.hostname}' is this machine, and requests to local or private networks are not allowed.`,
        );
      }
      if (isIP(hostname) !== 0) this.#assertPublic(url.href, hostname, subject);
    }
    return { url, hostname, exempt, lookup: this.#lookup(url.href, subject, !exempt) };
  }

  /**
   * Resolve `hostname` with the guard's resolver and refuse it (unless private networks are allowed)
   * when any of its addresses is not public: a name with one private address among public ones is a
   * rebinding trick, not a partial success.
   */
  async resolveHost(hostname: string): Promise<ResolvedAddress[]> {
    const addresses = await this.#resolve(hostname);
    if (!this.allowPrivateNetwork) {
      for (const { address } of addresses) {
        this.#assertPublic(`http://${hostname}/`, address, `The host '${hostname}'`, hostname);
      }
    }
    return addresses;
  }

  #isAllowedHost(url: URL, hostname: string): boolean {
    if (this.#allowHosts.size === 0) return false;
    const host = url.host.toLowerCase();
    const name = hostname.toLowerCase();
    const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
    const bracketed = isIP(name) === 6 ? `[${name}]` : name;
    return [name, bracketed, host, `${bracketed}:${port}`].some((candidate) => this.#allowHosts.has(candidate));
  }

  #assertPublic(url: string, address: string, subject: string, hostname?: string): void {
    const { range, isPublic } = classifyAddress(address);
    if (isPublic) return;
    const words = RANGE_WORDS[range] ?? `a special-purpose address (${range})`;
    const what = hostname === undefined ? `${address} is` : `'${hostname}' resolves to ${address}, which is`;
    throw new UrlBlockedError(
      'private_address',
      url,
      `${subject} was refused: ${what} ${words}; only public internet addresses can be fetched.`,
      address,
    );
  }

  #lookup(url: string, subject: string, check: boolean): LookupFunction {
    return (hostname, options, callback) => {
      this.#resolve(hostname).then(
        (resolved) => {
          try {
            if (check) for (const { address } of resolved) this.#assertPublic(url, address, subject, hostname);
          } catch (error) {
            callback(error as NodeJS.ErrnoException, '', 0);
            return;
          }
          const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
          const usable = family === 4 || family === 6 ? resolved.filter((entry) => entry.family === family) : resolved;
          if (usable.length === 0) {
            const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
            error.code = 'ENOTFOUND';
            callback(error, '', 0);
            return;
          }
          if (options.all === true)
            callback(
              null,
              usable.map(({ address, family }) => ({ address, family })),
            );
          else callback(null, usable[0]!.address, usable[0]!.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, '', 0),
      );
    };
  }
}

async function systemResolver(hostname: string): Promise<ResolvedAddress[]> {
  const addresses = await dnsLookup(hostname, { all: true, verbatim: true });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

function embeddedIPv4(address: ipaddr.IPv6): string {
  const [high = 0, low = 0] = address.parts.slice(6);
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

function shortUrl(url: string): string {
  return url.length > 200 ? `${url.slice(0, 197)}...` : url;
}

/**
 * The `https://` URL meant by a host (with a dot), port and path written without a scheme
 * (`example.com/page`, `www.example.org:8443/docs`), as people and models often write them; the URL
 * parser refuses the first and reads the second's host as a scheme.
 */
function withoutScheme(input: string): string | undefined {
  const text = input.trim();
  if (!/^[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)+(:\d+)?([/?#]|$)/u.test(text)) return undefined;
  const meant = `https://${text}`;
  return URL.canParse(meant) ? meant : undefined;
}
