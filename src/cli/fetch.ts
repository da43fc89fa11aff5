// The CLI's fetch, handed to the SDK: bounds what one response may cost (its bytes, its silences) as it streams.
/**
 * The SDK (graphql-request, and its own stream reader) reads whatever a fetch gives it:
 * a plain response whole into one string, an event stream event by event, with no limit and
 * no clock. Bounding the body here, as its bytes arrive, keeps the SDK as it is (and free
 * of Node) and keeps every bound in the one program that needs it.
 */

/** The response (or, in an event stream, one event) was larger than the CLI reads. */
export class ResponseTooLarge extends Error {
  override readonly name = 'ResponseTooLarge';
  constructor(readonly maxBytes: number) {
    super(`the response is larger than ${maxBytes} bytes`);
  }
}

/** Nothing arrived (no headers, no byte of the body while one was awaited) for too long. */
export class ResponseSilent extends Error {
  override readonly name = 'ResponseSilent';
  constructor(readonly idleMs: number) {
    super(`nothing arrived for ${idleMs} ms`);
  }
}

export interface FetchBounds {
  /** The most bytes read into memory at once: the whole response, or one event of an event stream. */
  maxBytes: number;
  /** Abort a response that sends nothing for this long: before its headers, or between two chunks while the SDK waits for one. None when absent. */
  idleMs?: number;
  /** Ends every request it makes (the command's deadline). */
  signal?: AbortSignal;
  /** Told when a response is cut for its size or its silence, before the SDK sees the error. */
  onCut?: (why: ResponseTooLarge | ResponseSilent) => void;
}

/** What the last response looked like, so a failure the SDK reports as "no response" can be told apart. */
export interface LastResponse {
  status: number;
  contentType: string;
  cut: ResponseTooLarge | ResponseSilent | null;
}

/** A timer that aborts the request when it is not re-armed in time. */
function idleTimer(idleMs: number | undefined, fire: () => void) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    arm() {
      clearTimeout(timer);
      if (idleMs !== undefined) timer = setTimeout(fire, idleMs);
    },
    disarm: () => clearTimeout(timer),
  };
}

/**
 * How many bytes the reader above holds at once, counted chunk by chunk: everything so far,
 * or for an event stream the largest event (complete in this chunk, or still open) from its
 * first byte to the blank line ("\n\n", what the SDK splits events on) that ends it.
 */
export function heldBytes(eventStream: boolean) {
  let held = 0;
  let endsInNewline = false;
  return (chunk: Uint8Array): number => {
    if (!eventStream) return (held += chunk.byteLength);
    let largest = 0;
    let start = 0;
    for (let i = 0; i < chunk.byteLength; i++) {
      if (chunk[i] !== 10 || !(i > 0 ? chunk[i - 1] === 10 : endsInNewline)) continue;
      largest = Math.max(largest, held + i + 1 - start);
      held = 0;
      start = i + 1;
    }
    held += chunk.byteLength - start;
    if (chunk.byteLength > 0) endsInNewline = chunk[chunk.byteLength - 1] === 10;
    return Math.max(largest, held);
  };
}

/**
 * The body as the SDK reads it, one chunk per read (nothing read ahead: highWaterMark 0), so
 * the idle timer runs only while the SDK is waiting for the network, never while it is busy.
 */
function boundedBody(
  body: ReadableStream<Uint8Array>,
  eventStream: boolean,
  bounds: FetchBounds,
  cut: (why: ResponseTooLarge) => void,
  timer: ReturnType<typeof idleTimer>,
) {
  const reader = body.getReader();
  const count = heldBytes(eventStream);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        timer.arm();
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } finally {
          timer.disarm();
        }
        if (next.done) return controller.close();
        if (count(next.value) > bounds.maxBytes) {
          const why = new ResponseTooLarge(bounds.maxBytes);
          cut(why);
          controller.error(why);
          return;
        }
        controller.enqueue(next.value);
      },
      cancel(reason) {
        timer.disarm();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** A fetch that cuts a response past `maxBytes` or silent for `idleMs`, and what it saw of the last response. */
export function boundedFetch(bounds: FetchBounds): { fetch: typeof fetch; last: LastResponse } {
  const last: LastResponse = { status: 0, contentType: '', cut: null };
  const bounded: typeof fetch = async (input, init) => {
    const own = new AbortController();
    const signals = [own.signal, init?.signal, bounds.signal].filter((signal): signal is AbortSignal => signal != null);
    // Only this request's response explains its failure, not the one before it.
    Object.assign(last, { status: 0, contentType: '', cut: null });
    const cut = (why: ResponseTooLarge | ResponseSilent) => {
      last.cut = why;
      bounds.onCut?.(why);
      own.abort(why);
    };
    const timer = idleTimer(bounds.idleMs, () => cut(new ResponseSilent(bounds.idleMs!)));
    timer.arm();
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal: AbortSignal.any(signals) });
    } finally {
      timer.disarm();
    }
    last.status = response.status;
    last.contentType = response.headers.get('content-type') ?? '';
    if (!response.body) return response;
    // A declared length over the bound is refused before a byte of it is read.
    if (Number(response.headers.get('content-length')) > bounds.maxBytes) {
      const why = new ResponseTooLarge(bounds.maxBytes);
      cut(why);
      throw why;
    }
    const eventStream = /^text\/event-stream\b/i.test(last.contentType);
    const body = boundedBody(response.body, eventStream, bounds, cut, timer);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: bounded, last };
}
