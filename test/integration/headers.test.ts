// The headers of requests and answers, against a real gateway (src/server/headers.ts and the
// plugins that set them): nosniff on every kind of answer (yoga's, GraphiQL's page, the
// probes, the per-address 429, and those Node writes itself); the request id, returned and
// forwarded upstream; no shared cache; CORS, and `Vary: Origin` wherever the CORS headers
// follow the request's Origin; the Host a request must name (ALLOWED_HOSTS); GraphiQL's page's
// own policy.
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';
import { WebSocket } from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../../src/server/gateway.js';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { demoToken } from '../helpers/demo.js';
import { startGateway } from '../helpers/harness.js';
import { rawHead } from '../helpers/raw-http.js';
import { json, startStubUpstream } from '../helpers/stub-upstream.js';

type Gateway = Awaited<ReturnType<typeof startGateway>>;
let simulator: Simulator;
let gateway: Gateway;
let token: string;

beforeAll(async () => {
  simulator = await startSimulator({ latencyMs: 0 });
  // As behind nginx: one forwarded client may hold one request at a time (the 429 below).
  gateway = await startGateway({
    upstreamUrls: simulator.urls,
    graphiql: true,
    metricsPath: '/metrics',
    trustedProxies: ['127.0.0.1'],
    maxConnectionsPerAddress: 1,
  });
  token = await demoToken(simulator, 'ready@demo.test', { expiresInSeconds: 3600 });
});
afterAll(async () => {
  await gateway?.close();
  await simulator?.close();
});

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const order = { id: 'ord-1', reservationId: 'OC-AAAAA', userId: 'u-1', status: 'READY_FOR_PICKUP' };

/** A gateway of its own in front of a stub upstream that records what it is sent; both closed after the test. */
async function stubGateway(options: Parameters<typeof startGateway>[0] extends infer C ? Partial<C> : never = {}) {
  const stub = await startStubUpstream((request, res) => {
    if (request.path.endsWith('/v2/order/user')) return json(res, 200, [order]);
    if (request.path.endsWith('/auth/me')) return json(res, 200, { id: 'u-1' });
    return json(res, 404, {});
  });
  const started = await startGateway({ upstreamUrls: stub.urls, ...options });
  cleanups.push(stub.close, started.close);
  return { stub, gateway: started };
}

const postTo = (endpoint: string, body: object, headers: Record<string, string> = {}) =>
  fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(gateway.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body,
  });

/** Each kind of answer, with the status it must have. */
const ANSWERS: Array<[string, number, () => Promise<Response>]> = [
  ['a GraphQL result', 200, () => post('{"query":"{ orders { id } }"}')],
  ['a syntax error', 400, () => post('{"query":"{"}', { accept: 'application/graphql-response+json' })],
  ['an Accept nothing satisfies', 406, () => post('{"query":"{ __typename }"}', { accept: 'text/plain' })],
  ['a body over the limit', 413, () => post(JSON.stringify({ query: `{ __typename } #${'x'.repeat(200_000)}` }))],
  ['a compressed body', 415, () => post('{"query":"{ __typename }"}', { 'content-encoding': 'gzip' })],
  [
    'a form POST without the CSRF header',
    403,
    () =>
      fetch(gateway.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'query=%7B__typename%7D',
      }),
  ],
  ['an unknown path', 404, () => fetch(`${gateway.origin}/nope`)],
  ['/healthz', 200, () => fetch(`${gateway.origin}/healthz`)],
  ['/readyz', 200, () => fetch(`${gateway.origin}/readyz`)],
  ['/metrics', 200, () => fetch(`${gateway.origin}/metrics`)],
  ['GraphiQL’s page', 200, () => fetch(gateway.endpoint, { headers: { accept: 'text/html' } })],
  [
    'a CORS preflight',
    204,
    () =>
      fetch(gateway.endpoint, { method: 'OPTIONS', headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' } }),
  ],
];

describe('X-Content-Type-Options: nosniff on every answer', () => {
  it.each(ANSWERS)('%s (%i)', async (_, status, send) => {
    const response = await send();
    await response.arrayBuffer();
    expect(response.status).toBe(status);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('GraphiQL’s page revalidated (304)', async () => {
    const page = await fetch(gateway.endpoint, { headers: { accept: 'text/html' } });
    await page.arrayBuffer();
    const again = await fetch(gateway.endpoint, { headers: { accept: 'text/html', 'if-none-match': page.headers.get('etag')! } });
    expect([again.status, again.headers.get('x-content-type-options')]).toEqual([304, 'nosniff']);
  });

  it('the per-address 429 written by the HTTP server, past a trusted proxy', async () => {
    // One forwarded client's request held open (its body never comes), then a second one.
    const { hostname, port } = new URL(gateway.origin);
    const held = connect(Number(port), hostname, () =>
      held.write(
        'POST /graphql HTTP/1.1\r\nHost: gateway\r\nX-Forwarded-For: 198.51.100.7\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n',
      ),
    );
    try {
      // Sent once the first is in: the server answers in order of arrival on each socket, not across them.
      await new Promise((resolve) => held.once('connect', resolve));
      const second = () => rawHead(gateway.origin, 'GET /healthz HTTP/1.1\r\nHost: gateway\r\nX-Forwarded-For: 198.51.100.7\r\n\r\n');
      // Until the held request has reached the server (a 200 before that).
      let answer = await second();
      for (let tries = 1; answer.status === 200 && tries < 100; tries++) answer = await second();
      expect(answer.status).toBe(429);
      expect(answer.head).toContain('x-content-type-options: nosniff');
    } finally {
      held.destroy();
    }
  });

  it.each([
    ['a request Node cannot parse (400, written to the socket)', 'NOT HTTP AT ALL\r\n\r\n', 400],
    [
      'an Expect header Node does not know (417, written by Node)',
      'GET /healthz HTTP/1.1\r\nHost: gateway\r\nExpect: something-else\r\n\r\n',
      417,
    ],
  ])('%s', async (_, request, status) => {
    const answer = await rawHead(gateway.origin, request);
    expect(answer.status).toBe(status);
    expect(answer.head).toContain('x-content-type-options: nosniff');
  });
});

/** The tokens of a Vary header, lowercased. */
const varyOf = (response: Response) =>
  (response.headers.get('vary') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);

describe('Vary: Origin wherever the origin is reflected (and on the answers that do not reflect it)', () => {
  const gateways: Gateway[] = [];
  const start = async (corsOrigins: string[]) => {
    const started = await startGateway({ upstreamUrls: simulator.urls, corsOrigins });
    gateways.push(started);
    return started;
  };
  afterAll(async () => {
    for (const each of gateways) await each.close();
  });

  const cases: Array<[string, string[], string, string | null]> = [
    ['CORS_ORIGINS=*: any origin reflected', ['*'], 'https://anyone.example', 'https://anyone.example'],
    ['one allowed origin', ['https://app.example.com'], 'https://app.example.com', 'https://app.example.com'],
    [
      'one of two allowed origins',
      ['https://app.example.com', 'https://admin.example.com'],
      'https://admin.example.com',
      'https://admin.example.com',
    ],
    [
      'an origin not allowed (no CORS header: still an answer that depends on Origin)',
      ['https://app.example.com'],
      'https://evil.example',
      null,
    ],
  ];
  it.each(cases)('%s: the answer and its preflight vary by Origin and Authorization, each once', async (_, origins, origin, allowed) => {
    const { endpoint } = await start(origins);
    const answer = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: '{"query":"{ __typename }"}',
    });
    const preflight = await fetch(endpoint, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
    });
    for (const response of [answer, preflight]) {
      await response.arrayBuffer();
      expect(response.headers.get('access-control-allow-origin')).toBe(allowed);
      const vary = varyOf(response);
      expect(vary).toEqual(expect.arrayContaining(['origin', 'authorization']));
      expect(new Set(vary).size).toBe(vary.length);
    }
  });
});

describe('response headers and request ids', () => {
  it('no shared cache keeps an answer; the request id is returned and forwarded upstream with Accept-Language', async () => {
    const { stub, gateway } = await stubGateway();
    const response = await postTo(
      gateway.endpoint,
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
    const response = await postTo(
      gateway.endpoint,
      { query: '{ orders { id } }' },
      { authorization: 'Bearer t', 'x-request-id': 'bad id\twith spaces' },
    );
    const id = response.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(stub.requests[0]!.headers['x-request-id']).toBe(id);
  });
});

describe('CORS', () => {
  const preflight = (origin: string, corsOrigins: GatewayConfig['corsOrigins']) =>
    stubGateway({ corsOrigins }).then(({ gateway }) =>
      fetch(gateway.endpoint, {
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
    const answer = await postTo(
      gateway.endpoint,
      { query: '{ orders { id } }' },
      { authorization: 'Bearer t', origin: 'https://app.example.com' },
    );
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(answer.headers.get('access-control-expose-headers')).toBe('x-request-id');
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
    const { gateway } = await stubGateway({ allowedHosts: ['api.example.com'], graphiql: true });
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
    const page = await fetch(gateway.endpoint, { headers: { accept: 'text/html' } });
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
