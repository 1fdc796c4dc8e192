/**
 * The `data` of each server-sent event in a response body. Read with a reader rather than
 * `for await` over the stream, which not every browser supports yet.
 */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (data !== '') yield data;
      }
    }
  } finally {
    // Stopping early (a cancelled answer) must also close the connection. An errored stream
    // refuses to cancel with the error already on its way out, so that refusal is dropped.
    await reader.cancel().catch(() => undefined);
  }
}
