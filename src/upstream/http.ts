import http from 'node:http';
import https from 'node:https';
import got, { HTTPError, RequestError, TimeoutError, type Got } from 'got';
import type { Logger } from 'pino';
import { CONTRACT, HOSTS, operationUrl, type HostName, type OperationName, type UpstreamUrls } from './contract.js';
import type { UpstreamFailure } from './failures.js';

/** One call's arguments: the contract's parameters by name, a JSON body, the bearer to send. */
export interface UpstreamCall {
  params?: Record<string, string>;
  json?: unknown;
  bearer?: string;
}

/** What a gateway request lends its upstream calls: its id, language and deadline, and a count. */
export interface RequestScope {
  readonly id: string;
  readonly acceptLanguage: string | null;
  /** Epoch ms; every call is cut off then, retries included. */
  readonly deadline: number;
  /** Aborted when the client goes away: calls not started are not made, running ones are aborted. */
  readonly signal?: AbortSignal;
  /** Upstream calls made for the request (retries not included). */
  upstreamCalls: number;
}

export type UpstreamResult = { ok: true; status: number; body: string } | { ok: false; failure: UpstreamFailure };

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
export function createUpstreamHttp({ urls, timeoutMs, retries, maxBodyBytes, logger }: UpstreamHttpOptions): UpstreamHttp {
  const agents: http.Agent[] = [];
  const clients = {} as Record<HostName, Got>;
  for (const name of HOSTS) {
    const agent = urls[name].startsWith('https:')
      ? { https: new https.Agent(AGENT_OPTIONS) }
      : { http: new http.Agent(AGENT_OPTIONS) };
    agents.push(agent.https ?? agent.http);
    clients[name] = got.extend({
      agent,
      timeout: { request: timeoutMs },
      retry: {
        limit: retries,
        methods: ['GET'],
        statusCodes: [502, 503, 504],
        errorCodes: RETRY_ERROR_CODES,
        // Retry only when a whole further attempt still fits before the request's deadline.
        calculateDelay: ({ computedValue, error }) => {
          if (computedValue === 0) return 0;
          const { deadline } = error.options.context as { deadline: number };
          const attempt = error.options.timeout.request ?? timeoutMs;
          return Date.now() + RETRY_DELAY_MS + attempt <= deadline ? RETRY_DELAY_MS : 0;
        },
      },
      decompress: false,
      followRedirect: false,
      responseType: 'text',
      headers: { 'user-agent': 'order-graph', accept: 'application/json' },
    });
  }

  return {
    async send(operation, { params, json, bearer }, scope) {
      const { host, method } = CONTRACT[operation];
      if (scope.signal?.aborted) return { ok: false, failure: { kind: 'cancelled' } };
      const startedAt = Date.now();
      const remaining = scope.deadline - startedAt;
      if (remaining <= 0) return { ok: false, failure: { kind: 'timeout' } };
      scope.upstreamCalls += 1;
      const headers: Record<string, string> = { 'x-request-id': scope.id };
      if (bearer) headers.authorization = `Bearer ${bearer}`;
      if (scope.acceptLanguage) headers['accept-language'] = scope.acceptLanguage;

      let result: UpstreamResult;
      let retryCount = 0;
      let oversized = false;
      // A prebuilt URL: got's searchParams handling costs more than the call needs.
      const pending = clients[host](operationUrl(urls, operation, params), {
        method,
        json,
        headers,
        // The per-call timeout, shortened to what is left of the request's deadline.
        timeout: { request: Math.min(timeoutMs, remaining) },
        context: { deadline: scope.deadline },
        signal: scope.signal,
      });
      let clientRequest: http.ClientRequest | undefined;
      pending.on('request', (request) => {
        clientRequest = request;
      });
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
      }
      if (!result.ok && result.failure.kind === 'exhausted') {
        logger?.error({ requestId: scope.id, operation, code: result.failure.code }, 'out of file handles: upstream call not made');
      }
      if (logger?.isLevelEnabled('debug')) {
        const status = result.ok ? result.status : result.failure.kind === 'status' ? result.failure.status : result.failure.kind;
        logger.debug(
          { requestId: scope.id, operation, status, ms: Date.now() - startedAt, retries: retryCount },
          'upstream call',
        );
      }
      return result;
    },
    close() {
      for (const agent of agents) agent.destroy();
    },
  };
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
