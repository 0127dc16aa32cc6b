/**
 * The body of a fetch `Response` as text, reading at most `maxBytes` (the rest is cancelled), so a
 * misbehaving endpoint cannot fill memory. Returns whether the body was cut.
 *
 * @example
 * ```ts
 * const { text, truncated } = await readLimitedText(await fetch(url), 2_000_000);
 * ```
 */
export async function readLimitedText(
  response: Response,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  if (response.body === null) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        await reader.cancel();
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    reader.releaseLock();
  }
  return { text: new TextDecoder('utf-8').decode(Buffer.concat(chunks, size)), truncated };
}
