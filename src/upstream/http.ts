import http from 'node:http';
import https from 'node:https';
import got, { HTTPError, RequestError, TimeoutError, type Got } from 'got';
import { UPSTREAM_URL_NAMES, type UpstreamUrlName, type UpstreamUrls } from '../config.js';
import type { UpstreamFailure } from '../errors.js';

export interface UpstreamRequest {
  method: 'GET' | 'POST';
  /** The contract's path, starting with `/`; appended to the base's own path. */
  path: string;
  searchParams?: Record<string, string>;
  json?: unknown;
  bearer?: string;
}

export type UpstreamResult = { ok: true; status: number; body: string } | { ok: false; failure: UpstreamFailure };

export interface UpstreamHttp {
  send(base: UpstreamUrlName, request: UpstreamRequest): Promise<UpstreamResult>;
  /** Closes the keep-alive connections (at shutdown). */
  close(): void;
}

export interface UpstreamHttpOptions {
  urls: UpstreamUrls;
  timeoutMs: number;
  retries: number;
}

// Network errors worth one more try on an idempotent GET. A timeout is not among them:
// retrying it would double the worst case the caller already waited for.
const RETRY_ERROR_CODES = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ENOTFOUND', 'ENETUNREACH', 'EHOSTUNREACH', 'EAI_AGAIN'];
const RETRY_DELAY_MS = 50;

/** Joins a base that may carry a path prefix (`http://host/api/order`) with a contract path. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}

/**
 * One got instance and one keep-alive agent per upstream host, made once per gateway:
 * they hold connections, never data, so sharing them between requests is safe.
 */
export function createUpstreamHttp({ urls, timeoutMs, retries }: UpstreamHttpOptions): UpstreamHttp {
  const agents: http.Agent[] = [];
  const clients = {} as Record<UpstreamUrlName, Got>;
  for (const name of UPSTREAM_URL_NAMES) {
    const agent = urls[name].startsWith('https:')
      ? { https: new https.Agent({ keepAlive: true }) }
      : { http: new http.Agent({ keepAlive: true }) };
    agents.push(agent.https ?? agent.http);
    clients[name] = got.extend({
      agent,
      timeout: { request: timeoutMs },
      retry: {
        limit: retries,
        methods: ['GET'],
        statusCodes: [502, 503, 504],
        errorCodes: RETRY_ERROR_CODES,
        calculateDelay: ({ computedValue }) => (computedValue === 0 ? 0 : RETRY_DELAY_MS),
      },
      decompress: false,
      followRedirect: false,
      responseType: 'text',
      headers: { 'user-agent': 'order-graph', accept: 'application/json' },
    });
  }

  return {
    async send(base, { method, path, searchParams, json, bearer }) {
      try {
        const response = await clients[base](joinUrl(urls[base], path), {
          method,
          searchParams,
          json,
          headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
        });
        if (response.statusCode < 200 || response.statusCode > 299) {
          return { ok: false, failure: { kind: 'malformed', status: response.statusCode } };
        }
        return { ok: true, status: response.statusCode, body: response.body };
      } catch (error) {
        return { ok: false, failure: describeFailure(error) };
      }
    },
    close() {
      for (const agent of agents) agent.destroy();
    },
  };
}

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
  if (error instanceof RequestError) return { kind: 'network', code: error.code };
  return { kind: 'network' };
}
