import { randomUUID } from 'node:crypto';

/** What the gateway knows about one HTTP request, from arrival to its log line. */
export interface RequestInfo {
  id: string;
  startedAt: number;
  /** Epoch ms after which no upstream call starts and running ones are cut off. */
  deadline: number;
  acceptLanguage: string | null;
  operationName: string | null;
  upstreamCalls: number;
  errorCodes: Set<string>;
}

// Keyed by the Request object, so nothing outlives it.
const infos = new WeakMap<Request, RequestInfo>();

// A caller-chosen id goes into logs and upstream headers: accept only a short, plain one.
const SAFE_ID = /^[\w.:-]{1,128}$/;
// Forwarded upstream as is: a plain language list, nothing that could smuggle a header.
const SAFE_LANGUAGE = /^[\w\s,;=.*-]{1,200}$/;

/** The request's info, made on first sight (id from X-Request-Id when it is plain). */
export function requestInfo(request: Request, deadlineMs: number): RequestInfo {
  let info = infos.get(request);
  if (!info) {
    const id = request.headers.get('x-request-id');
    const language = request.headers.get('accept-language');
    const startedAt = Date.now();
    info = {
      id: id && SAFE_ID.test(id) ? id : randomUUID(),
      startedAt,
      deadline: startedAt + deadlineMs,
      acceptLanguage: language && SAFE_LANGUAGE.test(language) ? language : null,
      operationName: null,
      upstreamCalls: 0,
      errorCodes: new Set(),
    };
    infos.set(request, info);
  }
  return info;
}
