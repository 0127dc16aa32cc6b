import { isBranded, ToolshedError } from '../../core/errors/toolshed-error.js';

const marker = Symbol.for('toolshed.urlBlockedError');

/**
 * Why the SSRF guard refused a URL.
 *
 * - `invalid_url` — not a parseable absolute URL.
 * - `scheme` — not `http:` or `https:` (`file:`, `ftp:`, `gopher:`, `data:`, ...).
 * - `credentials` — the URL carries a user name or password (`http://user:pass@host`).
 * - `local_hostname` — `localhost` or a `*.localhost` name, which always means this machine.
 * - `private_address` — the host is, or resolves to, a loopback, private, link-local, unspecified,
 *   multicast, carrier-grade NAT or other non-public address.
 */
export type UrlBlockedReason = 'invalid_url' | 'scheme' | 'credentials' | 'local_hostname' | 'private_address';

/**
 * Thrown by {@link SsrfGuard} when a URL may not be fetched. The message quotes the URL (and the
 * address it resolved to, when that was the problem) and is safe to show a model.
 *
 * @example
 * ```ts
 * try {
 *   new SsrfGuard().checkUrl('http://169.254.169.254/latest/meta-data');
 * } catch (error) {
 *   if (UrlBlockedError.isInstance(error)) console.log(error.reason); // 'private_address'
 * }
 * ```
 */
export class UrlBlockedError extends ToolshedError<'URL_BLOCKED'> {
  readonly [marker] = true;
  readonly reason: UrlBlockedReason;
  readonly url: string;
  /** The refused IP address, for `private_address`. */
  readonly address: string | undefined;

  constructor(reason: UrlBlockedReason, url: string, message: string, address?: string) {
    super('URL_BLOCKED', message);
    this.name = 'UrlBlockedError';
    this.reason = reason;
    this.url = url;
    this.address = address;
  }

  /** True when `value` is a `UrlBlockedError`, from this or any other copy of the package. */
  static override isInstance(value: unknown): value is UrlBlockedError {
    return isBranded(value, marker);
  }
}
