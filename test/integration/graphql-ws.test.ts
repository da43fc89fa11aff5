// GraphQL over WebSocket (graphql-ws) beside HTTP and SSE on /graphql: the same caller checks,
// live limits, guards and trusted documents, the protocol's close codes, and a clean drain.
import { print } from 'graphql';
import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { OrderUpdatesDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { createStreamTransport } from '../../src/client/streams.js';
import { startSimulator } from '../../src/simulator/server.js';
import type { Order } from '../../src/upstream/models.js';
import { demoCustomer, demoOrders, demoToken } from '../helpers/demo.js';
import { execute, graphqlClient, startGateway, type TestGatewayConfig } from '../helpers/harness.js';

const POLL_MS = 250;
const ORDER_UPDATES = print(OrderUpdatesDocument);
const WHOLE_ORDER = print(WholeOrderDocument);

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(gateway: TestGatewayConfig = {}) {
  const simulator = await startSimulator({ latencyMs: 0 });
  cleanups.push(simulator.close);
  const started = await startGateway({ upstreamUrls: simulator.urls, ...gateway, live: { pollIntervalMs: POLL_MS, ...gateway.live } });
  cleanups.push(started.close);
  const url = started.endpoint.replace(/^http/, 'ws');
  const closes: number[][] = [];
  /** A graphql-ws client (its own WebSocket implementation: `ws`), no retries; `closes[i]` gets the close codes of the i-th client made. */
  const connect = (connectionParams?: Record<string, string>): Client => {
    const codes: number[] = [];
    closes.push(codes);
    const client = createClient({
      url,
      webSocketImpl: WebSocket,
      connectionParams,
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => {},
      on: { closed: (event) => void codes.push((event as { code: number }).code) },
    });
    cleanups.push(() => client.dispose());
    return client;
  };
  const token = (username: string) => demoToken(simulator, username);
  return { simulator, gateway: started, url, connect, closes, token };
}

/** Reads an operation's results on demand; `ends()` is true once it completed, `failure()` what an `error` message carried. */
function reader<T>(iterator: AsyncIterableIterator<FormattedExecutionResult<T, unknown>>) {
  return {
    async next(timeoutMs = 5000): Promise<FormattedExecutionResult<T, unknown>> {
      const result = await Promise.race([
        iterator.next(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no result within ${timeoutMs} ms`)), timeoutMs)),
      ]);
      if (result.done) throw new Error('the operation completed');
      return result.value;
    },
    async ends(timeoutMs = 5000): Promise<boolean> {
      const result = await Promise.race([
        iterator.next(),
        new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs)),
      ]);
      return result !== 'timeout' && result.done === true;
    },
    /** The errors of an `error` message (graphql-ws throws them from the iterator). */
    failure: () =>
      iterator.next().then(
        () => undefined,
        (errors: unknown) => errors as Array<{ message: string; extensions?: { code?: string } }>,
      ),
  };
}

type Update = {
  orderUpdates: { changes: { field: string; from: string | null; to: string | null }[]; order: { id: string; status: string } };
};
const codeOf = (result: FormattedExecutionResult<unknown, unknown>) => result.errors?.[0]?.extensions?.code;

/** A raw WebSocket speaking the protocol's subprotocol: resolves to its close code. */
function rawSocket(url: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, 'graphql-transport-ws', { headers });
  cleanups.push(() => socket.readyState === socket.OPEN && socket.terminate());
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const refused = new Promise<number>((resolve) =>
    socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0)),
  );
  return { socket, opened, closed, refused };
}

function advance(order: Order, status: string) {
  order.status = status;
  order.updatedAt = new Date(Date.parse(order.updatedAt ?? '2026-01-01T00:00:00Z') + 60_000).toISOString();
}

describe('graphql-ws on /graphql', () => {
  it('orderUpdates: the first state, then a change from a poll', async () => {
    const { simulator, connect, token } = await setup();
    const client = connect({ authorization: `Bearer ${await token('ready@demo.test')}` });
    const [order] = demoOrders(simulator, 'ready@demo.test');
    const events = reader(client.iterate<Update>({ query: ORDER_UPDATES }));

    const first = await events.next();
    expect(first.errors).toBeUndefined();
    expect(first.data!.orderUpdates).toMatchObject({ changes: [], order: { id: order!.id, status: order!.status } });
    const from = order!.status;
    advance(order!, 'DELIVERED');
    const change = await events.next(POLL_MS * 4);
    expect(change.data!.orderUpdates.order).toMatchObject({ id: order!.id, status: 'DELIVERED' });
    expect(change.data!.orderUpdates.changes[0]).toEqual({ field: 'status', from, to: 'DELIVERED' });
  });

  it('a forged bearer or none gets UNAUTHENTICATED, and joins no poll', async () => {
    const { simulator, connect, token } = await setup();
    const forged = await new SignJWT({ sub: demoCustomer(simulator, 'ready@demo.test').userId })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not-the-simulator-secret-0123456789'));
    // `Authorization` without the scheme is read as the bearer too.
    const attacker = reader(connect({ Authorization: forged }).iterate({ query: ORDER_UPDATES }));
    const refused = await attacker.next();
    expect(refused.data ?? null).toBeNull();
    expect(refused.errors![0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED', operation: 'customerDetails', upstreamStatus: 401 });
    expect(await attacker.ends()).toBe(true);
    const anonymous = reader(connect().iterate({ query: ORDER_UPDATES }));
    expect(codeOf(await anonymous.next())).toBe('UNAUTHENTICATED');
    expect(await anonymous.ends()).toBe(true);

    expect(simulator.requestLog.filter((entry) => entry.bearer === forged).map((entry) => entry.operation)).toEqual(['customerDetails']);
    expect(simulator.requestLog.filter((entry) => entry.operation === 'orderDetails')).toHaveLength(0);
    // The same connection's caller is the real one once a valid bearer is sent.
    const real = reader(connect({ authorization: await token('ready@demo.test') }).iterate({ query: ORDER_UPDATES }));
    expect((await real.next()).errors).toBeUndefined();
  });

  it('the streams per customer count SSE and WebSocket streams together', async () => {
    const { gateway, connect, token } = await setup({ live: { perCustomer: 2 } });
    const bearer = await token('ready@demo.test');
    const abort = new AbortController();
    cleanups.push(() => abort.abort());
    const sse = createStreamTransport({ endpoint: gateway.endpoint, fetch, accessToken: () => bearer })(
      OrderUpdatesDocument,
      {},
      abort.signal,
    );
    expect((await sse.next()).value!.errors).toEqual([]);
    const client = connect({ authorization: `Bearer ${bearer}` });
    const second = reader(client.iterate({ query: ORDER_UPDATES }));
    expect((await second.next()).errors).toBeUndefined();

    const third = reader(client.iterate({ query: ORDER_UPDATES }));
    const refused = await third.next();
    expect(codeOf(refused)).toBe('RATE_LIMITED');
    expect(refused.errors![0]!.message).toMatch(/Too many live streams for this customer \(2\)/);
    expect(await third.ends()).toBe(true);
  });

  it('a query over the socket answers the whole order with the same data as over HTTP', async () => {
    const { gateway, connect, token } = await setup();
    const bearer = await token('ready@demo.test');
    const overHttp = await execute(graphqlClient(gateway.endpoint, bearer), WholeOrderDocument);
    expect(overHttp.errors).toEqual([]);

    const result = await reader(connect({ authorization: `Bearer ${bearer}` }).iterate({ query: WHOLE_ORDER })).next();
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual(overHttp.data);
    expect((result.data as { me: { orders: unknown[] } }).me.orders).toHaveLength(1);
  });

  it('with the response cache on, a query over the socket runs afresh each time (the cache is HTTP’s)', async () => {
    const { simulator, connect, token } = await setup({ responseCacheTtlMs: 60_000 });
    const client = connect({ authorization: `Bearer ${await token('ready@demo.test')}` });
    const first = await reader(client.iterate({ query: WHOLE_ORDER })).next();
    const calls = simulator.requestLog.length;
    const second = await reader(client.iterate({ query: WHOLE_ORDER })).next();
    expect(first.errors).toBeUndefined();
    expect(second).toEqual(first);
    expect(simulator.requestLog.length).toBe(2 * calls);
  });

  it('the HTTP guards apply: a document past the limits is refused before it runs', async () => {
    const { connect } = await setup();
    const client = connect();
    const deep = `{ me { ${'orders { customer { '.repeat(8)}id${' } }'.repeat(8)} } }`;
    const errors = await reader(client.iterate({ query: deep })).failure();
    expect(errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(errors?.[0]?.message).toMatch(/depth/i);
  });

  it('INTROSPECTION=off holds over the socket as over HTTP: __schema and __type are refused before anything runs', async () => {
    const { gateway, connect } = await setup({ introspection: false });
    const client = connect();
    for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "Order") { name } }']) {
      const overHttp = await graphqlClient(gateway.endpoint)
        .rawRequest(query)
        .catch((error: { response: { errors: unknown[] } }) => error.response);
      const errors = await reader(client.iterate({ query })).failure();
      expect(errors?.[0]?.extensions?.code, query).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(errors?.[0]?.message, query).toMatch(/introspection/i);
      expect(errors?.map(({ message }) => message)).toEqual(overHttp.errors?.map((error) => (error as { message: string }).message));
    }
  });

  it('TRUSTED_DOCUMENTS=only: an ad-hoc query is refused, a registered hash runs', async () => {
    const { connect, token } = await setup({ trustedDocuments: 'only' });
    const client = connect({ authorization: `Bearer ${await token('ready@demo.test')}` });
    const errors = await reader(client.iterate({ query: '{ me { id } }' })).failure();
    expect(errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ONLY');

    const hash = (WholeOrderDocument as { __meta__?: { hash?: string } }).__meta__!.hash!;
    const registered = await reader(client.iterate({ query: '', extensions: { persistedQuery: { version: 1, sha256Hash: hash } } })).next();
    expect(registered.errors).toBeUndefined();
    expect((registered.data as { me: { orders: unknown[] } }).me.orders).toHaveLength(1);
  });

  it('the protocol’s close codes: no connection_init (4408), a message too big (1009), a malformed one (4400)', async () => {
    const { url } = await setup({ headersTimeoutMs: 1000 });
    const silent = rawSocket(url);
    await silent.opened;
    expect(await silent.closed).toBe(4408);

    const big = rawSocket(url);
    await big.opened;
    big.socket.send(JSON.stringify({ type: 'connection_init', payload: { padding: 'x'.repeat(100_001) } }));
    expect(await big.closed).toBe(1009);

    const malformed = rawSocket(url);
    await malformed.opened;
    malformed.socket.send('{"type": "subscribe"');
    expect(await malformed.closed).toBe(4400);
  });

  it('an upgrade from an origin CORS_ORIGINS does not allow is refused with 403; no Origin, an allowed one and the gateway’s own are taken', async () => {
    const { url } = await setup({ corsOrigins: ['https://app.example.com'] });
    const foreign = rawSocket(url, { origin: 'https://evil.example.com' });
    expect(await foreign.refused).toBe(403);
    for (const headers of [
      {} as Record<string, string>,
      { origin: 'https://app.example.com' },
      { origin: new URL(url.replace(/^ws/, 'http')).origin },
    ]) {
      const taken = rawSocket(url, headers);
      await taken.opened;
      taken.socket.close(1000);
      expect(await taken.closed).toBe(1000);
    }
  });

  it('drain: each subscription completes, then its socket closes with 1001', async () => {
    const { gateway, url, connect, closes, token } = await setup();
    const seen: string[] = [];
    const client = connect({ authorization: `Bearer ${await token('ready@demo.test')}` });
    const first = new Promise<void>((resolve) =>
      client.subscribe(
        { query: ORDER_UPDATES },
        { next: () => resolve(void seen.push('next')), error: () => seen.push('error'), complete: () => seen.push('complete') },
      ),
    );
    client.on('closed', (event) => void seen.push(`closed ${(event as { code: number }).code}`));
    await first;
    await gateway.drain();
    expect(seen).toEqual(['next', 'complete', 'closed 1001']);
    expect(closes[0]).toEqual([1001]);
    expect(await rawSocket(url).refused).toBe(503);
  });

  it('behind a trusted proxy, an upgrade counts in its forwarded client’s share', async () => {
    const { url } = await setup({ trustedProxies: ['127.0.0.1'], maxConnectionsPerAddress: 1 });
    const first = rawSocket(url, { 'x-forwarded-for': '203.0.113.9' });
    await first.opened;
    expect(await rawSocket(url, { 'x-forwarded-for': '203.0.113.9' }).refused).toBe(429);
    const other = rawSocket(url, { 'x-forwarded-for': '203.0.113.10' });
    await other.opened;
  });

  it('a socket counts as its connection: MAX_CONNECTIONS_PER_ADDRESS holds WebSockets and requests together', async () => {
    const { gateway, url } = await setup({ maxConnectionsPerAddress: 2 });
    const held = [rawSocket(url), rawSocket(url)];
    await Promise.all(held.map((socket) => socket.opened));
    const third = rawSocket(url);
    await expect(third.opened).rejects.toThrow();
    await expect(fetch(`${gateway.origin}/healthz`)).rejects.toThrow();
    held[0]!.socket.close(1000);
    await held[0]!.closed;
    expect((await fetch(`${gateway.origin}/healthz`)).status).toBe(200);
  });

  it('a socket outlives the HTTP timeouts: a change comes after polls past REQUEST_TIMEOUT_MS', async () => {
    const { simulator, connect, token } = await setup({ headersTimeoutMs: 1000, requestTimeoutMs: 1000, keepAliveTimeoutMs: 500 });
    const events = reader(connect({ authorization: `Bearer ${await token('ready@demo.test')}` }).iterate<Update>({ query: ORDER_UPDATES }));
    await events.next();
    // Six polls of 250 ms: past the request timeout, twice past the keep-alive one.
    const polls = () => simulator.requestLog.filter((entry) => entry.operation === 'orderDetails').length;
    while (polls() < 7) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    advance(demoOrders(simulator, 'ready@demo.test')[0]!, 'DELIVERED');
    expect((await events.next(POLL_MS * 4)).data!.orderUpdates.order.status).toBe('DELIVERED');
  });

  it('a socket running no operation is closed after WEBSOCKET_IDLE_TIMEOUT_MS, before connection_init and after it, pings or not; one running a subscription is kept', async () => {
    const idleMs = 600;
    const { url, connect, closes, token } = await setup({ webSocketIdleTimeoutMs: idleMs, headersTimeoutMs: 10_000 });
    // Before either socket exists: neither's idle time can have begun earlier, however slowly this machine goes.
    const created = Date.now();
    const silent = rawSocket(url);
    await silent.opened;
    const pinging = rawSocket(url);
    await pinging.opened;
    pinging.socket.send(JSON.stringify({ type: 'connection_init' }));
    const closedAt = Promise.all([silent.closed, pinging.closed].map((closed) => closed.then(() => Date.now())));
    const pings = setInterval(
      () => pinging.socket.readyState === pinging.socket.OPEN && pinging.socket.send(JSON.stringify({ type: 'ping' })),
      100,
    );
    cleanups.push(() => clearInterval(pings));
    const watching = connect({ authorization: `Bearer ${await token('ready@demo.test')}` });
    const events = reader(watching.iterate<Update>({ query: ORDER_UPDATES }));
    await events.next();
    expect(await silent.closed).toBe(1000);
    expect(await pinging.closed).toBe(1000);
    // Not before the idle time (the init timeout, 10 s, is far off): a bound load cannot break, as
    // it is counted from before the sockets were made (less the timers' millisecond rounding).
    expect(Math.min(...(await closedAt)) - created).toBeGreaterThanOrEqual(idleMs - 5);
    await new Promise((resolve) => setTimeout(resolve, idleMs * 2));
    expect(closes[0]).toEqual([]);
    // Its subscription over, the socket is idle too.
    await watching.dispose();
  });

  it('16 sockets on each of four addresses, idle, hold every slot (MAX_CONNECTIONS 64) only until the idle time: then a new client connects and is answered', async () => {
    const { url, gateway } = await setup({ webSocketIdleTimeoutMs: 800, maxConnections: 64, maxConnectionsPerAddress: 16 });
    const held = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'].flatMap((localAddress) =>
      Array.from({ length: 16 }, () => {
        const socket = new WebSocket(url, 'graphql-transport-ws', { localAddress });
        cleanups.push(() => socket.terminate());
        socket.on('error', () => undefined);
        return {
          socket,
          closed: new Promise<number>((resolve) => socket.once('close', (code) => resolve(code))),
          opened: new Promise<void>((resolve) => socket.once('open', () => resolve())),
        };
      }),
    );
    await Promise.all(held.map(({ opened }) => opened));
    for (const { socket } of held) socket.send(JSON.stringify({ type: 'connection_init' }));
    // Every slot is taken: another client is turned away.
    await expect(fetch(`${gateway.origin}/healthz`)).rejects.toThrow();
    expect(new Set(await Promise.all(held.map(({ closed }) => closed)))).toEqual(new Set([1000]));
    expect((await fetch(`${gateway.origin}/healthz`)).status).toBe(200);
  });
});
