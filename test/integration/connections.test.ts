// What one client can hold of the gateway's connections: readers that stop reading are cut
// (plain, multipart and SSE answers alike), and one address cannot take every slot, directly
// or behind a trusted proxy.
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { STRING_LENGTHS } from '../../src/upstream/models.js';
import { startGateway, type TestGatewayConfig } from '../helpers/harness.js';
import { json, startStubUpstream } from '../helpers/stub-upstream.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

// 100 orders whose product names are as long as the upstream may send them (models.ts): 300 kB
// from the upstream, inside its answer cap.
const NAME = 'x'.repeat(STRING_LENGTHS.text);
const ORDERS = Array.from({ length: 100 }, (_, i) => ({
  id: `o${i}`,
  reservationId: `R${i}`,
  userId: 'u',
  status: 'BOOKED',
  product: { model: NAME, trim: NAME, country: NAME, currencyCode: 'USD' },
}));
/** What one answer is made of: every alias repeats every order's names. */
const PRODUCT = 'product { model trim country }';
const ANSWER_BYTES = 20 * ORDERS.length * 3 * NAME.length;

async function gatewayWithBigOrders(config: TestGatewayConfig = {}) {
  const stub = await startStubUpstream((req, res) => {
    if (req.path.endsWith('/auth/me')) return json(res, 200, { id: 'u' });
    if (req.path.endsWith('/v2/order/user')) return json(res, 200, ORDERS);
    json(res, 404, { code: 'NOT_FOUND' });
  });
  cleanups.push(stub.close);
  // Answers far past a request's default byte budget: the connections, not the budget, are the subject.
  const gateway = await startGateway({ upstreamUrls: stub.urls, bytes: { request: 256 * 1024 * 1024, inFlight: 1024 ** 3 }, ...config });
  cleanups.push(gateway.close);
  return gateway;
}

// Each alias repeats the 100 orders: about 6 MB of answer from one upstream call.
const aliases = (field: (i: number) => string) => Array.from({ length: 20 }, (_, i) => field(i)).join(' ');
const PLAIN = `{ ${aliases((i) => `a${i}: orders(first: 100) { ${PRODUCT} }`)} }`;
const DEFERRED = `{ orders(first: 1) { id } ... @defer { ${aliases((i) => `a${i}: orders(first: 100) { ${PRODUCT} }`)} } }`;
const SUBSCRIPTION = `subscription { orderUpdates { order { id ${aliases((i) => `m${i}: ${PRODUCT}`)} } } }`;

/**
 * A raw client that sends one request and reads nothing of the answer. `drain()` then reads
 * what reached it until the connection closes: its byte count.
 */
function nonReader(origin: string, accept: string, query: string, localAddress = '127.0.0.1') {
  const { port } = new URL(origin);
  const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress });
  const body = JSON.stringify({ query });
  socket.write(
    `POST /graphql HTTP/1.1\r\nHost: gateway\r\nAccept: ${accept}\r\nContent-Type: application/json\r\nAuthorization: Bearer t\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.pause();
  cleanups.push(() => socket.destroy());
  return {
    drain: () =>
      new Promise<number>((resolve) => {
        let bytes = 0;
        socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
        socket.once('close', () => resolve(bytes));
        socket.resume();
      }),
  };
}

/** A metric's value, scraped from another loopback address (127.0.0.2) than the clients'. */
async function metric(origin: string, name: string): Promise<number> {
  const text = await new Promise<string>((resolve, reject) => {
    const req = request(`${origin}/metrics`, { localAddress: '127.0.0.2' }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject).end();
  });
  return Number(new RegExp(`^${name.replace(/[{}"]/g, (c) => `\\${c}`)} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
}

/** Waits until the metric reaches `value` (checked every 100 ms). */
async function untilMetric(origin: string, name: string, value: number) {
  while ((await metric(origin, name)) < value) await new Promise((resolve) => setTimeout(resolve, 100));
}

describe('slow readers', () => {
  it('a client that stops reading is cut, whatever the answer: JSON, multipart (@defer) and SSE; counted in metrics', async () => {
    const gateway = await gatewayWithBigOrders({
      slowReader: { maxUnsentBytes: 1024 * 1024, timeoutMs: 1000, maxUnsentBytesPerAddress: 1024 ** 3 },
    });
    const clients = [
      nonReader(gateway.origin, 'application/json', PLAIN),
      nonReader(gateway.origin, 'multipart/mixed', DEFERRED),
      nonReader(gateway.origin, 'text/event-stream', SUBSCRIPTION),
    ];
    // Each is cut once its unsent data has stayed over the limit (or not shrunk) for a second.
    await untilMetric(gateway.origin, 'order_graph_connections_cut_total{reason="slow_reader"}', 3);
    // What had reached them when they were cut is not the whole answer, and the connection is
    // closed. (Less than the answer, not a share of it: the kernel's loopback buffers, which
    // it sizes itself, held 4.25 of the 6 MB once.)
    const received = await Promise.all(clients.map((client) => client.drain()));
    for (const bytes of received) expect(bytes).toBeLessThan(ANSWER_BYTES);
    expect(await metric(gateway.origin, 'order_graph_connections_cut_total{reason="slow_reader"}')).toBe(3);
  }, 60_000);

  it('a client that reads gets the whole answer, however long it is', async () => {
    // A reader is one whose unsent data shrinks; on a loaded machine this process (the reader and
    // the gateway both) may stall for a second, which is no stop in its reading.
    const gateway = await gatewayWithBigOrders({
      slowReader: { maxUnsentBytes: 1024 * 1024, timeoutMs: 10_000, maxUnsentBytesPerAddress: 1024 ** 3 },
    });
    const response = await fetch(gateway.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: JSON.stringify({ query: PLAIN }),
    });
    const body = (await response.json()) as { data: Record<string, { product: { model: string } }[]> };
    expect(Object.keys(body.data)).toHaveLength(20);
    expect(
      Object.values(body.data).every((orders) => orders.length === ORDERS.length && orders.every((order) => order.product.model === NAME)),
    ).toBe(true);
    expect(await metric(gateway.origin, 'order_graph_connections_cut_total{reason="slow_reader"}')).toBe(0);
  }, 60_000);
});

describe('unsent data per client address', () => {
  it('one address’s connections together hold at most SLOW_READER_BYTES_PER_ADDRESS: those holding the most are cut until the rest fit; another address is not touched', async () => {
    const perAddress = 8 * 1024 * 1024;
    // Each answer is about 6 MB; no one connection is past its own limit, none is cut for time.
    const gateway = await gatewayWithBigOrders({
      slowReader: { maxUnsentBytes: 1024 ** 3, timeoutMs: 600_000, maxUnsentBytesPerAddress: perAddress },
    });
    const sameAddress = [0, 1, 2].map(() => nonReader(gateway.origin, 'application/json', PLAIN));
    const other = nonReader(gateway.origin, 'application/json', PLAIN, '127.0.0.2');
    await untilMetric(gateway.origin, 'order_graph_connections_cut_total{reason="unsent_per_address"}', 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await metric(gateway.origin, 'order_graph_connections_cut_total{reason="unsent_per_address"}')).toBe(2);
    // The one left, and the other address's, get their whole answers once they read.
    const received = await Promise.all([...sameAddress, other].map((client) => client.drain()));
    expect(
      received.filter((bytes) => bytes > ANSWER_BYTES),
      String(received),
    ).toHaveLength(2);
  }, 60_000);
});

/** Opens `count` connections from this process's default address that never send a byte; resolves to their sockets. */
async function silentSockets(origin: string, count: number): Promise<Socket[]> {
  const { port } = new URL(origin);
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve) => {
          const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
          socket.on('error', () => resolve(socket));
        }),
    ),
  );
  cleanups.push(() => sockets.forEach((socket) => socket.destroy()));
  return sockets;
}

/** A whole-order-sized request from another loopback address (127.0.0.2): its status. */
function fromOtherAddress(origin: string, agent: Agent): Promise<number> {
  return new Promise((resolve) => {
    const req = request(`${origin}/graphql`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end(JSON.stringify({ query: '{ __typename }' }));
  });
}

describe('connections per client address', () => {
  it('1,000 silent sockets from one address hold at most MAX_CONNECTIONS_PER_ADDRESS; another address is served throughout', async () => {
    // The silent sockets within the limit are kept as long as the test takes to count them (on a
    // loaded machine, past the 10 s default HEADERS_TIMEOUT_MS): that timeout is not the subject.
    const gateway = await gatewayWithBigOrders({
      maxConnections: 300,
      maxConnectionsPerAddress: 100,
      headersTimeoutMs: 600_000,
      requestTimeoutMs: 600_000,
    });
    const sockets = await silentSockets(gateway.origin, 1000);
    // The ones over the limit are closed on arrival.
    const stillOpen = async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return sockets.filter((socket) => !socket.destroyed && socket.readyState === 'open').length;
    };
    let open = await stillOpen();
    for (let tries = 0; open > 100 && tries < 100; tries++) open = await stillOpen();
    expect(open).toBe(100);

    const agent = new Agent({ localAddress: '127.0.0.2', keepAlive: false });
    cleanups.push(() => agent.destroy());
    const statuses = await Promise.all(Array.from({ length: 96 }, () => fromOtherAddress(gateway.origin, agent)));
    expect(statuses.filter((status) => status === 200)).toHaveLength(96);
    expect(await metric(gateway.origin, 'order_graph_connections_cut_total{reason="per_address"}')).toBe(900);
  }, 60_000);

  it('behind a trusted proxy the limit applies to the forwarded client address: past it 429, other clients unaffected', async () => {
    const gateway = await gatewayWithBigOrders({ maxConnectionsPerAddress: 10, trustedProxies: ['127.0.0.1'] });
    const { port } = new URL(gateway.origin);
    // Eleven requests from one forwarded client, each holding the gateway (its body never comes).
    const answers: string[][] = [];
    const refused = new Promise<void>((resolve) => {
      for (let i = 0; i < 11; i++) {
        const received: string[] = [];
        answers.push(received);
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.write(
            'POST /graphql HTTP/1.1\r\nHost: gateway\r\nX-Forwarded-For: 198.51.100.7\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n',
          ),
        );
        cleanups.push(() => socket.destroy());
        socket.setEncoding('utf8').on('data', (chunk: string) => {
          received.push(chunk.split('\r\n')[0]!);
          resolve();
        });
      }
    });
    await refused;
    // Another client behind the same proxy is served meanwhile.
    const other = await fetch(gateway.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.8' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(other.status).toBe(200);
    // One of the eleven was refused; the ten within the limit are still being waited on.
    expect(answers.flat()).toEqual(['HTTP/1.1 429 Too Many Requests']);
  }, 30_000);
});
