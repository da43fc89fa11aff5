import { randomUUID } from 'node:crypto';
import type { RequestScope } from '../upstream/http.js';

/** What the gateway knows about one HTTP request, from arrival to its log line. */
export interface RequestInfo extends RequestScope {
  startedAt: number;
  operationName: string | null;
  errorCodes: Set<string>;
}

// Keyed by the Request object, so nothing outlives it.
const infos = new WeakMap<Request, RequestInfo>();

// A caller-chosen id goes into logs and upstream headers: accept only a short, plain one.
const SAFE_ID = /^[\w.:-]{1,128}$/;
// Forwarded upstream as is: a plain language list, nothing that could smuggle a header.
const SAFE_LANGUAGE = /^[\w\s,;=.*-]{1,200}$/;

/** Starts a request's info on arrival (id from X-Request-Id when it is plain); its deadline starts now. */
export function startRequestInfo(request: Request, deadlineMs: number): RequestInfo {
  const id = request.headers.get('x-request-id');
  const language = request.headers.get('accept-language');
  const startedAt = Date.now();
  const info: RequestInfo = {
    id: id && SAFE_ID.test(id) ? id : randomUUID(),
    startedAt,
    deadline: startedAt + deadlineMs,
    acceptLanguage: language && SAFE_LANGUAGE.test(language) ? language : null,
    signal: request.signal,
    operationName: null,
    upstreamCalls: 0,
    errorCodes: new Set(),
  };
  infos.set(request, info);
  return info;
}

/** The info started for this request on its arrival, if it was. */
export const findRequestInfo = (request: Request): RequestInfo | undefined => infos.get(request);

/** The info of a request that reached the GraphQL layer (it always went through the lifecycle's onRequest). */
export function requestInfo(request: Request): RequestInfo {
  const info = infos.get(request);
  if (!info) throw new Error('requestInfo: the request was not started (useRequestLifecycle must come first)');
  return info;
}
