import { createCipheriv, createDecipheriv, randomBytes, timingSafeEqual } from 'node:crypto';
import { secretKeyId } from './secret-key.js';

const VERSION = 1;
const KEY_ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + KEY_ID_BYTES + IV_BYTES + TAG_BYTES;

/**
 * What {@link openSecret} found: the value, or why there is none.
 *
 * @example
 * ```ts
 * const opened: OpenedSecret = openSecret(key, sealed, context);
 * if (!opened.ok && opened.reason === 'other-key') console.log('stored with another key');
 * ```
 */
export type OpenedSecret =
  | { ok: true; value: string }
  /** The value was sealed with another key (its fingerprint differs). */
  | { ok: false; reason: 'other-key' }
  /** Same key, but the bytes do not authenticate: damaged, or moved to another workspace or name. */
  | { ok: false; reason: 'damaged' };

/**
 * Encrypt a secret's value with AES-256-GCM under `key`, bound to `context` (its workspace and name,
 * as additional authenticated data, so a value copied to another row does not open). The bytes are a
 * version, the key's fingerprint, a random 96-bit IV, the tag, then the ciphertext.
 *
 * @example
 * ```ts
 * const sealed = sealSecret(key, 'sk-live-123', 'acme\u0000SERPER_API_KEY');
 * openSecret(key, sealed, 'acme\u0000SERPER_API_KEY'); // { ok: true, value: 'sk-live-123' }
 * ```
 */
export function sealSecret(key: Buffer, value: string, context: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.of(VERSION), secretKeyId(key), iv, cipher.getAuthTag(), ciphertext]);
}

/**
 * Decrypt what {@link sealSecret} made with the same `key` and `context`; never returns bytes that did
 * not authenticate.
 *
 * @example
 * ```ts
 * const opened = openSecret(key, row.value_encrypted, 'acme\u0000SERPER_API_KEY');
 * if (opened.ok) use(opened.value);
 * ```
 */
export function openSecret(key: Buffer, sealed: Uint8Array, context: string): OpenedSecret {
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (bytes.length < HEADER_BYTES || bytes[0] !== VERSION) return { ok: false, reason: 'damaged' };
  const keyId = bytes.subarray(1, 1 + KEY_ID_BYTES);
  if (!timingSafeEqual(keyId, secretKeyId(key))) return { ok: false, reason: 'other-key' };
  const iv = bytes.subarray(1 + KEY_ID_BYTES, 1 + KEY_ID_BYTES + IV_BYTES);
  const tag = bytes.subarray(1 + KEY_ID_BYTES + IV_BYTES, HEADER_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    const plain = Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES)), decipher.final()]);
    return { ok: true, value: plain.toString('utf8') };
  } catch {
    return { ok: false, reason: 'damaged' };
  }
}
