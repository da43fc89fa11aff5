// The upstream transport on undici: one keep-alive Pool per upstream host, one dispatch per attempt.
import type { IncomingHttpHeaders } from 'node:http';
import { Pool, type Dispatcher } from 'undici';
import { CONTRACT, HOSTS, OPERATION_NAMES, operationSpec, pathWriter, type HostName, type OperationName, type UpstreamUrls } from './contract.js';
import type { CallFailure } from './failures.js';
import { bytesFailure, EXHAUSTED_CODES, JSON_BODY, SOCKETS_PER_HOST, wholeResult, type Transport, type TransportOptions, type UpstreamResult } from './http.js';
import type { Cancellable, CallScope } from './scope.js';

const POOL_OPTIONS: Pool.Options = {
  connections: SOCKETS_PER_HOST,
  // The attempt's own timer bounds it whole (queueing, connecting, headers and body); undici's
  // per-phase timers would only add a second clock that fires later.
  headersTimeout: 0,
  bodyTimeout: 0,
};

/** The parameters of a call that has none (its writer then writes its template as it is). */
const NO_PARAMS: Readonly<Record<string, string>> = {};

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
 * (counted as it arrives, so a body without a length is cut off too). It is its own dispatch
 * handler, taking the response's chunks straight from undici's parser: `Pool.request` would put
 * each response through a readable stream and an abort signal, for a body read whole anyway.
 * One object per attempt, its handlers on its prototype, rather than a closure for each. A
 * stopped attempt settles at once, even while still queued for a connection; undici drops it
 * when it would start.
 */
class Attempt implements Dispatcher.DispatchHandler, Cancellable {
  #settled = false;
  #controller: Dispatcher.DispatchController | undefined = undefined;
  #status = 0;
  #retryAfter: string | string[] | undefined = undefined;
  /** The body's first chunk, and the rest when there are more (a small body comes in one). */
  #first: Buffer | undefined = undefined;
  #more: Buffer[] | undefined = undefined;
  #bytes = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly scope: CallScope,
    private readonly maxBodyBytes: number,
    timeoutMs: number,
    private readonly resolve: (result: UpstreamResult) => void,
  ) {
    this.#timer = setTimeout(timedOut, timeoutMs, this);
    scope.track(this);
  }

  #settle(result: UpstreamResult): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.scope.untrack(this);
    this.resolve(result);
  }

  stop(kind: Stop): void {
    this.#settle({ ok: false, failure: kind === 'bytes' ? bytesFailure(this.scope.bytes) : { kind } });
    this.#controller?.abort(new Error(kind));
  }

  cancel(): void {
    this.stop('cancelled');
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#settled) controller.abort(new Error('stopped'));
    else this.#controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.#status = statusCode;
    this.#retryAfter = headers['retry-after'];
    if (Number(headers['content-length'] ?? 0) > this.maxBodyBytes) this.stop('oversized');
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#bytes += chunk.length;
    if (this.#bytes > this.maxBodyBytes) return this.stop('oversized');
    if (!this.scope.bytes.take(chunk.length)) return this.stop('bytes');
    if (this.#first === undefined) this.#first = chunk;
    else (this.#more ??= [this.#first]).push(chunk);
  }

  onResponseEnd(): void {
    const body = this.#more ? Buffer.concat(this.#more, this.#bytes).toString('utf8') : (this.#first?.toString('utf8') ?? '');
    this.#settle(wholeResult(this.#status, this.#retryAfter, body));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#settle({ ok: false, failure: describeError(error) });
  }
}

const timedOut = (attempt: Attempt) => attempt.stop('timeout');

/**
 * One undici Pool per upstream host, made once per gateway: it holds connections (kept alive,
 * at most SOCKETS_PER_HOST), never data, so sharing it between requests is safe. No redirect is
 * followed: a dispatch follows none.
 */
export function undiciTransport(urls: UpstreamUrls, { maxBodyBytes }: TransportOptions): Transport {
  const pools = Object.fromEntries(HOSTS.map((name) => [name, new Pool(new URL(urls[name]).origin, POOL_OPTIONS)])) as Record<HostName, Pool>;
  // Each operation's path and query written after its host's base path (as operationUrl joins them), worked out once.
  const paths = Object.fromEntries(
    OPERATION_NAMES.map((operation) => {
      const { host, path, params } = operationSpec(operation);
      return [operation, pathWriter({ path: new URL(urls[host]).pathname.replace(/\/+$/, '') + path, params })];
    }),
  ) as Record<OperationName, ReturnType<typeof pathWriter>>;
  return {
    attempt(operation, { params = NO_PARAMS, json }, scope, headers, timeoutMs) {
      const { host, method } = CONTRACT[operation];
      const body = json === undefined ? undefined : JSON.stringify(json);
      const options: Dispatcher.DispatchOptions = {
        path: paths[operation](params),
        method,
        // undici only reads the list (its type asks for a mutable one): the request's own, shared by its calls.
        headers: (body === undefined ? headers : [...headers, ...JSON_BODY]) as string[],
        body,
      };
      return new Promise((resolve) => pools[host].dispatch(options, new Attempt(scope, maxBodyBytes, timeoutMs, resolve)));
    },
    close() {
      for (const pool of Object.values(pools)) pool.destroy().catch(() => undefined);
    },
  };
}
