import { randomBytes } from 'node:crypto';

/**
 * A new random id with a readable prefix: `ws_`, `agt_`, ... followed by 24 hex digits (96 bits).
 *
 * @example
 * ```ts
 * randomId('agt'); // 'agt_3f9c0a5b7e21d4c86a0f1b2c'
 * ```
 */
export function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
