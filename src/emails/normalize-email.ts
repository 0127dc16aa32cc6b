import { createHash } from 'node:crypto';
import type { EmailRecord } from './email-record.js';

/** Limits a message must respect to be imported. */
export interface EmailLimits {
  /** Longest body kept, in characters (default 1 000 000); longer messages are skipped. */
  maxBodyChars: number;
  /** Largest raw RFC 822 message parsed, in bytes (default 10 MiB). */
  maxMessageBytes: number;
}

/** The default {@link EmailLimits}. */
export const DEFAULT_EMAIL_LIMITS: Readonly<EmailLimits> = Object.freeze({
  maxBodyChars: 1_000_000,
  maxMessageBytes: 10 * 1024 * 1024,
});

/** A message as read from a source, before checks. */
export interface RawEmailFields {
  messageId?: string | undefined;
  inbox?: string | undefined;
  subject?: string | undefined;
  sender?: string | undefined;
  recipients: string[];
  date?: string | Date | undefined;
  body?: string | undefined;
}

/** Why a message was skipped (`reason`) or the record to store. */
export type NormalizeResult = { ok: true; email: EmailRecord } | { ok: false; reason: string };

/**
 * Parse a date header or field to ISO 8601 UTC, or `undefined`. Accepts RFC 2822 (with a trailing
 * `(PDT)` comment), ISO 8601 and epoch seconds/milliseconds.
 */
export function normalizeDate(value: string | Date | number | undefined | null): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (typeof value === 'number') {
    const ms = value < 1e11 ? value * 1000 : value;
    return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
  }
  const text = value.replace(/\([^)]*\)/g, ' ').trim();
  if (text === '') return undefined;
  if (/^\d{9,13}$/.test(text)) return normalizeDate(Number(text));
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return undefined;
  const year = new Date(ms).getUTCFullYear();
  return year < 1970 || year > 2100 ? undefined : new Date(ms).toISOString();
}

/** Split an address list (`a@x, b@y; c@z`, or already a list) into trimmed lowercase addresses. */
export function splitAddresses(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const text = Array.isArray(value) ? value.map(String).join(', ') : String(value);
  // Addresses where there are any (so a quoted "Doe, Jane" is not split); else the plain names.
  const found = clean(text).match(/[^\s<>,;"'()]+@[^\s<>,;"'()]+/g);
  const items = found ?? clean(text).split(/[,;\n]/);
  const out: string[] = [];
  for (const item of items) {
    const address = item.trim().replace(/^["']|["']$/g, '');
    if (address !== '' && address.length <= 320) out.push(address.toLowerCase());
  }
  return out;
}

/** Remove what no database stores: NUL characters (PostgreSQL text refuses them). */
export function clean(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '') : text;
}

/**
 * Check and complete a message: an ISO date is required, the body must fit the limit, the inbox
 * defaults to the first recipient, and a message without a Message-ID gets a stable one derived from
 * its content (so a re-import finds it again).
 */
export function normalizeEmail(fields: RawEmailFields, limits: EmailLimits = DEFAULT_EMAIL_LIMITS): NormalizeResult {
  const date = normalizeDate(fields.date);
  if (date === undefined) return { ok: false, reason: 'missing or unparseable date' };
  const body = clean(fields.body ?? '');
  if (body.length > limits.maxBodyChars) {
    return { ok: false, reason: `body of ${body.length} characters exceeds ${limits.maxBodyChars}` };
  }
  const recipients = fields.recipients.map(clean).filter((item) => item !== '');
  const inbox = clean(fields.inbox ?? '').trim() || recipients[0];
  if (inbox === undefined || inbox === '') return { ok: false, reason: 'no inbox: no maildir user and no recipient' };
  const subject = clean(fields.subject ?? '').slice(0, 2000);
  const sender = clean(fields.sender ?? '').slice(0, 1000);
  let messageId = clean(fields.messageId ?? '').trim();
  if (messageId === '' || messageId.length > 1000) {
    const digest = createHash('sha256')
      .update(JSON.stringify([inbox, sender, date, subject, body]))
      .digest('hex');
    messageId = `<${digest.slice(0, 40)}@derived.toolshed>`;
  }
  return { ok: true, email: { message_id: messageId, inbox, subject, sender, recipients, date, body } };
}
