// A real HTTP proxy in front of the simulator, as the upstream the gateway calls: each call
// passed on to the simulator (or answered by `answer`), its body given to `rewrite`, and the
// calls in flight counted by bearer, with the most there ever were at once.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { OperationName } from '../../src/upstream/contract.js';
import { resolveRoute, UPSTREAM_PATH_PREFIXES } from '../../src/simulator/routes.js';
import type { Simulator } from '../../src/simulator/server.js';
import { listen } from './harness.js';

export interface ProxyHooks {
  /** Holds the call until the promise settles (a gate the test opens). */
  hold?(operation: OperationName | null, request: IncomingMessage): Promise<void> | undefined;
  /** An answer of the proxy's own instead of the simulator's (200, JSON); undefined: ask the simulator. */
  answer?(operation: OperationName | null, request: IncomingMessage): string | undefined;
  /** What the gateway is sent instead of the answer's text (a 200's only). */
  rewrite?(operation: OperationName | null, request: IncomingMessage, text: string): string;
}

export async function startUpstreamProxy(simulator: Simulator, hooks: ProxyHooks = {}) {
  const simulatorOrigin = new URL(simulator.urls.AUTH_URL).origin;
  const inFlight = new Map<string, number>();
  const peaks = new Map<string, number>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const bearer = request.headers.authorization ?? '';
    const now = (inFlight.get(bearer) ?? 0) + 1;
    inFlight.set(bearer, now);
    peaks.set(bearer, Math.max(peaks.get(bearer) ?? 0, now));
    response.once('close', () => inFlight.set(bearer, inFlight.get(bearer)! - 1));
    void (async () => {
      const route = resolveRoute(request.method ?? 'GET', new URL(request.url ?? '/', 'http://upstream').pathname);
      const operation = route.kind === 'route' ? route.operation : null;
      await hooks.hold?.(operation, request);
      let text = hooks.answer?.(operation, request);
      if (text === undefined) {
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        const upstream = await fetch(`${simulatorOrigin}${request.url}`, {
          method: request.method,
          headers: Object.fromEntries(
            Object.entries(request.headers).filter(([name]) => ['authorization', 'content-type'].includes(name)),
          ) as Record<string, string>,
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        });
        text = await upstream.text();
        if (!upstream.ok) return void response.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(hooks.rewrite ? hooks.rewrite(operation, request, text) : text);
    })().catch((error: unknown) => response.destroy(error as Error));
  });
  const base = await listen(server);
  const urls = Object.fromEntries(
    Object.entries(UPSTREAM_PATH_PREFIXES).map(([host, prefix]) => [host, `${base}${prefix}`]),
  ) as Simulator['urls'];
  return {
    urls,
    /** Calls with this bearer in flight now. */
    inFlight: (token: string) => inFlight.get(`Bearer ${token}`) ?? 0,
    /** The most calls with this bearer (`Bearer …`) there ever were in flight at once. */
    peak: (token: string) => peaks.get(`Bearer ${token}`) ?? 0,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
