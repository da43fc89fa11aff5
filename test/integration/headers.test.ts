// The headers every answer must carry, against a real gateway: nosniff on every kind of
// answer (yoga's, GraphiQL's page, the probes, the per-address 429, and those Node writes
// itself), and `Vary: Origin` wherever the CORS headers follow the request's Origin.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { demoToken } from '../helpers/demo.js';
import { startGateway } from '../helpers/harness.js';
import { rawHead } from '../helpers/raw-http.js';

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
