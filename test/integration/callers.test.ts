// What one caller may hold at once, on every transport together (src/server/callers.ts): its
// operations in flight (CALLER_OPERATIONS_IN_FLIGHT) and its upstream calls in flight
// (CALLER_UPSTREAM_CALLS_IN_FLIGHT), counted by the customer the upstream verified its token
// as, else by its address (an IPv6 /64 as one). Over HTTP, SSE, multipart and WebSocket alike,
// with the defaults; another caller is answered in full throughout.
import { print } from 'graphql';
import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { WholeOrderDeferredDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { loadConfig } from '../../src/server/config.js';
import { startSimulator } from '../../src/simulator/server.js';
import { demoToken } from '../helpers/demo.js';
import { startGateway, type TestGatewayConfig } from '../helpers/harness.js';
import { startUpstreamProxy } from '../helpers/upstream-proxy.js';

const WHOLE_ORDER = print(WholeOrderDocument);
const { callerLimits: LIMITS } = loadConfig({});

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** The simulator behind a proxy whose order lists wait for `open()`, and the gateway in front (the defaults unless given). */
async function setup(gateway: TestGatewayConfig = {}, latencyMs = 0) {
  const simulator = await startSimulator({ latencyMs });
  cleanups.push(simulator.close);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let held = 0;
  const upstream = await startUpstreamProxy(simulator, {
    hold: (operation) => (operation === 'orderDetails' && latencyMs === 0 ? (held++, gate) : undefined),
  });
  cleanups.push(upstream.close);
  const started = await startGateway({ upstreamUrls: upstream.urls, ...gateway });
  cleanups.push(started.close);
  const ws = (token: string): Client => {
    const client = createClient({
      url: started.endpoint.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
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
  return { simulator, upstream, gateway: started, ws, post, open, held: () => held };
}

/** One operation over a WebSocket: its one result. */
const overSocket = (client: Client, query = WHOLE_ORDER) =>
  new Promise<FormattedExecutionResult<Record<string, unknown>, unknown>>((resolve, reject) => {
    let result: FormattedExecutionResult<Record<string, unknown>, unknown> | undefined;
    client.subscribe({ query }, { next: (value) => void (result = value), error: reject, complete: () => resolve(result!) });
  });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => boolean, timeoutMs = 10_000) {
  for (const started = Date.now(); !condition(); await sleep(10))
    if (Date.now() - started > timeoutMs) throw new Error(`the condition did not hold within ${timeoutMs} ms`);
}

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

  it('500 whole orders on one WebSocket with one customer’s token: its upstream calls in flight stay within the cap, the operations past the cap are refused, and another customer’s whole order over HTTP is whole', async () => {
    const { simulator, upstream, ws, post } = await setup({}, 20);
    const token = await demoToken(simulator, 'ready@demo.test');
    const other = await demoToken(simulator, 'two-orders@demo.test');
    const client = ws(token);
    const flood = Array.from({ length: 500 }, () => overSocket(client));
    const meanwhile = await post(other);
    const results = await Promise.all(flood);
    const refused = results.filter((result) => result.errors?.[0]?.extensions?.code === 'RATE_LIMITED').length;
    const whole = results.filter((result) => !result.errors).length;
    expect(refused + whole).toBe(500);
    expect(refused).toBeGreaterThan(0);
    expect(upstream.peak(token)).toBeLessThanOrEqual(LIMITS.upstreamCalls);
    const answer = (await meanwhile.json()) as FormattedExecutionResult<{ me: { orders: { vehicle: unknown }[] } }>;
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.me.orders).toHaveLength(2);
    // Each operation that ran made its own /auth/me; the refused ones none.
    expect(simulator.requestLog.filter((entry) => entry.operation === 'customerDetails' && entry.bearer === token)).toHaveLength(whole);
    console.info(
      `500 whole orders on one WebSocket: ${whole} answered whole, ${refused} RATE_LIMITED; at most ${upstream.peak(token)} of its upstream calls in flight (cap ${LIMITS.upstreamCalls})`,
    );
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
