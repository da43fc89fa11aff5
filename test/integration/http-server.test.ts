// The node:http server in front of yoga (src/server/http-server.ts), against a stub upstream:
// the health probes and the drain's readiness, clients too slow to send their request or past
// MAX_CONNECTIONS, and a client that goes away mid-request.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { inProcessGateway, startGateway, type TestGateway, type TestGatewayConfig } from '../helpers/harness.js';
import { capturedLogLines } from '../helpers/log-capture.js';
import { createStubUpstream, json, startStubUpstream, type InProcessStubHandler } from '../helpers/stub-upstream.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const order = { id: 'ord-1', reservationId: 'OC-AAAAA', userId: 'u-1', status: 'READY_FOR_PICKUP' };

/** A stub upstream and a gateway in front of it: in process, or on sockets where a connection is the subject. */
async function stubGateway(options: TestGatewayConfig = {}, { sockets = false } = {}) {
  const handler: InProcessStubHandler = (request, res) => {
    if (request.path.endsWith('/v2/order/user')) return json(res, 200, [order]);
    if (request.path.endsWith('/auth/me')) return json(res, 200, { id: 'u-1' });
    return json(res, 404, {});
  };
  const stub = sockets ? await startStubUpstream(handler) : createStubUpstream(handler);
  const gateway: TestGateway =
    'handle' in stub ? inProcessGateway({ upstream: stub, ...options }) : await startGateway({ upstreamUrls: stub.urls, ...options });
  cleanups.push(stub.close, gateway.close);
  return { stub, gateway };
}

const post = (gateway: TestGateway, body: object, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  gateway.fetch(gateway.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  });

describe('health', () => {
  it('/healthz and /readyz answer, and /readyz turns 503 once draining', async () => {
    const { stub, gateway } = await stubGateway();
    const base = new URL(gateway.endpoint).origin;
    expect(await (await gateway.fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    expect((await gateway.fetch(`${base}/readyz`)).status).toBe(200);
    gateway.drain();
    const draining = await gateway.fetch(`${base}/readyz`);
    expect(draining.status).toBe(503);
    expect((await gateway.fetch(`${base}/healthz`)).status).toBe(200);
    expect(stub.requests).toEqual([]);
  });
});

/** A raw TCP client: what it was sent back, and when the server closed it. */
function rawClient(origin: string, send?: (socket: Socket) => void) {
  const { port } = new URL(origin);
  const socket = connect(Number(port), '127.0.0.1');
  const openedAt = Date.now();
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  if (send) socket.once('connect', () => send(socket));
  const closed = new Promise<{ afterMs: number; received: string }>((resolve) =>
    socket.on('close', () => resolve({ afterMs: Date.now() - openedAt, received })),
  );
  return { socket, closed };
}

const warnLines = (pattern: RegExp) =>
  capturedLogLines
    .map((line) => JSON.parse(line) as { level: number; msg: string; connections?: number })
    .filter((line) => line.level === 40 && pattern.test(line.msg));

describe('slow and excess clients', () => {
  it('headers not finished in HEADERS_TIMEOUT_MS, or a body not in REQUEST_TIMEOUT_MS: 408 and cut, logged at warn', async () => {
    const { gateway } = await stubGateway({ headersTimeoutMs: 1000, requestTimeoutMs: 2000 }, { sockets: true });
    const silent = rawClient(gateway.origin);
    const partialHeaders = rawClient(gateway.origin, (s) => s.write('POST /graphql HTTP/1.1\r\nHost: x\r\n'));
    const slowBody = rawClient(gateway.origin, (s) => {
      s.write('POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
      const drip = setInterval(() => s.write(' '), 100);
      s.on('close', () => clearInterval(drip));
    });
    const results = await Promise.all([silent.closed, partialHeaders.closed, slowBody.closed]);
    for (const { received } of results) expect(received).toMatch(/^HTTP\/1\.1 408 /);
    // Each cut at its own limit, not before: the two header cuts (1 s) before the body's (2 s).
    // (An order and lower bounds: a loaded machine only makes them later.)
    const [silentCut, headersCut, bodyCut] = results.map((r) => r.afterMs);
    for (const cut of [silentCut!, headersCut!]) {
      expect(cut).toBeGreaterThanOrEqual(1000);
      expect(cut).toBeLessThan(bodyCut!);
    }
    expect(bodyCut).toBeGreaterThanOrEqual(2000);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the warn line is a summary per second
    expect(
      warnLines(/client cut: its request did not arrive within 1000 ms \(headers\) or 2000 ms/).reduce(
        (n, line) => n + line.connections!,
        0,
      ),
    ).toBe(3);
    console.info(
      `slow clients cut after: silent ${silentCut} ms, unfinished headers ${headersCut} ms (limit 1000), slow body ${bodyCut} ms (limit 2000)`,
    );
  });

  it('beyond MAX_CONNECTIONS a new connection is closed on arrival and logged at warn; the others are served', async () => {
    const { gateway } = await stubGateway({ maxConnections: 5 }, { sockets: true });
    const held = Array.from({ length: 5 }, () => rawClient(gateway.origin));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const extra = rawClient(gateway.origin);
    const { received } = await extra.closed;
    expect(received).toBe('');
    // Closed on arrival, while the five it found are still open (not cut at a timeout later).
    expect(held.every((client) => !client.socket.destroyed && client.socket.readyState === 'open')).toBe(true);
    for (const client of held) client.socket.destroy();
    await Promise.all(held.map((client) => client.closed));
    const response = await post(gateway, { query: '{ orders { id } }' }, { authorization: 'Bearer t' });
    expect(response.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(warnLines(/connection refused: 5 connections are open \(MAX_CONNECTIONS\)/)).toHaveLength(1);
  });
});

describe('a client that goes away', () => {
  it('aborts the upstream calls in flight and makes none of the calls not yet started', async () => {
    const aborted: string[] = [];
    const stub = await startStubUpstream((request, res) => {
      res.on('close', () => !res.writableEnded && aborted.push(request.path));
      setTimeout(() => {
        if (res.destroyed) return;
        if (request.path.endsWith('/v2/order/user')) return json(res, 200, [order]);
        if (request.path.endsWith('/auth/me')) return json(res, 200, { id: 'u-1' });
        json(res, 404, {});
      }, 500);
    });
    const gateway = await startGateway({ upstreamUrls: stub.urls });
    cleanups.push(stub.close, gateway.close);
    const client = new AbortController();
    const query = post(
      gateway,
      { query: '{ me { id orders { id vehicle { vin } pickup { name } } } }' },
      { authorization: 'Bearer t' },
      client.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    client.abort();
    await expect(query).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 800));
    // The first wave was asked and then aborted; the per-order wave never started.
    expect(stub.requests.map((r) => r.path).sort()).toEqual(['/prefix/auth/auth/me', '/prefix/order/v2/order/user']);
    expect(aborted.sort()).toEqual(['/prefix/auth/auth/me', '/prefix/order/v2/order/user']);
  });
});
