// A proxy in front of the simulator, as the upstream the gateway calls: each call passed on to
// the simulator (or answered by `answer`), its body given to `rewrite`, and the calls in flight
// counted by bearer, with the most there ever were at once. A real HTTP proxy in front of the
// simulator's server (startUpstreamProxy), or the same in process (createUpstreamProxy).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { OperationName } from '../../src/upstream/contract.js';
import { resolveRoute, UPSTREAM_PATH_PREFIXES } from '../../src/simulator/routes.js';
import type { InProcessSimulator, Simulator, SimulatorReply, SimulatorRequest } from '../../src/simulator/server.js';
import { listen } from './harness.js';
import type { InProcessUpstream } from './in-process-transport.js';

/** What the hooks see of a call: its headers. */
export interface ProxiedRequest {
  headers: IncomingHttpHeaders;
}

export interface ProxyHooks {
  /** Holds the call until the promise settles (a gate the test opens). */
  hold?(operation: OperationName | null, request: ProxiedRequest): Promise<void> | undefined;
  /** An answer of the proxy's own instead of the simulator's (200, JSON); undefined: ask the simulator. */
  answer?(operation: OperationName | null, request: ProxiedRequest): string | undefined;
  /** What the gateway is sent instead of the answer's text (a 200's only). */
  rewrite?(operation: OperationName | null, request: ProxiedRequest, text: string): string;
}

/** Calls in flight by bearer, and the most there ever were at once; `enter` counts one in and returns its way out. */
function inFlightCounts() {
  const inFlight = new Map<string, number>();
  const peaks = new Map<string, number>();
  return {
    enter(bearer: string) {
      const now = (inFlight.get(bearer) ?? 0) + 1;
      inFlight.set(bearer, now);
      peaks.set(bearer, Math.max(peaks.get(bearer) ?? 0, now));
      let left = false;
      return () => {
        if (!left) inFlight.set(bearer, inFlight.get(bearer)! - 1);
        left = true;
      };
    },
    /** Calls with this bearer in flight now. */
    inFlight: (token: string) => inFlight.get(`Bearer ${token}`) ?? 0,
    /** The most calls with this bearer (`Bearer …`) there ever were in flight at once. */
    peak: (token: string) => peaks.get(`Bearer ${token}`) ?? 0,
  };
}

/** The operation a request's method and path name, if any. */
function operationOf(method: string, target: string): OperationName | null {
  const route = resolveRoute(method, new URL(target, 'http://upstream').pathname);
  return route.kind === 'route' ? route.operation : null;
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** The proxy in process, in front of the in-process simulator: no socket on either side. */
export function createUpstreamProxy(simulator: InProcessSimulator, hooks: ProxyHooks = {}) {
  const { enter, inFlight, peak } = inFlightCounts();
  const proxy = async (request: SimulatorRequest): Promise<SimulatorReply> => {
    const operation = operationOf(request.method, request.target);
    await hooks.hold?.(operation, request);
    let text = hooks.answer?.(operation, request);
    if (text === undefined) {
      const { authorization, 'content-type': contentType } = request.headers;
      const reply = await simulator.handle({ ...request, headers: { authorization, 'content-type': contentType } });
      if (reply === null || reply === 'reset' || typeof reply.body !== 'string') return reply;
      if (reply.status < 200 || reply.status > 299) return { status: reply.status, headers: JSON_TYPE, body: reply.body };
      text = reply.body;
    }
    return { status: 200, headers: JSON_TYPE, body: hooks.rewrite ? hooks.rewrite(operation, request, text) : text };
  };
  const upstream: InProcessUpstream = {
    urls: simulator.urls,
    async handle(request) {
      // Out when answered, or when the caller goes away first (as the socket's close says).
      const leave = enter(request.headers.authorization ?? '');
      request.signal?.addEventListener('abort', leave, { once: true });
      try {
        return await proxy(request);
      } catch {
        return 'reset';
      } finally {
        leave();
      }
    },
  };
  return { ...upstream, inFlight, peak, close: async () => undefined };
}

export async function startUpstreamProxy(simulator: Simulator, hooks: ProxyHooks = {}) {
  const simulatorOrigin = new URL(simulator.urls.AUTH_URL).origin;
  const { enter, inFlight, peak } = inFlightCounts();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    // Out as the reply is sent, before the gateway can read it (the response's close comes a
    // turn later, by which time the gateway may have sent its next call), or at the close if
    // the call went away first.
    const leave = enter(request.headers.authorization ?? '');
    response.once('close', leave);
    const reply = (status: number, text: string) => (leave(), response.writeHead(status, JSON_TYPE).end(text));
    void (async () => {
      const operation = operationOf(request.method ?? 'GET', request.url ?? '/');
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
        if (!upstream.ok) return void reply(upstream.status, text);
      }
      reply(200, hooks.rewrite ? hooks.rewrite(operation, request, text) : text);
    })().catch((error: unknown) => response.destroy(error as Error));
  });
  const base = await listen(server);
  const urls = Object.fromEntries(
    Object.entries(UPSTREAM_PATH_PREFIXES).map(([host, prefix]) => [host, `${base}${prefix}`]),
  ) as Simulator['urls'];
  return {
    urls,
    inFlight,
    peak,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
