// The upstream client: what every call goes through (cancellation, the deadline, the budget,
// unsendable parameters, retries, observers, log lines) around its transport's attempts.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { CONTRACT, HOSTS, OPERATION_NAMES, pathParamNames, type OperationName, type UpstreamUrls } from './contract.js';
import type { ByteBudget } from './bytes.js';
import type { CallFailure } from './failures.js';
import type { CallScope, CallWatch } from './scope.js';

/** One call's arguments: the contract's parameters by name, a JSON body, the bearer to send. */
export interface UpstreamCall {
  params?: Record<string, string>;
  json?: unknown;
  bearer?: string;
}

export type UpstreamResult = { ok: true; status: number; body: string } | { ok: false; failure: CallFailure };

/**
 * A response read whole, as a call's result: 2xx is the contract's, 3xx is not followed (not
 * the contract), the rest is a status failure (with its Retry-After, the first when repeated).
 */
export function wholeResult(status: number, retryAfter: string | string[] | undefined, body: string): UpstreamResult {
  if (status >= 200 && status <= 299) return { ok: true, status, body };
  if (status < 400) return { ok: false, failure: { kind: 'malformed', status } };
  return { ok: false, failure: { kind: 'status', status, body, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter } };
}

/** A call refused or cut off because its request's byte budget ended (bytes.ts). */
export const bytesFailure = (budget: ByteBudget): CallFailure => ({ kind: 'bytes', budget });

export interface UpstreamHttp {
  send(operation: OperationName, call: UpstreamCall, scope: CallScope): Promise<UpstreamResult>;
  /** Closes the keep-alive connections (at shutdown). */
  close(): void;
}

// A burst of requests queues for a connection instead of opening thousands against one host.
/** The most connections a transport keeps open to one upstream host. */
export const SOCKETS_PER_HOST = 256;
/** The most sockets the gateway opens to the upstream: file handles the process must keep for them. */
export const MAX_UPSTREAM_SOCKETS = HOSTS.length * SOCKETS_PER_HOST;

/** Error codes of the gateway's own process out of file handles: an `exhausted` failure, not the upstream's. */
export const EXHAUSTED_CODES: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE']);

/** What a transport is made with besides the hosts' URLs. */
export interface TransportOptions {
  /** Larger bodies are cut off: no upstream body is worth holding a request's memory hostage. */
  maxBodyBytes: number;
}

/**
 * Makes one attempt of a call, over connections it keeps per host: no retry, no redirect,
 * cut off after `timeoutMs` or when the scope's client goes away. Each chunk of the answer is
 * taken from the scope's byte budget before it is kept (`scope.bytes.take`): the attempt is cut
 * off (`bytesFailure`) when the budget refuses it.
 */
export interface Transport {
  attempt(operation: OperationName, call: UpstreamCall, scope: CallScope, headers: HeaderList, timeoutMs: number): Promise<UpstreamResult>;
  close(): void;
}

/** Makes a transport over the hosts' URLs, once per gateway. */
export type TransportFactory = (urls: UpstreamUrls, options: TransportOptions) => Transport;

export interface UpstreamHttpOptions extends TransportOptions {
  urls: UpstreamUrls;
  /** Per attempt, before the request's deadline shortens it. */
  timeoutMs: number;
  /** Of an idempotent GET, while a whole attempt still fits and the budget has one. */
  retries: number;
  /** The transport over the URLs: undici's (undici-transport.ts), got's (got-transport.ts), or a test's in-process one. */
  transport: TransportFactory;
  logger?: Logger;
}

// A value no call may carry: an unpaired surrogate (it cannot be encoded; URLSearchParams
// would send U+FFFD instead) or a control character.
const UNSENDABLE_VALUE = /[\u0000-\u001f\u007f]/;

/** Each operation's path parameters (contract.ts pathParamNames), worked out once. */
const PATH_PARAMS: ReadonlyMap<OperationName, ReadonlySet<string>> = new Map(OPERATION_NAMES.map((operation) => [operation, new Set(pathParamNames(operation))]));

/** Whether every parameter can go upstream as it is: `.` and `..` would move a path to another resource. */
function sendable(operation: OperationName, params: Readonly<Record<string, string>>): boolean {
  const inPath = PATH_PARAMS.get(operation)!;
  for (const name in params) {
    if (!Object.hasOwn(params, name)) continue;
    const value = params[name]!;
    if (!value.isWellFormed() || UNSENDABLE_VALUE.test(value)) return false;
    if (inPath.has(name) && (value === '.' || value === '..' || value === '')) return false;
  }
  return true;
}

/**
 * A call's headers as undici takes them, each name followed by its value: sent as they are,
 * without an object to build per call and for undici to list the keys of again.
 */
export type HeaderList = readonly string[];

/** The headers as an object, for a transport that takes them so (got's). */
export function headerRecord(headers: HeaderList): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i < headers.length; i += 2) record[headers[i]!] = headers[i + 1]!;
  return record;
}

/** What every call asks for, whichever transport makes it. */
const EVERY_CALL = ['user-agent', 'order-graph', 'accept', 'application/json'] as const;
/** What a call with a JSON body adds. */
export const JSON_BODY: HeaderList = ['content-type', 'application/json'];

/**
 * The headers of a request's calls with one bearer: the request's id, the bearer, the caller's
 * language and address. Made once per request (and bearer) and kept on its scope: all its
 * calls send the same.
 */
function requestHeaders(scope: CallScope, bearer: string | undefined): HeaderList {
  const kept = scope.callHeaders;
  if (kept && kept.bearer === bearer) return kept.headers;
  const headers: string[] = [...EVERY_CALL, 'x-request-id', scope.id];
  if (bearer) headers.push('authorization', `Bearer ${bearer}`);
  if (scope.acceptLanguage) headers.push('accept-language', scope.acceptLanguage);
  if (scope.clientAddress) headers.push('x-forwarded-for', scope.clientAddress);
  scope.callHeaders = { bearer, headers };
  return headers;
}

/** The headers of one call: its request's (requestHeaders), and the observers' (a traceparent) when they add some. */
function callHeaders(scope: CallScope, bearer: string | undefined, watch: CallWatch | undefined): HeaderList {
  const headers = requestHeaders(scope, bearer);
  if (!watch?.headers) return headers;
  const watched = [...headers];
  for (const [name, value] of Object.entries(watch.headers)) watched.push(name, value);
  return watched;
}

// Network errors worth one more try on an idempotent GET. A timeout is not among them:
// retrying it would double the worst case the caller already waited for.
const RETRY_ERROR_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ENOTFOUND', 'ENETUNREACH', 'EHOSTUNREACH', 'EAI_AGAIN']);
const RETRY_STATUSES = new Set([502, 503, 504]);
const RETRY_DELAY_MS = 50;

/** Retry-After in ms (seconds or an HTTP date), when given. */
const retryAfterMs = (value: string | undefined) => (value === undefined ? undefined : Number.isNaN(Number(value)) ? Date.parse(value) - Date.now() : Number(value) * 1000);

/**
 * Whether a failed attempt of a GET is worth another: a listed network error, or 502, 503,
 * 504, unless the upstream asked for a longer wait than an attempt may take.
 */
function worthRetrying(failure: CallFailure, attemptMs: number): boolean {
  if (failure.kind === 'network') return failure.code !== undefined && RETRY_ERROR_CODES.has(failure.code);
  if (failure.kind !== 'status' || !RETRY_STATUSES.has(failure.status)) return false;
  return !((retryAfterMs(failure.retryAfter) ?? 0) > attemptMs);
}

const statusOf = (result: UpstreamResult) => (result.ok ? result.status : result.failure.kind === 'status' ? result.failure.status : result.failure.kind);

/** The upstream client: calls within each request's scope, over a transport made once per gateway. */
export function createUpstreamHttp({ urls, transport: makeTransport, logger, timeoutMs, retries: maxRetries, ...options }: UpstreamHttpOptions): UpstreamHttp {
  const transport = makeTransport(urls, options);

  /**
   * One call, once the budget gave it a turn: its attempts, the first and for a GET that failed
   * in a way worth another, more, while a whole further attempt still fits before the request's
   * deadline and its budget still has a retry and a call for it. One async function for them
   * all: on every call's path, each one more costs a promise and its await.
   */
  async function send(operation: OperationName, call: UpstreamCall, scope: CallScope): Promise<UpstreamResult> {
    if (scope.signal?.aborted) return { ok: false, failure: { kind: 'cancelled' } };
    // The request ended while this call waited its turn: its bytes are spent, or were given up.
    if (scope.bytes.ended) return { ok: false, failure: bytesFailure(scope.bytes) };
    const startedAt = Date.now();
    // What is left of the deadline: the time spent waiting for a turn is gone.
    const remaining = scope.deadline - startedAt;
    if (remaining <= 0) return { ok: false, failure: { kind: 'timeout' } };
    const watch = scope.observer?.start(operation);
    const headers = callHeaders(scope, call.bearer, watch);
    const attemptMs = Math.min(timeoutMs, remaining);
    let result = await transport.attempt(operation, call, scope, headers, attemptMs);
    let retries = 0;
    while (!result.ok && retries < maxRetries && CONTRACT[operation].method === 'GET' && worthRetrying(result.failure, attemptMs)) {
      if (Date.now() + RETRY_DELAY_MS + attemptMs > scope.deadline || !scope.budget.takeRetry()) break;
      retries += 1;
      await sleep(RETRY_DELAY_MS);
      result = scope.signal?.aborted ? { ok: false, failure: { kind: 'cancelled' } } : await transport.attempt(operation, call, scope, headers, attemptMs);
    }
    const status = statusOf(result);
    const ms = Date.now() - startedAt;
    watch?.end({ status, retries, ms });
    if (!result.ok && result.failure.kind === 'exhausted') {
      logger?.error({ requestId: scope.id, ...watch?.logFields?.(), operation, code: result.failure.code }, 'out of file handles: upstream call not made');
    }
    if (logger?.isLevelEnabled('debug')) logger.debug({ requestId: scope.id, ...watch?.logFields?.(), operation, status, ms, retries }, 'upstream call');
    return result;
  }

  return {
    send(operation, call, scope) {
      if (scope.signal?.aborted) return Promise.resolve({ ok: false, failure: { kind: 'cancelled' } });
      if (scope.bytes.ended) return Promise.resolve({ ok: false, failure: bytesFailure(scope.bytes) });
      if (call.params && !sendable(operation, call.params)) {
        scope.observer?.refused?.(operation, 'unsendable');
        return Promise.resolve({ ok: false, failure: { kind: 'unsendable' } });
      }
      if (!scope.budget.take()) {
        scope.observer?.refused?.(operation, 'budget');
        return Promise.resolve({ ok: false, failure: { kind: 'budget', limit: scope.budget.limits.calls } });
      }
      return scope.budget.run(() => send(operation, call, scope));
    },
    close: () => transport.close(),
  };
}
