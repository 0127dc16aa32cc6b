/**
 * Why a JSON-RPC message (or a batch) cannot be answered under its own id, as the text after
 * `Invalid Request: ` of a `-32600` answer: a numeric id past
 * ±(2^53 − 1) was rounded when the JSON was read (`123456789012345678901234567890` became
 * `1.2345678901234568e+29`), so an answer would carry another id than the one sent. `undefined` when
 * every id is a string or a number read exactly. Fractions are left to the JSON-RPC checks further on.
 *
 * @example
 * ```ts
 * unsafeRequestIdMessage(JSON.parse('{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}'));
 * // "'id' 1.2345678901234568e+29 is a number too large to be answered with the same id ..."
 * ```
 */
export function unsafeRequestIdMessage(message: unknown): string | undefined {
  for (const item of Array.isArray(message) ? message : [message]) {
    if (typeof item !== 'object' || item === null) continue;
    const id = (item as { id?: unknown }).id;
    if (typeof id !== 'number' || !Number.isInteger(id) || Number.isSafeInteger(id)) continue;
    return `'id' ${String(id)} is a number too large to be answered with the same id (a whole number between ${-Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} is); send a smaller number or a string.`;
  }
  return undefined;
}
