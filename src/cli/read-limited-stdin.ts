/**
 * Read standard input as UTF-8 text, stopping as soon as more than `maxBytes` arrived: a runaway
 * producer must not fill memory. Resolves with `undefined` past the limit.
 *
 * @example
 * ```ts
 * const text = await readLimitedStdin(process.stdin, 1_048_576);
 * if (text === undefined) console.error('stdin is over 1 MiB');
 * ```
 */
export async function readLimitedStdin(
  stdin: AsyncIterable<Uint8Array | string>,
  maxBytes: number,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stdin) {
    const buffer =
      typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    bytes += buffer.byteLength;
    if (bytes > maxBytes) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
