// The shipped nginx files (deploy/nginx/nginx.conf and order-graph.conf) in front of a gateway,
// through a real nginx: GraphQL is served, the probes and /metrics are not (however their path
// is spelled), while the replica itself still answers them on its own port, where probes and
// Prometheus reach it; a replica that refuses connections is passed over; 800 WebSockets fit.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { demoCustomer } from '../helpers/demo.js';
import { execute, graphqlClient, listen, startGateway } from '../helpers/harness.js';
import { haveNginx, startNginx, type Nginx } from '../helpers/nginx.js';
import { killStarted } from '../helpers/process.js';
import { rawHead } from '../helpers/raw-http.js';
import { freePort } from '../helpers/redis.js';

let work: string;
let simulator: Simulator;
let gateway: Awaited<ReturnType<typeof startGateway>>;
let nginx: Nginx;

beforeAll(async () => {
  if (!haveNginx) return;
  work = mkdtempSync(join(tmpdir(), 'order-graph-nginx-'));
  // nginx's workers (another user) reach their temporary folders in it.
  chmodSync(work, 0o755);
  simulator = await startSimulator({ latencyMs: 0 });
  gateway = await startGateway({ upstreamUrls: simulator.urls, trustedProxies: ['127.0.0.1'], metricsPath: '/metrics', graphiql: true });
  nginx = await startNginx(join(work, 'nginx'), [new URL(gateway.origin).host]);
}, 30_000);

afterAll(async () => {
  killStarted();
  await gateway?.close();
  await simulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A GET with its target spelled as written (fetch would normalise the path first). */
const rawGet = (origin: string, target: string) =>
  rawHead(origin, `GET ${target} HTTP/1.1\r\nHost: api.example.com\r\nConnection: close\r\n\r\n`);

// The internal paths as a client may spell them: plain, with a query, a trailing slash,
// %-escaped, through dot segments, doubled slashes; and paths that only look like /graphql.
const INTERNAL = [
  '/metrics',
  '/readyz',
  '/healthz',
  '/metrics?x=1',
  '/metrics/',
  '/%6detrics',
  '/graphql/../metrics',
  '/graphql/%2e%2e/readyz',
  '//metrics',
  '/graphql%2f..%2fmetrics',
  '/graphqlx',
  '/',
  '/tracker/../metrics',
  '/tracker/%2e%2e/readyz',
  '/trackerx',
];

describe.skipIf(!haveNginx)('deploy/nginx/ (nginx.conf, order-graph.conf), through nginx', () => {
  it.each(INTERNAL)('GET %s is refused by nginx itself (404, nosniff, no version, never passed on)', async (target) => {
    const { status, head } = await rawGet(nginx.origin, target);
    expect(status).toBe(404);
    expect(head).toContain('x-content-type-options: nosniff');
    expect(head).not.toMatch(/^server: nginx\//m);
    // Every answer of the gateway carries a request id: this one never reached it.
    expect(head).not.toContain('x-request-id');
  });

  it('GraphQL is served: a login and a whole order, GET with a query string, GraphiQL’s page; the gateway’s headers come through', async () => {
    const customer = demoCustomer(simulator, 'ready@demo.test');
    const login = await fetch(nginx.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }',
        variables: { u: customer.username, p: customer.password },
      }),
    });
    expect(login.status).toBe(200);
    expect(login.headers.get('x-request-id')).toBeTruthy();
    expect(login.headers.get('x-content-type-options')).toBe('nosniff');
    const token = ((await login.json()) as { data: { login: { accessToken: string } } }).data.login.accessToken;
    const { data, errors } = await execute(graphqlClient(nginx.endpoint, token), WholeOrderDocument);
    expect(errors).toEqual([]);
    expect(data?.me?.orders?.[0]?.vehicle?.vin).toEqual(expect.any(String));

    const get = await fetch(`${nginx.endpoint}?query=${encodeURIComponent('{ __typename }')}`, { headers: { 'x-graphql-yoga-csrf': '1' } });
    expect([get.status, await get.json()]).toEqual([200, { data: { __typename: 'Query' } }]);
    const page = await fetch(nginx.endpoint, { headers: { accept: 'text/html' } });
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    await page.arrayBuffer();
  });

  it('a spelling of /graphql that nginx resolves reaches the replica as /graphql itself, with the query string; nginx’s own 502 carries nosniff', async () => {
    // A replica that records what it is sent, behind a second nginx with the same file.
    const seen: string[] = [];
    const recorder = createServer((request, response) => {
      seen.push(request.url!);
      response.end('{}');
    });
    const origin = await listen(recorder);
    try {
      const second = await startNginx(join(work, 'nginx-recorder'), [new URL(origin).host]);
      seen.length = 0;
      for (const target of ['/graphql?q=1', '/metrics/../graphql?q=1', '/%67raphql?q=1', '//graphql?q=1', '/./graphql?q=1']) {
        expect([target, (await rawGet(second.origin, target)).status]).toEqual([target, 200]);
      }
      expect(seen).toEqual(Array(5).fill('/graphql?q=1'));
      // With no replica left, nginx's own 502 carries nosniff too.
      recorder.closeAllConnections();
      await new Promise((resolve) => recorder.close(resolve));
      const { status, head } = await rawGet(second.origin, '/graphql');
      expect(status).toBe(502);
      expect(head).toContain('x-content-type-options: nosniff');
    } finally {
      recorder.closeAllConnections();
      if (recorder.listening) await new Promise((resolve) => recorder.close(resolve));
    }
  });

  it('a WebSocket upgrade on /graphql goes through to the replica (graphql-ws: connection_init is acknowledged); the tracker’s path reaches the replica', async () => {
    const socket = new WebSocket(nginx.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
    const acknowledged = await new Promise<string>((resolve, reject) => {
      socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
      socket.once('message', (data) => resolve((JSON.parse(String(data)) as { type: string }).type));
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade answered ${response.statusCode}`)));
    });
    socket.close();
    expect(acknowledged).toBe('connection_ack');
    const { head } = await rawGet(nginx.origin, '/tracker/');
    expect(head).toContain('x-request-id');
  });

  it('replicas that refuse connections (stopped: nothing listens) are passed over: every POST and GET is answered by the one left', async () => {
    // Two addresses where nothing listens, before the live replica. Reloaded, nginx has marked
    // neither failed yet (its start-up check met them): each worker's first request tries both
    // before the live one.
    const servers = [`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`, new URL(gateway.origin).host];
    const third = await startNginx(join(work, 'nginx-refused'), servers);
    await third.reload(servers);
    const refusals = () => third.errorLog().match(/Connection refused\) while connecting to upstream/g)?.length ?? 0;
    const before = refusals();
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2
          ? fetch(third.endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' })
          : fetch(`${third.endpoint}?query=${encodeURIComponent('{ __typename }')}`)
        ).then(async (response) => [response.status, await response.text()]),
      ),
    );
    expect(statuses).toEqual(Array(12).fill([200, '{"data":{"__typename":"Query"}}']));
    // They were tried, both: nginx met the refusals and went on.
    expect(refusals() - before).toBeGreaterThanOrEqual(2);
  });

  it('800 idle WebSockets from 8 client addresses through nginx all stay open: nginx.conf’s worker_connections hold them, client and replica side', async () => {
    const SOCKETS = 800;
    const closed = new Set<number>();
    const sockets = Array.from(
      { length: SOCKETS },
      (_, i) => new WebSocket(nginx.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws', { localAddress: `127.0.0.${2 + (i % 8)}` }),
    );
    try {
      const acknowledged = await Promise.all(
        sockets.map(
          (socket, i) =>
            new Promise<boolean>((resolve) => {
              socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
              socket.on('message', (data) => resolve((JSON.parse(String(data)) as { type: string }).type === 'connection_ack'));
              socket.on('unexpected-response', () => resolve(false));
              socket.on('error', () => resolve(false));
              socket.on('close', () => (closed.add(i), resolve(false)));
            }),
        ),
      );
      // Held a while, idle: none is closed by nginx meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect({ acknowledged: acknowledged.filter(Boolean).length, closed: closed.size }).toEqual({ acknowledged: SOCKETS, closed: 0 });
      expect(nginx.errorLog()).not.toMatch(/worker_connections are not enough/);
    } finally {
      for (const socket of sockets) socket.terminate();
    }
  });

  it('the replica itself still answers the probes and /metrics on its own port (kubelet, Prometheus)', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const response = await fetch(`${gateway.origin}${path}`);
      expect([path, response.status]).toEqual([path, 200]);
      await response.arrayBuffer();
    }
  });
});
