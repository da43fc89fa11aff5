// The upstream budgets (UPSTREAM_BUDGET_*), against a per-test upstream over real HTTP whose
// customers have as many orders as their bearer says: what one request can make the gateway do
// downstream (fan-out, calls in flight, credential calls) and what it shows in the request's
// log line; and a live stream's, its first state within the subscribing request's budget and
// each poll within one budget for all of a customer's streams. (The retries a budget allows,
// with the other retry rules, are in upstream-http.test.ts.)
import { afterEach, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { wholeOrderCalls } from '../../src/graph/order-fields.js';
import { DEFAULT_UPSTREAM_CALLS } from '../../src/server/config.js';
import { execute, startGateway, type ResponseError, type TestGateway, type TestGatewayConfig } from '../helpers/harness.js';
import { until } from '../helpers/intervals.js';
import { capturedLogLines } from '../helpers/log-capture.js';
import {
  expectOnlyPollFailures,
  liveCodes,
  manyOrdersUpstream,
  SMALL_UPDATES,
  subscribeSse,
  WHOLE_ORDER_UPDATES,
  type ManyOrdersUpstream,
} from '../helpers/many-orders.js';
import { wholeOrders } from '../helpers/whole-order.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** The upstream of these tests: each bearer's customer has the orders it says (`orders-2000`), each call answered after `latencyMs`. */
const hostileUpstream = (latencyMs = 20, hold?: NonNullable<Parameters<typeof manyOrdersUpstream>[1]>['hold']) =>
  manyOrdersUpstream(cleanups, { latencyMs, hold });

async function gatewayFor(upstream: ManyOrdersUpstream, options: TestGatewayConfig = {}) {
  const gateway = await startGateway({ upstreamUrls: upstream.stub.urls, upstreamTimeoutMs: 5000, ...options });
  cleanups.push(gateway.close);
  return gateway;
}

const WHOLE_ORDERS = (first: number) => wholeOrders(first, 'estimate { total { amount } }');

async function timed(gateway: TestGateway, token: string, query: string, requestId?: string) {
  const client = gateway.client(token);
  if (requestId) client.setHeader('x-request-id', requestId);
  const started = performance.now();
  const response = await client.rawRequest<any>(query);
  return { data: response.data, errors: (response.errors ?? []) as unknown as ResponseError[], ms: performance.now() - started };
}
const codes = (errors: ResponseError[]) => [...new Set(errors.map((e) => e.extensions?.code))];
/** The gateway's log line for the request sent with this X-Request-Id. */
const requestLine = (requestId: string) =>
  capturedLogLines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((line) => line.msg === 'request' && line.requestId === requestId);

describe('fan-out', () => {
  it('a 2,000-order customer: the whole order is its first page of 16 orders, within the default budget', async () => {
    const upstream = await hostileUpstream();
    const gateway = await gatewayFor(upstream);
    const heapBefore = process.memoryUsage().heapUsed;
    const { data, errors, ms } = await timed(gateway, 'orders-2000', WHOLE_ORDERS(16));
    const heapGrowthMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
    expect(errors).toEqual([]);
    expect(data.me.orderCount).toBe(2000);
    expect(data.me.orders).toHaveLength(16);
    expect(upstream.callsOf('orders-2000')).toBe(wholeOrderCalls(16));
    expect(wholeOrderCalls(16)).toBeLessThanOrEqual(DEFAULT_UPSTREAM_CALLS);
    // The default page is the whole-order document's too.
    const whole = await execute(gateway.client('orders-2000b'), WholeOrderDocument);
    expect(whole.errors).toEqual([]);
    expect(whole.data?.me?.orders).toHaveLength(16);
    console.info(
      `2,000-order customer, whole order (first page): ${upstream.callsOf('orders-2000')} upstream calls, ${ms.toFixed(0)} ms, heap +${heapGrowthMb.toFixed(1)} MB`,
    );
  });

  it('asking for 100 whole orders: at most the budget’s calls, 16 in flight at once; the calls past the budget are refused without a request, their fields UPSTREAM_BUDGET_EXCEEDED', async () => {
    // Calls held 300 ms: a turn's sixteen are all in flight before the first is answered,
    // however busy the machine.
    const upstream = await hostileUpstream(300);
    const gateway = await gatewayFor(upstream);
    const { data, errors, ms } = await timed(gateway, 'orders-2000', WHOLE_ORDERS(100), 'hundred-orders');
    expect(upstream.callsOf('orders-2000')).toBe(DEFAULT_UPSTREAM_CALLS);
    expect(upstream.mostInFlight('orders-2000')).toBe(16);
    expect(data.me.orders).toHaveLength(100);
    expect(codes(errors)).toEqual(['UPSTREAM_BUDGET_EXCEEDED']);
    // Every per-order call not made is one null field with the code.
    const refusedFields = errors.length;
    expect(refusedFields).toBeGreaterThanOrEqual(wholeOrderCalls(100) - DEFAULT_UPSTREAM_CALLS);
    expect(errors[0]!.message).toContain(`budget of ${DEFAULT_UPSTREAM_CALLS} upstream calls`);
    // The request's log line counts the calls made and those refused, of all those asked.
    expect(requestLine('hundred-orders')).toMatchObject({
      upstreamCalls: DEFAULT_UPSTREAM_CALLS,
      upstreamCallsRefused: wholeOrderCalls(100) - DEFAULT_UPSTREAM_CALLS,
    });
    console.info(
      `100 whole orders asked: ${DEFAULT_UPSTREAM_CALLS} upstream calls, at most ${upstream.mostInFlight('orders-2000')} in flight, ${refusedFields} fields UPSTREAM_BUDGET_EXCEEDED, ${ms.toFixed(0)} ms`,
    );
  });

  it('three such requests at once do not hold up another customer: their one-order whole order is whole, and answered while all of theirs wait', async () => {
    // The heavy requests' per-order calls wait until the test lets them go: all three have a
    // full turn of calls in flight, held, while the other customer's request is asked and answered.
    const HEAVY = ['orders-2000a', 'orders-2000b', 'orders-2000c'];
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    const upstream = await hostileUpstream(20, (token, kind) => (HEAVY.includes(token) && kind === 'perOrder' ? gate : undefined));
    const gateway = await gatewayFor(upstream, { upstreamTimeoutMs: 60_000, requestDeadlineMs: 60_000 });
    const alone = await timed(gateway, 'orders-1', WHOLE_ORDERS(16));
    const finished: string[] = [];
    const heavy = HEAVY.map((token) => timed(gateway, token, WHOLE_ORDERS(100)).then((result) => (finished.push(token), result)));
    // The heavy ones are fanning out: each has its request's concurrency of calls waiting.
    await until(() => HEAVY.every((token) => upstream.mostInFlight(token) === 16));
    const beside = await timed(gateway, 'orders-1b', WHOLE_ORDERS(16));
    finished.push('orders-1b');
    letGo();
    const heavyResults = await Promise.all(heavy);
    expect(alone.errors).toEqual([]);
    expect(beside.errors).toEqual([]);
    expect(beside.data.me.orders[0].estimate.total.amount).toBe('1.00');
    expect(upstream.callsOf('orders-1b')).toBe(wholeOrderCalls(1));
    // Its calls did not queue behind theirs: it came back while theirs waited (an order, not a
    // time: the figures are in the log).
    expect(finished[0]).toBe('orders-1b');
    expect(heavyResults.every((result) => result.data.me.orders.length === 100)).toBe(true);
    console.info(
      `one-order whole order: ${alone.ms.toFixed(0)} ms alone, ${beside.ms.toFixed(0)} ms beside three 100-order requests (they took ${heavyResults.map((r) => r.ms.toFixed(0)).join(', ')} ms)`,
    );
  });
});

describe('credential operations', () => {
  const aliases = (field: string, args: string) =>
    `mutation { ${Array.from({ length: 20 }, (_, i) => `a${i}: ${field}(${args}) { accessToken }`).join(' ')} }`;

  it.each([
    ['login', 'username: "u@x.test", password: "p"'],
    ['refreshTokens', 'refreshToken: "r"'],
  ])('20 aliased %s: refused in validation, no upstream call', async (field, args) => {
    const upstream = await hostileUpstream();
    const gateway = await gatewayFor(upstream);
    const response = await gateway.fetch(gateway.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query: aliases(field, args) }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: ResponseError[] };
    expect(body.errors).toEqual([
      expect.objectContaining({
        message: 'One login, refreshTokens or refresh token handed over per request: this operation has 20.',
        extensions: { code: 'CREDENTIAL_OPERATIONS_LIMIT' },
      }),
    ]);
    expect(upstream.stub.requests).toHaveLength(0);
  });

  it('a fragment or a login beside a refresh counts too', async () => {
    const upstream = await hostileUpstream();
    const gateway = await gatewayFor(upstream);
    const query =
      'mutation { ...F refreshTokens(refreshToken: "r") { accessToken } } fragment F on Mutation { login(username: "u", password: "p") { accessToken } }';
    const { errors } = await timed(gateway, 't', query).catch((error) => ({ errors: error.response.errors as ResponseError[] }));
    expect(codes(errors)).toEqual(['CREDENTIAL_OPERATIONS_LIMIT']);
    expect(upstream.stub.requests).toHaveLength(0);
  });
});

/** A live poll every 400 ms. */
const LIVE = { live: { pollIntervalMs: 400 } };
// 500 orders: a first state of the whole order asks for some 3,000 calls, 30 budgets (2,000
// orders only made the same counts slower to reach).
const LIVE_ORDERS = 500;

describe(`a live stream of a ${LIVE_ORDERS}-order customer`, () => {
  it('one subscription: its whole first state reaches a reader that reads, within the subscribing request’s budget; a poll that changes every order makes at most the budget’s calls in all', async () => {
    const upstream = await manyOrdersUpstream(cleanups);
    const gateway = await gatewayFor(upstream, LIVE);
    const stream = await subscribeSse(cleanups, gateway.endpoint, `orders-${LIVE_ORDERS}`, WHOLE_ORDER_UPDATES);

    const whole = await stream.readUntil(() => stream.updates.length >= LIVE_ORDERS);
    const subscribing = upstream.calls(0, stream.requestId);
    console.info(
      `${LIVE_ORDERS}-order subscription, first state: ${stream.updates.length} events read${stream.ended() ? ' (then the stream ended)' : ''}; ${subscribing.customer + subscribing.perOrder} calls for the subscribing request (customer check and per-order), ${upstream.polls()} polls`,
    );
    expect(whole).toBe(true);
    const first = stream.updates.slice(0, LIVE_ORDERS);
    expect(new Set(first.map((event) => event.data!.orderUpdates.order.id)).size).toBe(LIVE_ORDERS);
    expect(first.every((event) => event.data!.orderUpdates.changes.length === 0)).toBe(true);
    // The first orders are whole; the fields past the budget say so, one error each.
    expect(first[0]!.errors ?? []).toEqual([]);
    expect(first[0]!.data!.orderUpdates.order).toMatchObject({ estimate: { total: { amount: '1.00' } }, addresses: [], payments: [] });
    expect(liveCodes(first)).toEqual(['UPSTREAM_BUDGET_EXCEEDED']);
    expect(first.filter((event) => event.errors?.length).length).toBeGreaterThan(LIVE_ORDERS - 20);
    expect(subscribing.customer + subscribing.perOrder).toBeLessThanOrEqual(DEFAULT_UPSTREAM_CALLS);

    const mark = upstream.stub.requests.length;
    upstream.bump();
    const changed = await stream.readUntil(() => stream.updates.length >= 2 * LIVE_ORDERS);
    const polled = upstream.calls(mark);
    console.info(
      `${LIVE_ORDERS}-order subscription, a poll that changed every order: ${changed ? LIVE_ORDERS : stream.updates.length - LIVE_ORDERS} change events read; ${polled.perOrder} per-order calls beside ${polled.poll} polls`,
    );
    expect(changed).toBe(true);
    const changes = stream.updates.slice(LIVE_ORDERS, 2 * LIVE_ORDERS);
    expect(changes.map((event) => event.data!.orderUpdates.changes)).toEqual(
      Array(LIVE_ORDERS).fill([{ field: 'updatedAt', from: upstream.updatedAt(0), to: upstream.updatedAt(1) }]),
    );
    expect(liveCodes(changes)).toEqual(['UPSTREAM_BUDGET_EXCEEDED']);
    // The poll that saw the change and its events share one budget; the other polls found nothing to send.
    expect(1 + polled.perOrder).toBeLessThanOrEqual(DEFAULT_UPSTREAM_CALLS);
    expect(polled.perOrder).toBeGreaterThan(90);
    expectOnlyPollFailures(stream.failures());
    expect(stream.ended()).toBe(false);
  }, 120_000);
});

// Ten streams of one customer share each poll's budget. 200 orders are enough to show it: each
// stream's first state asks for 400 calls (four budgets), a poll that changes every order for
// 4,000 across the ten (40 budgets); 2,000 orders only made the same counts slower to reach.
const SHARED_ORDERS = 200;

describe(`ten streams of a ${SHARED_ORDERS}-order customer`, () => {
  it('ten subscriptions: each first state within its own request’s budget, and at most the budget’s calls per poll for all ten together', async () => {
    const upstream = await manyOrdersUpstream(cleanups);
    const gateway = await gatewayFor(upstream, LIVE);
    const bearers = Array.from({ length: 10 }, (_, i) => `orders-${SHARED_ORDERS}~s${i}`);
    const streams = await Promise.all(bearers.map((bearer) => subscribeSse(cleanups, gateway.endpoint, bearer, SMALL_UPDATES)));

    const whole = await Promise.all(streams.map((stream) => stream.readUntil(() => stream.updates.length >= SHARED_ORDERS)));
    const total = upstream.calls();
    console.info(
      `ten 200-order subscriptions, first states: ${streams.map((stream) => stream.updates.length).join('/')} events read; ${total.customer + total.perOrder} customer checks and per-order calls in all (each stream’s own within its budget), ${total.poll} polls`,
    );
    expect(whole).toEqual(Array(10).fill(true));
    for (const stream of streams) {
      const own = upstream.calls(0, stream.requestId);
      expect(own.customer + own.perOrder).toBeLessThanOrEqual(DEFAULT_UPSTREAM_CALLS);
    }

    const mark = upstream.stub.requests.length;
    upstream.bump();
    const changed = await Promise.all(streams.map((stream) => stream.readUntil(() => stream.updates.length >= 2 * SHARED_ORDERS)));
    const polled = upstream.calls(mark);
    console.info(
      `ten 200-order subscriptions, a poll that changed every order: ${polled.perOrder} per-order calls for all ten streams beside ${polled.poll} polls`,
    );
    expect(changed).toEqual(Array(10).fill(true));
    for (const stream of streams) expectOnlyPollFailures(stream.failures());
    for (const stream of streams)
      expect(stream.updates.slice(SHARED_ORDERS).every((event) => event.data!.orderUpdates.changes.length === 1)).toBe(true);
    expect(1 + polled.perOrder).toBeLessThanOrEqual(DEFAULT_UPSTREAM_CALLS);
    expect(polled.perOrder).toBeGreaterThan(90);
    expect(streams.some((stream) => stream.ended())).toBe(false);
  }, 120_000);
});
