// A per-test upstream whose answers a test writes: on a real HTTP server (startStubUpstream),
// or in process (createStubUpstream), reached through the in-process transport.
import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { SimulatorResponse, SimulatorReply, SimulatorRequest } from '../../src/simulator/server.js';
import { HOSTS, type UpstreamUrls } from '../../src/upstream/contract.js';
import { listen } from './harness.js';
import type { InProcessUpstream } from './in-process-transport.js';

export interface StubRequest {
  method: string;
  /** The full path as received, prefix included. */
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

export type StubHandler = (request: StubRequest, response: ServerResponse) => void;

/** The part of Node's response a stub's handler answers on, in process as on a socket. */
export interface StubResponse {
  /** True once the caller went away (or the handler dropped the connection). */
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  writeHead(status: number, headers?: OutgoingHttpHeaders): unknown;
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
  /** Drops the connection: the gateway sees it reset. */
  destroy(): unknown;
  /** 'close': the answer was sent, or the caller went away first. */
  on(event: 'close', listener: () => void): unknown;
}

/** A stub's handler in process: it answers on a StubResponse. */
export type InProcessStubHandler = (request: StubRequest, response: StubResponse) => void;

/** A per-test upstream: every host under its own path prefix, answers from `handler`. */
export async function startStubUpstream(handler: StubHandler) {
  const requests: StubRequest[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const request: StubRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        authorization: req.headers.authorization,
        headers: req.headers,
        body,
      };
      requests.push(request);
      handler(request, res);
    });
  });
  // Connections as the upstream sees them: how many were opened, and which are still open.
  let opened = 0;
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    opened += 1;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  const urls = urlsAt(await listen(server));
  return {
    urls,
    requests,
    connections: () => ({ opened, open: open.size }),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The response of a stub in process: what the handler writes becomes the reply once it ends. */
class InProcessResponse extends EventEmitter implements StubResponse {
  destroyed = false;
  writableEnded = false;
  #status = 200;
  #headers: Record<string, string> = {};
  #body = '';
  constructor(private readonly reply: (reply: SimulatorReply) => void) {
    super();
  }
  writeHead(status: number, headers: OutgoingHttpHeaders = {}) {
    this.#status = status;
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) this.#headers[name.toLowerCase()] = String(value);
    return this;
  }
  write(chunk: string) {
    this.#body += chunk;
    return true;
  }
  end(chunk = '') {
    if (this.writableEnded || this.destroyed) return this;
    this.#body += chunk;
    this.writableEnded = true;
    const answer: SimulatorResponse = { status: this.#status, headers: this.#headers, body: this.#body };
    this.reply(answer);
    this.emit('close');
    return this;
  }
  destroy() {
    // Once the answer is sent there is nothing left to drop: its 'close' came with it.
    if (this.destroyed || this.writableEnded) return this;
    this.destroyed = true;
    this.reply('reset');
    this.emit('close');
    return this;
  }
}

/** Where an in-process stub's URLs point: a name that never resolves. */
const IN_PROCESS_ORIGIN = 'http://stub.invalid';

/** Every host under its own path prefix of `base`, as a real upstream's base URLs may have. */
const urlsAt = (base: string) =>
  Object.fromEntries(HOSTS.map((name) => [name, `${base}/prefix/${name.toLowerCase().replace('_url', '')}/`])) as UpstreamUrls;

/**
 * A per-test upstream in this process, answers from `handler` as startStubUpstream's, with no
 * socket: a gateway reaches it through the in-process transport (`inProcessGateway({ upstream })`).
 */
export function createStubUpstream(handler: InProcessStubHandler): InProcessUpstream & { requests: StubRequest[]; close(): Promise<void> } {
  const requests: StubRequest[] = [];
  return {
    urls: urlsAt(IN_PROCESS_ORIGIN),
    requests,
    handle: ({ method, target, headers, body, signal }: SimulatorRequest) =>
      new Promise<SimulatorReply>((resolve) => {
        const url = new URL(target, IN_PROCESS_ORIGIN);
        const request: StubRequest = {
          method,
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          authorization: headers.authorization,
          headers,
          body: body.text,
        };
        requests.push(request);
        const response = new InProcessResponse(resolve);
        signal?.addEventListener('abort', () => response.destroy(), { once: true });
        handler(request, response);
      }),
    close: async () => undefined,
  };
}

/** Sends a JSON body. */
export function json(res: StubResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
