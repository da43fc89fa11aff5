// The upstream transport on undici: one keep-alive Pool per upstream host, one dispatch per attempt.
import type { IncomingHttpHeaders } from 'node:http';
import { Pool, type Dispatcher } from 'undici';
import { CONTRACT, contractPath, HOSTS, type HostName, type UpstreamUrls } from './contract.js';
import type { CallFailure } from './failures.js';
import { bytesFailure, EXHAUSTED_CODES, JSON_BODY, SOCKETS_PER_HOST, wholeResult, type Transport, type TransportOptions, type UpstreamResult } from './http.js';
import type { CallScope } from './scope.js';

const POOL_OPTIONS: Pool.Options = {
  connections: SOCKETS_PER_HOST,
  // The attempt's own timer bounds it whole (queueing, connecting, headers and body); undici's
  // per-phase timers would only add a second clock that fires later.
  headersTimeout: 0,
  bodyTimeout: 0,
};

/** Why an attempt was ended before its response was read. */
type Stop = 'timeout' | 'cancelled' | 'oversized' | 'bytes';

// undici's timeouts, should one fire first: the attempt took too long all the same.
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** An error undici gave, as the failure got would report for the same event (the retry rules read its code). */
function describeError(error: unknown): CallFailure {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return { kind: 'network', code: undefined };
  if (TIMEOUT_CODES.has(code)) return { kind: 'timeout' };
  if (EXHAUSTED_CODES.has(code)) return { kind: 'exhausted', code };
  // "other side closed": the upstream hung up before its response was whole, which Node's own
  // client (and so got) calls ECONNRESET; socket errors with a code of their own come as they are.
  return { kind: 'network', code: code === 'UND_ERR_SOCKET' ? 'ECONNRESET' : code };
}

/**
 * One attempt on a pool, settled exactly once: by its whole response, its error, its timer, the
 * client going away, or the body passing `maxBodyBytes` or what the request may still hold
 * (counted as it arrives, so a body without a length is cut off too). A dispatch handler of its own takes the response's chunks
 * straight from undici's parser: `Pool.request` would put each response through a readable
 * stream and an abort signal, for a body read whole anyway. A stopped attempt settles at once,
 * even while still queued for a connection; undici drops it when it would start.
 */
function attemptOn(pool: Pool, options: Dispatcher.DispatchOptions, scope: CallScope, timeoutMs: number, maxBodyBytes: number): Promise<UpstreamResult> {
  return new Promise((resolve) => {
    let settled = false;
    let controller: Dispatcher.DispatchController | undefined;
    const settle = (result: UpstreamResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      untrack();
      resolve(result);
    };
    const stop = (kind: Stop) => {
      settle({ ok: false, failure: kind === 'bytes' ? bytesFailure(scope.bytes) : { kind } });
      controller?.abort(new Error(kind));
    };
    const timer = setTimeout(stop, timeoutMs, 'timeout');
    const untrack = scope.cancelOnAbort(() => stop('cancelled'));
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let bytes = 0;
    pool.dispatch(options, {
      onRequestStart(started) {
        if (settled) started.abort(new Error('stopped'));
        else controller = started;
      },
      onResponseStart(_controller, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders;
        if (Number(headers['content-length'] ?? 0) > maxBodyBytes) stop('oversized');
      },
      onResponseData(_controller, chunk) {
        bytes += chunk.length;
        if (bytes > maxBodyBytes) return stop('oversized');
        if (!scope.bytes.take(chunk.length)) return stop('bytes');
        chunks.push(chunk);
      },
      onResponseEnd() {
        settle(wholeResult(status, headers['retry-after'], (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes)).toString('utf8')));
      },
      onResponseError(_controller, error) {
        settle({ ok: false, failure: describeError(error) });
      },
    });
  });
}

/**
 * One undici Pool per upstream host, made once per gateway: it holds connections (kept alive,
 * at most SOCKETS_PER_HOST), never data, so sharing it between requests is safe. No redirect is
 * followed: a dispatch follows none.
 */
export function undiciTransport(urls: UpstreamUrls, { maxBodyBytes }: TransportOptions): Transport {
  const pools = Object.fromEntries(HOSTS.map((name) => [name, new Pool(new URL(urls[name]).origin, POOL_OPTIONS)])) as Record<HostName, Pool>;
  // The bases' paths alone (as operationUrl joins them): with the contract path, each call's path and query, prefix included.
  const prefixes = Object.fromEntries(HOSTS.map((name) => [name, new URL(urls[name]).pathname.replace(/\/+$/, '')])) as UpstreamUrls;
  return {
    attempt(operation, { params, json }, scope, headers, timeoutMs) {
      const { host, method } = CONTRACT[operation];
      const body = json === undefined ? undefined : JSON.stringify(json);
      const options: Dispatcher.DispatchOptions = {
        path: prefixes[host] + contractPath(operation, params),
        method,
        // undici only reads the list (its type asks for a mutable one): the request's own, shared by its calls.
        headers: (body === undefined ? headers : [...headers, ...JSON_BODY]) as string[],
        body,
      };
      return attemptOn(pools[host], options, scope, timeoutMs, maxBodyBytes);
    },
    close() {
      for (const pool of Object.values(pools)) pool.destroy().catch(() => undefined);
    },
  };
}
