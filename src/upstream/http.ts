import http from 'node:http';
import https from 'node:https';
import got, { HTTPError, RequestError, TimeoutError, type Got } from 'got';
import type { Logger } from 'pino';
import { CONTRACT, HOSTS, operationUrl, type HostName, type OperationName, type UpstreamUrls } from './contract.js';
import type { CallBudget } from './budget.js';
import type { UpstreamFailure } from './failures.js';

/** One call's arguments: the contract's parameters by name, a JSON body, the bearer to send. */
export interface UpstreamCall {
  params?: Record<string, string>;
  json?: unknown;
  bearer?: string;
}

/** What a gateway request lends its upstream calls: who asks, in what language, by when, and how many. */
export interface RequestScope {
  readonly id: string;
  readonly acceptLanguage: string | null;
  /** The caller's address, forwarded upstream as X-Forwarded-For. */
  readonly clientAddress: string | null;
  /** Epoch ms; every call is cut off then, retries included. */
  readonly deadline: number;
  /** Aborted when the client goes away: calls not started are not made, running ones are aborted. */
  readonly signal?: AbortSignal;
  /** Calls, concurrency and retries this request may still have. */
  readonly budget: CallBudget;
}

export type UpstreamResult = { ok: true; status: number; body: string } | { ok: false; failure: UpstreamFailure };

/** How a call ended, for whoever watches calls: the status (or the failure's kind), its retries, its time. */
export interface CallOutcome {
  status: number | UpstreamFailure['kind'];
  retries: number;
  ms: number;
}

/** One watched call: headers to send with it (a traceparent), fields for its log line, and its end. */
export interface CallWatch {
  headers?: Record<string, string>;
  /** Asked for only when the call is logged. */
  logFields?(): Record<string, string>;
  end(outcome: CallOutcome): void;
}

/** Watches upstream calls as they happen (traces, metrics); the observability layer provides it. */
export interface CallObserver {
  start(operation: OperationName): CallWatch;
  /** A call that was not made: the request's budget was spent, or a parameter could not be sent. */
  refused?(operation: OperationName, reason: 'budget' | 'unsendable'): void;
}

/** One observer that tells each of several; none when there is nothing to watch (no cost at all). */
export function combineObservers(observers: readonly CallObserver[]): CallObserver | undefined {
  if (observers.length <= 1) return observers[0];
  return {
    start(operation) {
      const watches = observers.map((observer) => observer.start(operation));
      return {
        headers: Object.assign({}, ...watches.map((watch) => watch.headers)),
        logFields: () => Object.assign({}, ...watches.map((watch) => watch.logFields?.())),
        end: (outcome) => watches.forEach((watch) => watch.end(outcome)),
      };
    },
    refused: (operation, reason) => observers.forEach((observer) => observer.refused?.(operation, reason)),
  };
}

export interface UpstreamHttp {
  send(operation: OperationName, call: UpstreamCall, scope: RequestScope): Promise<UpstreamResult>;
  /** Closes the keep-alive connections (at shutdown). */
  close(): void;
}

export interface UpstreamHttpOptions {
  urls: UpstreamUrls;
  timeoutMs: number;
  retries: number;
  /** Larger answers are cut off: no upstream body is worth holding a request's memory hostage. */
  maxBodyBytes: number;
  logger?: Logger;
  observer?: CallObserver;
}

// Network errors worth one more try on an idempotent GET. A timeout is not among them:
// retrying it would double the worst case the caller already waited for.
const RETRY_ERROR_CODES = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ENOTFOUND', 'ENETUNREACH', 'EHOSTUNREACH', 'EAI_AGAIN'];
const RETRY_DELAY_MS = 50;
// A burst of requests queues for a socket instead of opening thousands against one host.
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 256 };
/** The most sockets the gateway opens to the upstream: file handles the process must keep for them. */
export const MAX_UPSTREAM_SOCKETS = HOSTS.length * AGENT_OPTIONS.maxSockets;

/**
 * One got instance and one keep-alive agent per upstream host, made once per gateway:
 * they hold connections, never data, so sharing them between requests is safe.
 */
export function createUpstreamHttp({ urls, timeoutMs, retries, maxBodyBytes, logger, observer }: UpstreamHttpOptions): UpstreamHttp {
  const agents: http.Agent[] = [];
  const clients = {} as Record<HostName, Got>;
  for (const name of HOSTS) {
    const agent = urls[name].startsWith('https:')
      ? { https: new https.Agent(AGENT_OPTIONS) }
      : { http: new http.Agent(AGENT_OPTIONS) };
    agents.push(agent.https ?? agent.http);
    const transport = urls[name].startsWith('https:') ? https : http;
    clients[name] = got.extend({
      agent,
      // got hands its request function some forty options, nearly all of them TLS settings
      // left undefined, which Node's client and agent then copy on every call; only these
      // matter to a plain keep-alive HTTP(S) call.
      request: (url: URL, options: http.RequestOptions, callback?: (response: http.IncomingMessage) => void) =>
        transport.request(url, { method: options.method, headers: options.headers, agent: options.agent, setHost: options.setHost }, callback),
      timeout: { request: timeoutMs },
      retry: {
        limit: retries,
        methods: ['GET'],
        statusCodes: [502, 503, 504],
        errorCodes: RETRY_ERROR_CODES,
        // Retry only when a whole further attempt still fits before the request's deadline,
        // and the request's budget still has a retry and a call for it.
        calculateDelay: ({ computedValue, error }) => {
          if (computedValue === 0) return 0;
          const { deadline, budget } = error.options.context as { deadline: number; budget: CallBudget };
          const attempt = error.options.timeout.request ?? timeoutMs;
          return Date.now() + RETRY_DELAY_MS + attempt <= deadline && budget.takeRetry() ? RETRY_DELAY_MS : 0;
        },
      },
      decompress: false,
      followRedirect: false,
      responseType: 'text',
      headers: { 'user-agent': 'order-graph', accept: 'application/json' },
    });
  }

  /** One call (with its retries), once the budget gave it a turn. */
  async function attempt(operation: OperationName, { params, json, bearer }: UpstreamCall, scope: RequestScope): Promise<UpstreamResult> {
    const { host, method } = CONTRACT[operation];
    if (scope.signal?.aborted) return { ok: false, failure: { kind: 'cancelled' } };
    const startedAt = Date.now();
    // What is left of the deadline: the time spent waiting for a turn is gone.
    const remaining = scope.deadline - startedAt;
    if (remaining <= 0) return { ok: false, failure: { kind: 'timeout' } };
    const headers: Record<string, string> = { 'x-request-id': scope.id };
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (scope.acceptLanguage) headers['accept-language'] = scope.acceptLanguage;
    if (scope.clientAddress) headers['x-forwarded-for'] = scope.clientAddress;
    const watch = observer?.start(operation);
    if (watch?.headers) Object.assign(headers, watch.headers);

    let result: UpstreamResult;
    let retryCount = 0;
    let oversized = false;
    // A URL built here: got's searchParams handling, and its character-by-character check of a
    // URL string, cost more than the call needs.
    const pending = clients[host](new URL(operationUrl(urls, operation, params)), {
      method,
      json,
      headers,
      // The per-call timeout, shortened to what is left of the request's deadline.
      timeout: { request: Math.min(timeoutMs, remaining) },
      context: { deadline: scope.deadline, budget: scope.budget },
    });
    let clientRequest: http.ClientRequest | undefined;
    pending.on('request', (request) => {
      clientRequest = request;
    });
    const untrack = cancelOnAbort(scope, () => clientRequest?.destroy(Object.assign(new Error('the client went away'), { code: 'ERR_CANCELLED' })));
    pending.on('downloadProgress', ({ transferred }) => {
      if (transferred > maxBodyBytes && !oversized) {
        oversized = true;
        clientRequest?.destroy(Object.assign(new Error('upstream answer too large'), { code: 'ERR_ANSWER_TOO_LARGE' }));
      }
    });
    try {
      const response = await pending;
      retryCount = response.retryCount;
      result =
        response.statusCode >= 200 && response.statusCode <= 299
          ? { ok: true, status: response.statusCode, body: response.body }
          : { ok: false, failure: { kind: 'malformed', status: response.statusCode } };
    } catch (error) {
      if (error instanceof RequestError) retryCount = error.request?.retryCount ?? 0;
      result = { ok: false, failure: oversized ? { kind: 'oversized' } : scope.signal?.aborted ? { kind: 'cancelled' } : describeFailure(error) };
    } finally {
      untrack();
    }
    const status = result.ok ? result.status : result.failure.kind === 'status' ? result.failure.status : result.failure.kind;
    const ms = Date.now() - startedAt;
    watch?.end({ status, retries: retryCount, ms });
    if (!result.ok && result.failure.kind === 'exhausted') {
      logger?.error({ requestId: scope.id, ...watch?.logFields?.(), operation, code: result.failure.code }, 'out of file handles: upstream call not made');
    }
    if (logger?.isLevelEnabled('debug')) {
      logger.debug({ requestId: scope.id, ...watch?.logFields?.(), operation, status, ms, retries: retryCount }, 'upstream call');
    }
    return result;
  }

  return {
    send(operation, call, scope) {
      if (scope.signal?.aborted) return Promise.resolve({ ok: false, failure: { kind: 'cancelled' } });
      if (call.params && !sendable(operation, call.params)) {
        observer?.refused?.(operation, 'unsendable');
        return Promise.resolve({ ok: false, failure: { kind: 'unsendable' } });
      }
      if (!scope.budget.take()) {
        observer?.refused?.(operation, 'budget');
        return Promise.resolve({ ok: false, failure: { kind: 'budget', limit: scope.budget.limits.calls } });
      }
      return scope.budget.run(() => attempt(operation, call, scope));
    },
    close() {
      for (const agent of agents) agent.destroy();
    },
  };
}

// The calls running for each client request, by its signal, cancelled together when the
// client goes away: one abort listener per request (got's own `signal` option would add one
// per call, and costs about a tenth of the gateway's CPU under load). Keyed by the signal,
// not the scope: a subscription renews its scope for every event, and a listener per scope
// on the one long-lived signal would pile up for as long as the stream lives.
const running = new WeakMap<AbortSignal, Set<() => void>>();

function cancelOnAbort(scope: RequestScope, cancel: () => void): () => void {
  const { signal } = scope;
  if (!signal) return () => undefined;
  let cancels = running.get(signal);
  if (!cancels) {
    const set = new Set<() => void>();
    signal.addEventListener('abort', () => set.forEach((cancelOne) => cancelOne()), { once: true });
    running.set(signal, (cancels = set));
  }
  cancels.add(cancel);
  return () => cancels.delete(cancel);
}

// A value no call may carry: an unpaired surrogate (it cannot be encoded; URLSearchParams
// would send U+FFFD instead) or a control character.
const UNSENDABLE_VALUE = /[\u0000-\u001f\u007f]/;

/** Whether every parameter can go upstream as it is: `.` and `..` would move a path to another resource. */
function sendable(operation: OperationName, params: Readonly<Record<string, string>>): boolean {
  const { path } = CONTRACT[operation];
  return Object.entries(params).every(
    ([name, value]) => value.isWellFormed() && !UNSENDABLE_VALUE.test(value) && !(path.includes(`{${name}}`) && (value === '.' || value === '..' || value === '')),
  );
}

// The gateway's own process is out of file handles: not the upstream's failure.
const EXHAUSTED = new Set(['EMFILE', 'ENFILE']);

function describeFailure(error: unknown): UpstreamFailure {
  if (error instanceof HTTPError) {
    const retryAfter = error.response.headers['retry-after'];
    return {
      kind: 'status',
      status: error.response.statusCode,
      body: typeof error.response.body === 'string' ? error.response.body : '',
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
    };
  }
  if (error instanceof TimeoutError) return { kind: 'timeout' };
  if (error instanceof RequestError && EXHAUSTED.has(error.code)) return { kind: 'exhausted', code: error.code };
  return { kind: 'network', code: error instanceof RequestError ? error.code : undefined };
}
