import { isPlainObject } from '../../core/json-schema.js';
import { ToolResult } from '../../core/tool-result.js';

/**
 * What a secret is replaced with.
 *
 * @example
 * ```ts
 * new SecretRedactor('s3cret', { bearer: false }).text('s3cret') === REDACTED; // true
 * ```
 */
export const REDACTED = '[redacted]';

/**
 * Removes one secret from everything a REST tool hands back: strings, object keys, arrays, numbers
 * whose digits contain it, and every part of a {@link ToolResult} (message, hint, details, data,
 * content, metadata).
 *
 * Besides the secret as it is, it removes the forms a server may echo it in: the whole
 * `Bearer <secret>` header value (for bearer auth), URL-encoded (a query secret inside a URL in an
 * error), form-encoded and JSON-escaped. The longest forms go first, so `Bearer <secret>` becomes one
 * `[redacted]`.
 *
 * @example
 * ```ts
 * const redactor = new SecretRedactor('tok_live_123', { bearer: true });
 * redactor.text('got Bearer tok_live_123'); // 'got [redacted]'
 * redactor.value({ echo: ['tok_live_123'], tok_live_123: 1 }); // { echo: ['[redacted]'], '[redacted]': 1 }
 * ```
 */
export class SecretRedactor {
  readonly #pattern: RegExp;
  readonly #digits: string | undefined;

  constructor(secret: string, options: { bearer: boolean }) {
    const forms = new Set<string>();
    if (options.bearer) forms.add(`Bearer ${secret}`);
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(new URLSearchParams({ s: secret }).toString().slice(2));
    forms.add(JSON.stringify(secret).slice(1, -1));
    forms.delete('');
    // One pass over the text, longest form first at each position: a replacement is never searched again.
    const alternatives = [...forms].sort((left, right) => right.length - left.length).map(escapeRegExp);
    this.#pattern = new RegExp(alternatives.join('|'), 'g');
    this.#digits = /^\d+$/.test(secret) ? secret : undefined;
  }

  /** `text` without the secret. */
  text(text: string): string {
    return text.replace(this.#pattern, REDACTED);
  }

  /** A copy of JSON data without the secret in any string, key or number. */
  value(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if ((typeof value === 'number' || typeof value === 'bigint') && this.#digits !== undefined) {
      return String(value).includes(this.#digits) ? REDACTED : value;
    }
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (isPlainObject(value)) {
      // fromEntries defines own properties, so a `__proto__` key stays a key.
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.text(key), this.value(item)]));
    }
    return value;
  }

  /** What a handler returns (data, or a {@link ToolResult}), without the secret anywhere in it. */
  output(output: unknown): unknown {
    if (!ToolResult.isToolResult(output)) return this.value(output);
    const metadata = this.value(output.metadata) as Parameters<typeof ToolResult.success>[1];
    switch (output.status) {
      case 'success':
        return output.content === undefined
          ? ToolResult.success(this.value(output.data), metadata)
          : ToolResult.content(
              this.value(output.content) as Parameters<typeof ToolResult.content>[0],
              this.value(output.data),
              metadata,
            );
      case 'pending_approval':
        return ToolResult.pendingApproval(output.approval.id, this.value(output.approval.arguments), metadata);
      case 'error':
      case 'timeout':
      case 'cancelled': {
        const { code, message, hint, details, retryable } = output.error;
        return ToolResult.error(code, this.text(message), {
          retryable,
          ...(hint === undefined ? {} : { hint: this.text(hint) }),
          ...(details === undefined ? {} : { details: this.value(details) }),
          ...(metadata === undefined ? {} : { metadata }),
        });
      }
      default: {
        const unreachable: never = output;
        return unreachable;
      }
    }
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
