// The headers every answer carries, and where each is set so that none is missed:
// - `X-Content-Type-Options: nosniff` by the Node server itself, on every response object it
//   makes (the gateway's answers, the per-address 429, Node's own 417 for an unknown Expect)
//   and in the raw answers to what Node could not parse (400, 408, 413, 431): a browser never
//   guesses a type the gateway did not send (a JSON error echoing input, read as HTML or
//   script). Set there rather than in a yoga hook, which not every answer passes through.
// - on every answer of the API (yoga's, GraphiQL's page and the probes included): the
//   request id, no shared cache, `Vary: Origin, Authorization`.
import { ServerResponse, STATUS_CODES, type IncomingMessage } from 'node:http';

const NOSNIFF = 'nosniff';

/** The server's response class: every answer starts with nosniff, whoever writes it later. */
export class NoSniffResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  constructor(request: Request) {
    super(request);
    this.setHeader('X-Content-Type-Options', NOSNIFF);
  }
}

/** An answer written straight to a socket (no response object exists yet): a status, no body, the connection closed. */
export const rawResponse = (status: number) =>
  `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\nX-Content-Type-Options: ${NOSNIFF}\r\n\r\n`;

/** Whether a request accepts a gzipped body (the pages the gateway serves keep both forms). */
export const acceptsGzip = (request: Request) => /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');

/** Adds names to a `Vary` header, each once, whatever the case or spacing of what is there. */
export function addVary(headers: Headers, ...names: string[]): void {
  const present = (headers.get('vary') ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (present.includes('*')) return;
  const lower = new Set(present.map((name) => name.toLowerCase()));
  const added = names.filter((name) => !lower.has(name.toLowerCase()));
  if (added.length > 0) headers.set('vary', [...present, ...added].join(', '));
}

/**
 * What every answer of the API carries:
 * - `X-Request-Id`;
 * - `Cache-Control: private, no-store` unless the answer set its own (GraphiQL's page, the
 *   same for everyone): answers depend on the caller's token, no shared cache may keep them;
 * - `Vary: Authorization` for the same reason, and `Vary: Origin` because the CORS headers are
 *   worked out from the request's Origin (reflected when allowed, `*` included; absent when
 *   not): a cache that kept one origin's answer must not hand it to another (Fetch standard,
 *   "CORS protocol and HTTP caches"). Preflights included;
 * - `Connection: close` on a 413 (the rest of the body is never read: the connection cannot
 *   carry another request) and while draining (a keep-alive client moves on).
 */
export function setResponseHeaders(response: Response, { requestId, draining }: { requestId: string; draining: boolean }): void {
  const { headers } = response;
  headers.set('x-request-id', requestId);
  if (response.status === 413 || draining) headers.set('connection', 'close');
  if (!headers.has('cache-control')) headers.set('cache-control', 'private, no-store');
  addVary(headers, 'Origin', 'Authorization');
}
