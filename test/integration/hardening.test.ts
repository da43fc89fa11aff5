// The gateway's HTTP edge against a stub upstream: response headers and request ids (returned,
// forwarded upstream, replaced when unsafe), health probes, slow and excess clients, CORS, and
// a client that goes away.
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../../src/server/gateway.js';
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

describe('response headers and request ids', () => {
  it('no shared cache keeps an answer; the request id is returned and forwarded upstream with Accept-Language', async () => {
    const { stub, gateway } = await stubGateway();
    const response = await post(
      gateway,
      { query: '{ orders { id } }' },
      { authorization: 'Bearer t', 'x-request-id': 'req-123', 'accept-language': 'de-DE, en;q=0.8' },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('vary')).toMatch(/Authorization/);
    expect(response.headers.get('x-request-id')).toBe('req-123');
    expect(stub.requests[0]!.headers['x-request-id']).toBe('req-123');
    expect(stub.requests[0]!.headers['accept-language']).toBe('de-DE, en;q=0.8');
  });

  it('a missing or unsafe X-Request-Id is replaced by a generated one, used upstream too', async () => {
    const { stub, gateway } = await stubGateway();
    const response = await post(
      gateway,
      { query: '{ orders { id } }' },
      { authorization: 'Bearer t', 'x-request-id': 'bad id\twith spaces' },
    );
    const id = response.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(stub.requests[0]!.headers['x-request-id']).toBe(id);
  });
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

describe('CORS', () => {
  const preflight = (origin: string, corsOrigins: GatewayConfig['corsOrigins']) =>
    stubGateway({ corsOrigins }).then(({ gateway }) =>
      gateway.fetch(gateway.endpoint, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      }),
    );

  it('development default: local origins only, never with credentials', async () => {
    const local = await preflight('http://localhost:5173', 'local');
    expect(local.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(local.headers.get('access-control-allow-credentials')).toBeNull();
    for (const origin of ['https://evil.example', 'null', 'http://localhost.evil.example']) {
      expect((await preflight(origin, 'local')).headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });

  it('production default: no cross-origin access; CORS_ORIGINS allows exactly its origins', async () => {
    expect((await preflight('http://localhost:5173', [])).headers.get('access-control-allow-origin')).toBeNull();
    const listed = ['https://app.example.com'];
    expect((await preflight('https://app.example.com', listed)).headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect((await preflight('https://other.example.com', listed)).headers.get('access-control-allow-origin')).toBeNull();
    const { gateway } = await stubGateway({ corsOrigins: listed });
    const answer = await post(gateway, { query: '{ orders { id } }' }, { authorization: 'Bearer t', origin: 'https://app.example.com' });
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(answer.headers.get('access-control-expose-headers')).toBe('x-request-id');
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

describe('ALLOWED_HOSTS', () => {
  /** A request with the given Host, over node:http (fetch may not set Host): its status and code. */
  const withHost = (origin: string, host: string, path = '/graphql', headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${origin}${path}`,
        { method: 'POST', headers: { host, 'content-type': 'application/json', ...headers } },
        (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject).end(JSON.stringify({ query: '{ __typename }' }));
    });
  const upgrade = (origin: string, host: string) =>
    new Promise<number>((resolve) => {
      const socket = new WebSocket(`${origin.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers: { host } });
      socket.once('open', () => (socket.close(), resolve(101)));
      socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.once('error', () => undefined);
    });

  it('a request or WebSocket upgrade with another Host is 421 HOST_NOT_ALLOWED, GraphiQL’s page and the probes too; the listed names (any case, any port) and IP addresses are answered', async () => {
    const { gateway } = await stubGateway({ allowedHosts: ['api.example.com'], graphiql: true }, { sockets: true });
    const { port } = new URL(gateway.origin);
    for (const host of ['api.example.com', 'API.Example.COM:443', `127.0.0.1:${port}`, `[::1]:${port}`, '10.1.2.3']) {
      expect((await withHost(gateway.origin, host)).status, host).toBe(200);
    }
    for (const host of ['rebind.attacker.example', 'api.example.com.attacker.example', 'example.com']) {
      const refused = await withHost(gateway.origin, host);
      expect(refused.status, host).toBe(421);
      expect(JSON.parse(refused.body).errors[0].extensions.code).toBe('HOST_NOT_ALLOWED');
      expect((await withHost(gateway.origin, host, '/healthz')).status).toBe(421);
      expect(await upgrade(gateway.origin, host)).toBe(421);
    }
    expect(await upgrade(gateway.origin, 'api.example.com')).toBe(101);
  });
});

describe('GraphiQL’s page', () => {
  it('runs only its own inline scripts (a CSP with their hashes) and is framed by no one', async () => {
    const { gateway } = await stubGateway({ graphiql: true });
    const page = await gateway.fetch(gateway.endpoint, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    const policy = page.headers.get('content-security-policy')!;
    expect(policy).toMatch(/frame-ancestors 'none'/);
    const scriptSources = /script-src ([^;]+)/.exec(policy)![1]!.trim().split(/\s+/);
    expect(scriptSources.length).toBeGreaterThanOrEqual(2);
    expect(scriptSources.every((source) => /^'sha256-[\w+/=]+'$/.test(source))).toBe(true);
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
      (match) => `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`,
    );
    expect(new Set(scripts)).toEqual(new Set(scriptSources));
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });
});
