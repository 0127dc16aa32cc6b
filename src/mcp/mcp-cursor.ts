import { INVALID_PARAMS, requestError } from './mcp-request-error.js';

/**
 * One page of a listing (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`)
 * from the request's cursor: the items from the cursor's offset, at most `pageSize`, and the
 * `nextCursor` when more follow. Cursors are opaque to clients (base64url of the list and offset); one
 * that was not made for this list — malformed, another list's, past the end — is a JSON-RPC
 * `-32602 Invalid params` error naming the way out.
 *
 * @example
 * ```ts
 * const { items, nextCursor } = pageOf('tools', allTools, request.params?.cursor, 100);
 * ```
 */
export function pageOf<T>(
  list: string,
  items: readonly T[],
  cursor: unknown,
  pageSize: number,
): { items: T[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : offsetOf(list, cursor, items.length);
  const end = Math.min(items.length, start + pageSize);
  const page: { items: T[]; nextCursor?: string } = { items: items.slice(start, end) };
  if (end < items.length) page.nextCursor = Buffer.from(`${list}:${end}`).toString('base64url');
  return page;
}

function offsetOf(list: string, cursor: unknown, length: number): number {
  const refuse = () => {
    const shown =
      typeof cursor === 'string' ? `'${cursor.length > 80 ? `${cursor.slice(0, 79)}…` : cursor}'` : String(cursor);
    return requestError(
      INVALID_PARAMS,
      `Invalid cursor ${shown} for ${list}/list: pass the nextCursor of the previous page, or no cursor for the first page.`,
    );
  };
  if (typeof cursor !== 'string' || cursor.length > 100 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refuse();
  const decoded = /^([a-z]+):(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (decoded === null || decoded[1] !== list) throw refuse();
  const offset = Number(decoded[2]);
  // A list that shrank between pages ends early rather than failing the client.
  if (offset < 1) throw refuse();
  return Math.min(offset, length);
}
