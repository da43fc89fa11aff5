// What one caller may hold at once, on every transport together (src/server/callers.ts): its
// operations in flight (CALLER_OPERATIONS_IN_FLIGHT) and its upstream calls in flight
// (CALLER_UPSTREAM_CALLS_IN_FLIGHT), counted by the customer the upstream verified its token
// as; a token not verified yet by itself on every address and by its address too, joining its
// customer when verified; with no token, by its address (an IPv6 /64 as one). Over HTTP, SSE,
// multipart and WebSocket alike, with the default limits unless a test names its own; another
// caller is answered in full throughout.
import { print } from 'graphql';
import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { WholeOrderDeferredDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { loadConfig } from '../../src/server/config.js';
import { startSimulator } from '../../src/simulator/server.js';
import { demoToken } from '../helpers/demo.js';
import { startGateway, type TestGatewayConfig } from '../helpers/harness.js';
import { startUpstreamProxy, type ProxyHooks } from '../helpers/upstream-proxy.js';
import { until } from '../helpers/intervals.js';

const WHOLE_ORDER = print(WholeOrderDocument);
const { callerLimits: LIMITS } = loadConfig({});

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Calls held until `open()`, counted as they come. */
function gate() {
  let open!: () => void;
  const closed = new Promise<void>((resolve) => (open = resolve));
  let held = 0;
  return { hold: () => (held++, closed), open, held: () => held };
}

// Held calls wait as long as the test takes to line its operations up (on a loaded machine,
// seconds): no deadline or upstream timeout cuts them first. No test here is about either.
const PATIENT = { requestDeadlineMs: 60_000, upstreamTimeoutMs: 60_000 };

/**
 * The simulator behind a proxy that holds calls (by default every order list until `open()`;
 * those `hold` holds instead when given), and the gateway in front (PATIENT, and the defaults unless given).
 */
async function setup(gateway: TestGatewayConfig = {}, hold?: ProxyHooks['hold']) {
  const simulator = await startSimulator({ latencyMs: 0 });
  cleanups.push(simulator.close);
  const lists = gate();
  const upstream = await startUpstreamProxy(simulator, {
    hold: hold ?? ((operation) => (operation === 'orderDetails' ? lists.hold() : undefined)),
  });
  cleanups.push(upstream.close);
  const started = await startGateway({ upstreamUrls: upstream.urls, ...PATIENT, ...gateway });
  cleanups.push(started.close);
  /** A graphql-ws client with the token, its socket from `localAddress` when given (any of 127/8: Linux routes them all to lo). */
  const ws = (token: string, localAddress?: string): Client => {
    const client = createClient({
      url: started.endpoint.replace(/^http/, 'ws'),
      webSocketImpl: localAddress
        ? class extends WebSocket {
            constructor(address: string, protocols?: string | string[]) {
              super(address, protocols, { localAddress });
            }
          }
        : WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    cleanups.push(() => client.dispose());
    return client;
  };
  const post = (token: string, headers: Record<string, string> = {}, query = WHOLE_ORDER) =>
    fetch(started.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify({ query }),
    });
  return { simulator, upstream, gateway: started, ws, post, open: lists.open, held: lists.held };
}

/** One operation over a WebSocket: its one result. */
const overSocket = (client: Client, query = WHOLE_ORDER) =>
  new Promise<FormattedExecutionResult<Record<string, unknown>, unknown>>((resolve, reject) => {
    let result: FormattedExecutionResult<Record<string, unknown>, unknown> | undefined;
    client.subscribe({ query }, { next: (value) => void (result = value), error: reject, complete: () => resolve(result!) });
  });

/** Has the upstream accept the token (the caller's own record, no order list): from then on it counts as its customer. */
async function verify(post: (token: string, headers?: Record<string, string>, query?: string) => Promise<Response>, token: string) {
  const response = await post(token, {}, '{ me { id } }');
  expect(((await response.json()) as { data: { me: { id: string } } }).data.me.id).toBeTruthy();
}

describe('operations in flight per caller', () => {
  it(`one customer, ${LIMITS.operations + 8} whole orders at once over HTTP and a WebSocket together: ${LIMITS.operations} run, 8 are refused (429 RATE_LIMITED, Retry-After) before any upstream call; another customer is answered meanwhile`, async () => {
    const { simulator, upstream, ws, post, open, held } = await setup();
    const token = await demoToken(simulator, 'two-orders@demo.test');
    const other = await demoToken(simulator, 'ready@demo.test');
    await Promise.all([verify(post, token), verify(post, other)]);
    const half = (LIMITS.operations + 8) / 2;
    const client = ws(token);
    const overHttp = Array.from({ length: half }, () =>
      post(token).then(async (response) => ({
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: (await response.json()) as FormattedExecutionResult<Record<string, unknown>, unknown>,
      })),
    );
    const overWs = Array.from({ length: half }, () => overSocket(client));
    // The caller's operations that run all wait on their order list; the refused ones answer at once.
    await until(() => held() === LIMITS.operations);
    const otherAnswer = post(other);
    await until(() => held() === LIMITS.operations + 1);
    open();
    const [http, socket, otherResponse] = await Promise.all([Promise.all(overHttp), Promise.all(overWs), otherAnswer]);
    const results = [...http.map((answer) => answer.body), ...socket];
    const refused = results.filter((result) => result.errors?.[0]?.extensions?.code === 'RATE_LIMITED');
    expect(refused).toHaveLength(8);
    expect(http.filter((answer) => answer.body.errors).every((answer) => answer.status === 429 && answer.retryAfter === '1')).toBe(true);
    const whole = results.filter((result) => !result.errors);
    expect(whole).toHaveLength(LIMITS.operations);
    expect(whole.every((result) => (result.data as { me: { orders: unknown[] } }).me.orders.length === 2)).toBe(true);
    expect(otherResponse.status).toBe(200);
    // The refused ones made no call: one order list per operation that ran, and the other customer's.
    expect(simulator.requestLog.filter((entry) => entry.operation === 'orderDetails')).toHaveLength(LIMITS.operations + 1);
    expect(upstream.peak(token)).toBeLessThanOrEqual(LIMITS.upstreamCalls);
  });

  it('tokens the upstream has not accepted yet count against their address, an IPv6 /64 as one (behind a trusted proxy): two addresses of one /64 share the cap, another /64 does not', async () => {
    const { simulator, post, open, held } = await setup({ trustedProxies: ['127.0.0.1'] });
    const fresh = () => demoToken(simulator, 'ready@demo.test');
    const half = (LIMITS.operations + 8) / 2;
    const from = (address: string) => async () =>
      (await post(await fresh(), { 'x-forwarded-for': address })).json() as Promise<FormattedExecutionResult>;
    const sameNetwork = [
      ...Array.from({ length: half }, () => from('2001:db8:1:2::a')),
      ...Array.from({ length: half }, () => from('2001:db8:1:2:ffff::b')),
    ].map((request) => request());
    await until(() => held() === LIMITS.operations);
    const neighbour = from('2001:db8:1:3::a')();
    await until(() => held() === LIMITS.operations + 1);
    open();
    const results = await Promise.all(sameNetwork);
    expect(results.filter((result) => result.errors?.[0]?.extensions?.code === 'RATE_LIMITED')).toHaveLength(8);
    expect((await neighbour).errors).toBeUndefined();
  });
});

const isRefusal = (result: FormattedExecutionResult<Record<string, unknown>, unknown>) =>
  result.errors?.[0]?.extensions?.code === 'RATE_LIMITED';

describe('a token the gateway has not verified yet: one caller from its first request', () => {
  const LOOPBACKS = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`);
  it.each([
    { from: 'one socket', addresses: [undefined] },
    { from: 'eight addresses (a socket from each of 127.0.0.2…9)', addresses: LOOPBACKS },
  ])(
    `a fresh token, 500 whole orders on graphql-ws from $from, half before its first /auth/me is answered and half after: at most ${LIMITS.operations} run and ${LIMITS.upstreamCalls} of its upstream calls are in flight across the verification, the rest are refused; another customer is answered meanwhile`,
    async ({ addresses }) => {
      let flood = '';
      // The flood's order lists wait, then its per-order calls: each of its operations that runs
      // holds one order list, then as many per-order calls as its caller lets it.
      const lists = gate();
      const parts = gate();
      const { simulator, upstream, ws, post } = await setup({}, (operation, request) => {
        if (request.headers.authorization !== `Bearer ${flood}` || operation === 'customerDetails') return undefined;
        return operation === 'orderDetails' ? lists.hold() : parts.hold();
      });
      const other = await demoToken(simulator, 'ready@demo.test');
      await verify(post, other);
      flood = await demoToken(simulator, 'two-orders@demo.test');
      const clients = addresses.map((address) => ws(flood, address));
      let refused = 0;
      const send = (count: number) =>
        Array.from({ length: count }, (_, i) =>
          overSocket(clients[i % clients.length]!).then((result) => (isRefusal(result) && refused++, result)),
        );
      // Each operation is refused or runs; one that runs reaches its order list after its
      // /auth/me is answered, and the first such answer verifies the token.
      const beforeVerified = send(250);
      await until(() => refused + lists.held() === 250);
      const afterVerified = send(250);
      await until(() => refused + lists.held() === 500);
      const running = lists.held();
      lists.open();
      await until(() => parts.held() >= LIMITS.upstreamCalls);
      // Another customer's whole orders, one after another, until one comes while none of the flood's calls arrives.
      let meanwhile: FormattedExecutionResult<{ me: { orders: unknown[] } }>;
      for (let before = -1; before !== parts.held();) {
        before = parts.held();
        meanwhile = (await (await post(other)).json()) as typeof meanwhile;
      }
      const peak = upstream.peak(flood);
      parts.open();
      const results = await Promise.all([...beforeVerified, ...afterVerified]);
      console.info(
        `a fresh token from ${addresses.length} address(es), 500 whole orders on graphql-ws: ${running} ran at once (cap ${LIMITS.operations}), at most ${peak} of its upstream calls in flight (cap ${LIMITS.upstreamCalls})`,
      );
      expect(meanwhile!.errors).toBeUndefined();
      expect(meanwhile!.data!.me.orders).toHaveLength(1);
      expect(running).toBeLessThanOrEqual(LIMITS.operations);
      expect(upstream.peak(flood)).toBeLessThanOrEqual(LIMITS.upstreamCalls);
      expect(results.filter(isRefusal)).toHaveLength(500 - running);
      expect(results.filter((result) => !result.errors)).toHaveLength(running);
      // Each operation that ran made its own /auth/me; the refused ones none.
      const customerCalls = simulator.requestLog.filter((entry) => entry.operation === 'customerDetails' && entry.bearer === flood);
      expect(customerCalls).toHaveLength(running);
    },
  );

  it('what a token holds when it is verified joins its customer: with 4 operations and 4 upstream calls a caller, 3 operations waiting on their /auth/me when another request verifies the token leave the customer room for 1 more operation and 1 more call, not 4', async () => {
    const limits = { operations: 4, upstreamCalls: 4 };
    let flood = '';
    let holdingCustomer = true;
    const customer = gate();
    const parts = gate();
    // The first operations' /auth/me wait (not the verifying request's); every per-order call waits.
    const { simulator, upstream, ws, post } = await setup({ callerLimits: limits }, (operation, request) => {
      if (request.headers.authorization !== `Bearer ${flood}` || operation === 'orderDetails') return undefined;
      if (operation !== 'customerDetails') return parts.hold();
      return holdingCustomer && request.headers['x-request-id'] !== 'verify' ? customer.hold() : undefined;
    });
    flood = await demoToken(simulator, 'two-orders@demo.test');
    const client = ws(flood);
    const first = Array.from({ length: limits.operations - 1 }, () => overSocket(client));
    await until(() => customer.held() === limits.operations - 1);
    await verify((token, headers, query) => post(token, { ...headers, 'x-request-id': 'verify' }, query), flood);
    holdingCustomer = false;
    let refused = 0;
    const then = Array.from({ length: 10 }, () => overSocket(client).then((result) => (isRefusal(result) && refused++, result)));
    await until(() => (refused === 9 && parts.held() === 1) || parts.held() > 1);
    const peak = upstream.peak(flood);
    customer.open();
    parts.open();
    const results = await Promise.all([...first, ...then]);
    expect(refused).toBe(9);
    expect(peak).toBeLessThanOrEqual(limits.upstreamCalls);
    expect(results.filter((result) => !result.errors)).toHaveLength(limits.operations);
  });

  it('made-up tokens from one address share that address’s cap: 40 of them on graphql-ws, a whole order each, none ever verified: 32 run, 8 are refused, and their upstream calls in flight together stay within one caller’s', async () => {
    const upstreamCalls = 8;
    const madeUp = Array.from({ length: 40 }, (_, i) => `made-up-${i}`);
    let inFlight = () => 0;
    let peak = 0;
    // Every call of a made-up token waits (its /auth/me too, so none is ever verified); the most in flight at once is sampled as each arrives.
    const calls = gate();
    const { ws, post, simulator, upstream } = await setup(
      { callerLimits: { operations: LIMITS.operations, upstreamCalls } },
      (_operation, request) => {
        if (!request.headers.authorization?.startsWith('Bearer made-up-')) return undefined;
        peak = Math.max(peak, inFlight());
        return calls.hold();
      },
    );
    inFlight = () => madeUp.reduce((sum, token) => sum + upstream.inFlight(token), 0);
    const other = await demoToken(simulator, 'ready@demo.test');
    await verify(post, other);
    let refused = 0;
    const results = madeUp.map((token) => overSocket(ws(token, '127.0.0.2')).then((result) => (isRefusal(result) && refused++, result)));
    await until(() => refused === madeUp.length - LIMITS.operations || peak > upstreamCalls);
    const meanwhile = (await (await post(other)).json()) as FormattedExecutionResult<{ me: { orders: unknown[] } }>;
    expect(meanwhile.errors).toBeUndefined();
    calls.open();
    const answers = await Promise.all(results);
    expect(answers.filter(isRefusal)).toHaveLength(madeUp.length - LIMITS.operations);
    expect(answers.filter((answer) => answer.errors?.[0]?.extensions?.code === 'UNAUTHENTICATED')).toHaveLength(LIMITS.operations);
    expect(peak).toBeLessThanOrEqual(upstreamCalls);
  });
});

describe('a caller’s slots come back', () => {
  it('after streamed answers (@defer as multipart and as SSE), clients that went away mid-answer and refusals: the caller can run its full share again', async () => {
    const operations = 2;
    const { simulator, gateway, post, open, held } = await setup({ callerLimits: { operations, upstreamCalls: LIMITS.upstreamCalls } });
    const token = await demoToken(simulator, 'ready@demo.test');
    await verify(post, token);
    // Three at once while the order lists are held: two run, one is refused; two more go away mid-answer.
    const aborts = [new AbortController(), new AbortController()];
    const leaving = aborts.map((abort) =>
      fetch(gateway.endpoint, {
        method: 'POST',
        signal: abort.signal,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: WHOLE_ORDER }),
      }).catch(() => 'gone'),
    );
    await until(() => held() === operations);
    expect((await post(token)).status).toBe(429);
    aborts.forEach((abort) => abort.abort());
    expect(await Promise.all(leaving)).toEqual(['gone', 'gone']);
    open();
    const deferred = print(WholeOrderDeferredDocument);
    for (const accept of ['multipart/mixed', 'text/event-stream', 'multipart/mixed', 'text/event-stream']) {
      const response = await fetch(gateway.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: deferred }),
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('"hasNext":false');
    }
    const again = await Promise.all(Array.from({ length: operations }, () => post(token)));
    expect(again.map((response) => response.status)).toEqual(Array(operations).fill(200));
  });
});
