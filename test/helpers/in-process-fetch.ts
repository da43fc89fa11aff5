// fetch over a gateway in this process (yoga's fetch), with what fetch does over a socket that
// yoga's fetch alone does not: the caller's abort rejects the request and ends a streamed body,
// and a streamed body (multipart, SSE) arrives as a socket delivers it.

/** What a socket holds between a writer and a reader that has not read yet. */
const SOCKET_BUFFER_BYTES = 64 * 1024;

/**
 * A streamed body as fetch delivers it over a socket: what the writer wrote meanwhile arrives
 * in one chunk, the writer runs at most SOCKET_BUFFER_BYTES ahead of a reader that stops, and
 * the caller's abort ends it with the abort's reason. (Read event by event instead, a stream of
 * thousands of small events costs its reader a read each.)
 */
function socketBuffered(body: ReadableStream<Uint8Array>, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const pending: Uint8Array[] = [];
  let bytes = 0;
  let ended: { error?: unknown } | undefined;
  let wakeReader: (() => void) | undefined;
  let wakeWriter: (() => void) | undefined;
  const end = (how: { error?: unknown }) => {
    ended ??= how;
    wakeReader?.();
  };
  const fill = async () => {
    try {
      for (;;) {
        while (bytes >= SOCKET_BUFFER_BYTES && !ended) await new Promise<void>((resolve) => (wakeWriter = resolve));
        const { value, done } = await reader.read();
        if (done || ended) break;
        pending.push(value);
        bytes += value.byteLength;
        wakeReader?.();
      }
      end({});
    } catch (error) {
      end({ error });
    }
  };
  signal?.addEventListener(
    'abort',
    () => {
      pending.length = 0;
      end({ error: signal.reason });
      reader.cancel(signal.reason).catch(() => undefined);
    },
    { once: true },
  );
  return new ReadableStream<Uint8Array>(
    {
      start: () => void fill(),
      async pull(controller) {
        while (pending.length === 0 && !ended) await new Promise<void>((resolve) => (wakeReader = resolve));
        if (pending.length > 0) {
          controller.enqueue(pending.length === 1 ? pending[0]! : Buffer.concat(pending));
          pending.length = 0;
          bytes = 0;
          wakeWriter?.();
        } else if (ended?.error !== undefined) controller.error(ended.error);
        else controller.close();
      },
      cancel(reason) {
        end({});
        wakeWriter?.();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** The response as fetch gives it over a socket: its body, when streamed (multipart, SSE), as socketBuffered delivers it. */
function socketLike(response: Response, signal: AbortSignal | undefined): Response {
  const type = response.headers.get('content-type') ?? '';
  if (!response.body || !/^(multipart\/|text\/event-stream)/.test(type)) return response;
  return new Response(socketBuffered(response.body, signal), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Settles as `pending` does, or rejects with the abort's reason when `signal` aborts first: fetch's way. */
function abortable<T>(pending: T | Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return Promise.resolve(pending);
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(pending)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A request as yoga's fetch takes it: a Request (with the caller's init applied), or a URL or path and an init. */
type Answering = (request: Request | string | URL, init: RequestInit) => Response | Promise<Response>;

/** fetch, with a socket's abort and streaming, over `answer` (a gateway's yoga.fetch, given its server context). */
export function inProcessFetch(answer: Answering) {
  return async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const signal = init.signal ?? (input instanceof Request ? input.signal : undefined) ?? undefined;
    const answering = answer(input instanceof Request ? new Request(input, init) : input, init);
    return socketLike(await abortable(answering, signal), signal);
  };
}
