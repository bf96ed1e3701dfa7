/**
 * An HTTP answer's body read no further than `limit` bytes: its bytes, or undefined past the
 * limit (the connection is then dropped rather than drained), so that no peer can make us hold
 * more than we asked for.
 */
export async function readUpTo(body: AsyncIterable<Buffer> & { destroy(): void }, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of body) {
    read += chunk.length;
    if (read > limit) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
