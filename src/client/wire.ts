// How the streamed responses arrive on the wire: the parts of a multipart/mixed body (a deferred query) and the events of GraphQL over SSE (a subscription), read with fetch alone.

/** The body's text as it arrives, chunk by chunk (a reader, not async iteration: Safari's streams have none). */
async function* texts(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

/**
 * The JSON body of each part of a multipart/mixed response (RFC 2046): a part ends where a line
 * starts with `--boundary`, and `--boundary--` ends them all. A JSON part holds no raw line
 * break, so a boundary inside one of its strings is never taken for a delimiter.
 */
export async function* multipartParts(body: ReadableStream<Uint8Array>, boundary: string): AsyncGenerator<string> {
  const delimiter = `\r\n--${boundary}`;
  // The first delimiter may open the body, with no line break before it.
  let buffer = '\r\n';
  for await (const text of texts(body)) {
    buffer += text;
    for (let start = buffer.indexOf(delimiter); start >= 0; start = buffer.indexOf(delimiter)) {
      const end = buffer.indexOf(delimiter, start + delimiter.length);
      const rest = buffer.slice(start + delimiter.length);
      if (rest.startsWith('--')) return;
      if (end < 0) break;
      const part = buffer.slice(start + delimiter.length, end);
      buffer = buffer.slice(end);
      const bodyAt = part.indexOf('\r\n\r\n');
      if (bodyAt >= 0 && part.slice(bodyAt + 4).trim()) yield part.slice(bodyAt + 4).trim();
    }
  }
}

/**
 * The data of each `next` event of a GraphQL over SSE response (distinct connections mode),
 * until its `complete` event or its end. An event ends at a blank line; comments (the
 * gateway's keep-alives) and other events are skipped.
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffer = '';
  for await (const text of texts(body)) {
    // On the whole buffer: a CR LF may be cut between two chunks.
    buffer = (buffer + text).replaceAll('\r\n', '\n');
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const lines = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      const field = (name: string) =>
        lines.filter((line) => line.startsWith(`${name}:`)).map((line) => line.slice(name.length + 1).replace(/^ /, ''));
      const [event = 'message'] = field('event');
      if (event === 'complete') return;
      const data = field('data');
      if ((event === 'next' || event === 'message') && data.length > 0) yield data.join('\n');
    }
  }
}
