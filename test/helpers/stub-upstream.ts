// A stub upstream on port 0 that a test answers by hand, recording every request it gets (and
// its connections), with the five hosts' URLs under their path prefixes.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { HOSTS, type UpstreamUrls } from '../../src/upstream/contract.js';
import { listen } from './harness.js';

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
  const base = await listen(server);
  const urls = Object.fromEntries(HOSTS.map((name) => [name, `${base}/prefix/${name.toLowerCase().replace('_url', '')}/`])) as UpstreamUrls;
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

/** Sends a JSON body. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
