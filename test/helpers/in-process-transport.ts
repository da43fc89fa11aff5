// The upstream transport over an in-process upstream (the simulator's `handle`, or a test's
// stub's): each attempt is a function call, with no socket. It lives with the tests, not in
// src/: only a test's gateway is built over an in-process upstream (npm start, the image and
// the benchmark reach the upstream, the simulator included, over HTTP), and what it stands in
// for is undici's transport, whose timeout, cancellation, size cap and failure kinds it keeps,
// so a gateway over it behaves as over a socket wherever the socket is not the test's subject.
import {
  rawBody,
  type SimulatorResponse,
  type SimulatorReply,
  type SimulatorRequest,
  type StreamedBody,
} from '../../src/simulator/server.js';
import { CONTRACT, HOSTS, operationUrl, type UpstreamUrls } from '../../src/upstream/contract.js';
import type { ByteBudget } from '../../src/upstream/bytes.js';
import { bytesFailure, headerRecord, JSON_BODY, wholeResult, type TransportFactory, type UpstreamResult } from '../../src/upstream/http.js';
import type { CallScope } from '../../src/upstream/scope.js';

/** An upstream a gateway reaches in process: its hosts' URLs (on an origin nothing listens on), and what it replies to a request. */
export interface InProcessUpstream {
  urls: UpstreamUrls;
  handle(request: SimulatorRequest): Promise<SimulatorReply>;
}

/** The upstream dropping the connection, as undici reports it (undici-transport.ts, describeError). */
const RESET: UpstreamResult = { ok: false, failure: { kind: 'network', code: 'ECONNRESET' } };
const OVERSIZED: UpstreamResult = { ok: false, failure: { kind: 'oversized' } };

/** Header names in lower case, as an HTTP server reads them. */
const lowerCased = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

/**
 * Reads a streamed body up to `maxBodyBytes`, each chunk taken from the request's byte budget:
 * its text, or the failure once it passed either. Ends early when `signal` aborts.
 */
async function readStreamed(
  body: StreamedBody,
  signal: AbortSignal,
  maxBodyBytes: number,
  budget: ByteBudget,
): Promise<string | UpstreamResult> {
  let text = '';
  let bytes = 0;
  for await (const chunk of body(signal)) {
    const size = Buffer.byteLength(chunk);
    bytes += size;
    if (bytes > maxBodyBytes) return OVERSIZED;
    if (!budget.take(size)) return { ok: false, failure: bytesFailure(budget) };
    text += chunk;
  }
  return text;
}

/**
 * One attempt given to the upstream, settled exactly once, as undici's are
 * (undici-transport.ts, attemptOn): by the whole answer, its timer (`timeout`), the client
 * going away (`cancelled`, by the scope's cancelOnAbort), the answer passing `maxBodyBytes`
 * (`oversized`, counted as a streamed one arrives) or the request's byte budget (`bytes`), or a dropped connection (`network`,
 * ECONNRESET). A hung call is no answer until one of those. Settling aborts the upstream's
 * side of the call: a hang stops waiting, a streamed body stops.
 */
function attemptOn(
  upstream: InProcessUpstream,
  request: Omit<SimulatorRequest, 'signal'>,
  scope: Pick<CallScope, 'cancelOnAbort' | 'bytes'>,
  timeoutMs: number,
  maxBodyBytes: number,
): Promise<UpstreamResult> {
  return new Promise((resolve) => {
    const caller = new AbortController();
    let settled = false;
    const settle = (result: UpstreamResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      untrack();
      resolve(result);
      caller.abort();
    };
    const timer = setTimeout(() => settle({ ok: false, failure: { kind: 'timeout' } }), timeoutMs);
    const untrack = scope.cancelOnAbort(() => settle({ ok: false, failure: { kind: 'cancelled' } }));
    const read = ({ status, headers, body }: SimulatorResponse) => {
      const retryAfter = headers['retry-after'];
      if (typeof body === 'string') {
        const size = Buffer.byteLength(body);
        if (size > maxBodyBytes) return settle(OVERSIZED);
        return settle(scope.bytes.take(size) ? wholeResult(status, retryAfter, body) : { ok: false, failure: bytesFailure(scope.bytes) });
      }
      readStreamed(body, caller.signal, maxBodyBytes, scope.bytes).then(
        (text) => settle(typeof text === 'string' ? wholeResult(status, retryAfter, text) : text),
        // A body that failed before its end: the connection went (once settled, nobody reads it).
        () => settle(RESET),
      );
    };
    // null: the caller went away, so the attempt is settled already.
    upstream.handle({ ...request, signal: caller.signal }).then(
      (reply) => (reply === null || reply === 'reset' ? settle(RESET) : read(reply)),
      () => settle(RESET),
    );
  });
}

/**
 * A transport that gives every attempt to `upstream.handle`: the call's method, its path and
 * query from the contract (operationUrl over the URLs' paths, prefixes included, as undici's
 * transport builds them), its headers and its JSON body. The URLs must be the upstream's: a
 * gateway given other hosts has no in-process way to reach them.
 */
export function inProcessTransport(upstream: InProcessUpstream): TransportFactory {
  return (urls, { maxBodyBytes }) => {
    const foreign = HOSTS.filter((name) => new URL(urls[name]).origin !== new URL(upstream.urls[name]).origin);
    if (foreign.length > 0) throw new Error(`inProcessTransport: ${foreign.join(', ')} not the in-process upstream's (use a socket)`);
    const paths = Object.fromEntries(HOSTS.map((name) => [name, new URL(urls[name]).pathname])) as UpstreamUrls;
    return {
      attempt(operation, { params, json }, scope, headers, timeoutMs) {
        const request = {
          method: CONTRACT[operation].method,
          target: operationUrl(paths, operation, params),
          // What undici's transport sends (undici-transport.ts): the call's headers, and for a JSON body its type.
          headers: lowerCased(headerRecord(json === undefined ? headers : [...headers, ...JSON_BODY])),
          body: rawBody(json === undefined ? '' : JSON.stringify(json)),
        };
        return attemptOn(upstream, request, scope, timeoutMs, maxBodyBytes);
      },
      close() {
        // Nothing is held between calls: no connection, no pool.
      },
    };
  };
}

/**
 * fetch for a test that asks an in-process upstream itself (a login of its own, the simulator's
 * control endpoints): the URL's path and query, the method, headers and a text body go to
 * `handle`; a dropped connection rejects as fetch's does.
 */
export function upstreamFetch(upstream: InProcessUpstream) {
  return async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    const { pathname, search } = new URL(url);
    const reply = await upstream.handle({
      method: init.method ?? 'GET',
      target: pathname + search,
      headers: Object.fromEntries(new Headers(init.headers)),
      body: rawBody(init.body === undefined || init.body === null ? '' : String(init.body)),
      ...(init.signal ? { signal: init.signal } : {}),
    });
    if (reply === null || reply === 'reset')
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'ECONNRESET' }) });
    const { status, headers, body } = reply;
    if (typeof body === 'string') return new Response(body, { status, headers });
    const stop = new AbortController();
    const chunks = body(stop.signal)[Symbol.asyncIterator]();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(Buffer.from(value));
      },
      cancel: () => stop.abort(),
    });
    return new Response(stream, { status, headers });
  };
}
