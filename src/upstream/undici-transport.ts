// The upstream transport on undici: one keep-alive Pool per upstream host, one `request()` per attempt.
import { EventEmitter } from 'node:events';
import { Pool, type Dispatcher } from 'undici';
import { CONTRACT, HOSTS, operationUrl, type HostName, type UpstreamUrls } from './contract.js';
import type { CallFailure } from './failures.js';
import { EXHAUSTED_CODES, SOCKETS_PER_HOST, wholeResult, type Transport, type TransportOptions, type UpstreamResult } from './http.js';
import type { RequestScope } from './scope.js';

const POOL_OPTIONS: Pool.Options = {
  connections: SOCKETS_PER_HOST,
  // The attempt's own timer bounds it whole (queueing, connecting, headers and body); undici's
  // per-phase timers would only add a second clock that fires later.
  headersTimeout: 0,
  bodyTimeout: 0,
};

const HEADERS = { 'user-agent': 'order-graph', accept: 'application/json' };
const JSON_HEADERS = { ...HEADERS, 'content-type': 'application/json' };

/** Why an attempt was ended before its answer was read. */
type Stop = 'timeout' | 'cancelled' | 'oversized';

// undici's timeouts, should one fire first: the attempt took too long all the same.
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** An error undici gave, as the failure got would report for the same event (the retry rules read its code). */
function describeError(error: unknown): CallFailure {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return { kind: 'network', code: undefined };
  if (TIMEOUT_CODES.has(code)) return { kind: 'timeout' };
  if (EXHAUSTED_CODES.has(code)) return { kind: 'exhausted', code };
  // "other side closed": the upstream hung up before its answer was whole, which Node's own
  // client (and so got) calls ECONNRESET; socket errors with a code of their own come as they are.
  return { kind: 'network', code: code === 'UND_ERR_SOCKET' ? 'ECONNRESET' : code };
}

/**
 * One attempt on a pool, settled exactly once: by its whole answer, its error, its timer, the
 * client going away, or the answer passing `maxBodyBytes` (counted as it arrives, so an answer
 * without a length is cut off too). The abort reaches undici through an emitter as its
 * `signal` (cheaper than an AbortController per call); the attempt settles at once either way,
 * even while still queued for a connection.
 */
function attemptOn(pool: Pool, options: Dispatcher.RequestOptions, scope: RequestScope, timeoutMs: number, maxBodyBytes: number): Promise<UpstreamResult> {
  return new Promise((resolve) => {
    const signal = new EventEmitter();
    let settled = false;
    const settle = (result: UpstreamResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      untrack();
      resolve(result);
    };
    const stop = (kind: Stop) => {
      settle({ ok: false, failure: { kind } });
      signal.emit('abort');
    };
    const timer = setTimeout(stop, timeoutMs, 'timeout');
    const untrack = scope.cancelOnAbort(() => stop('cancelled'));
    pool.request({ ...options, signal }, (error, response) => {
      if (error) return settle({ ok: false, failure: describeError(error) });
      const { statusCode, headers, body } = response;
      body.on('error', (bodyError) => settle({ ok: false, failure: describeError(bodyError) }));
      if (Number(headers['content-length'] ?? 0) > maxBodyBytes) return stop('oversized');
      const chunks: Buffer[] = [];
      let bytes = 0;
      body.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > maxBodyBytes) return stop('oversized');
        chunks.push(chunk);
      });
      body.on('end', () => settle(wholeResult(statusCode, headers['retry-after'], (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes)).toString('utf8'))));
    });
  });
}

/**
 * One undici Pool per upstream host, made once per gateway: it holds connections (kept alive,
 * at most SOCKETS_PER_HOST), never data, so sharing it between requests is safe. No redirect is
 * followed: `request()` follows none.
 */
export function undiciTransport(urls: UpstreamUrls, { maxBodyBytes }: TransportOptions): Transport {
  const pools = Object.fromEntries(HOSTS.map((name) => [name, new Pool(new URL(urls[name]).origin, POOL_OPTIONS)])) as Record<HostName, Pool>;
  // The bases' paths alone: operationUrl over them gives each call's path and query, prefix included.
  const paths = Object.fromEntries(HOSTS.map((name) => [name, new URL(urls[name]).pathname])) as UpstreamUrls;
  return {
    attempt(operation, { params, json }, scope, headers, timeoutMs) {
      const { host, method } = CONTRACT[operation];
      const body = json === undefined ? undefined : JSON.stringify(json);
      const options: Dispatcher.RequestOptions = {
        path: operationUrl(paths, operation, params),
        method,
        headers: { ...(body === undefined ? HEADERS : JSON_HEADERS), ...headers },
        body,
      };
      return attemptOn(pools[host], options, scope, timeoutMs, maxBodyBytes);
    },
    close() {
      for (const pool of Object.values(pools)) pool.destroy().catch(() => undefined);
    },
  };
}
