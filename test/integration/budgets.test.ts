// The request's upstream budget (UPSTREAM_BUDGET_*), against a per-test upstream in process:
// what one request can make the gateway do downstream (fan-out, calls in flight,
// retries, credential calls), and what it shows in the request's log line.
import { afterEach, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { wholeOrderCalls } from '../../src/graph/order-fields.js';
import { DEFAULT_UPSTREAM_CALLS } from '../../src/server/config.js';
import { execute, inProcessGateway, type ResponseError, type TestGateway, type TestGatewayConfig } from '../helpers/harness.js';
import { capturedLogLines } from '../helpers/log-capture.js';
import type { InProcessUpstream } from '../helpers/in-process-transport.js';
import { createStubUpstream, json } from '../helpers/stub-upstream.js';
import { wholeOrders } from '../helpers/whole-order.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const order = (id: string) => ({ id, reservationId: `R-${id}`, userId: 'u', status: 'READY_FOR_PICKUP', product: { currencyCode: 'USD' } });

/**
 * An upstream whose callers each have as many orders as their bearer says (`orders-2000`),
 * answering every call after `latencyMs`; it counts calls, and calls in flight, per bearer.
 */
async function hostileUpstream(latencyMs = 20) {
  const inFlight = new Map<string, number>();
  const mostInFlight = new Map<string, number>();
  const stub = createStubUpstream((request, res) => {
    const bearer = request.authorization ?? '';
    const { path } = request;
    inFlight.set(bearer, (inFlight.get(bearer) ?? 0) + 1);
    mostInFlight.set(bearer, Math.max(mostInFlight.get(bearer) ?? 0, inFlight.get(bearer)!));
    setTimeout(() => {
      inFlight.set(bearer, inFlight.get(bearer)! - 1);
      if (res.destroyed) return;
      if (path.endsWith('/auth/me')) return json(res, 200, { id: 'u' });
      if (path.endsWith('/v2/order/user'))
        return json(
          res,
          200,
          Array.from({ length: Number(/orders-(\d+)/.exec(bearer)?.[1] ?? 1) }, (_, i) => order(`o${i}`)),
        );
      if (path.endsWith('/order/estimate')) return json(res, 200, { orderId: 'o', currencyCode: 'USD', total: 1, amountDue: 1 });
      if (path.includes('/order-address/findAll/') || path.endsWith('/order-payments')) return json(res, 200, []);
      json(res, 404, { code: 'NOT_FOUND' });
    }, latencyMs);
  });
  cleanups.push(stub.close);
  const callsOf = (token: string) => stub.requests.filter((r) => r.authorization === `Bearer ${token}`).length;
  return { stub, callsOf, mostInFlight: (token: string) => mostInFlight.get(`Bearer ${token}`) ?? 0 };
}

async function gatewayFor(upstream: { stub: InProcessUpstream }, options: TestGatewayConfig = {}) {
  const gateway = inProcessGateway({ upstream: upstream.stub, upstreamTimeoutMs: 5000, ...options });
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

  it('three such requests at once do not hold up another customer: their one-order whole order is whole, and answered before any of them', async () => {
    const upstream = await hostileUpstream();
    const gateway = await gatewayFor(upstream);
    const alone = await timed(gateway, 'orders-1', WHOLE_ORDERS(16));
    const finished: string[] = [];
    const heavy = ['orders-2000a', 'orders-2000b', 'orders-2000c'].map((token) =>
      timed(gateway, token, WHOLE_ORDERS(100)).then((result) => (finished.push(token), result)),
    );
    await new Promise((resolve) => setTimeout(resolve, 30)); // the heavy ones are fanning out
    const beside = await timed(gateway, 'orders-1b', WHOLE_ORDERS(16));
    finished.push('orders-1b');
    const heavyResults = await Promise.all(heavy);
    expect(alone.errors).toEqual([]);
    expect(beside.errors).toEqual([]);
    expect(beside.data.me.orders[0].estimate.total.amount).toBe('1.00');
    expect(upstream.callsOf('orders-1b')).toBe(wholeOrderCalls(1));
    // Its calls did not queue behind theirs: it came back first (an order, not a time:
    // the figures are in the log).
    expect(finished[0]).toBe('orders-1b');
    console.info(
      `one-order whole order: ${alone.ms.toFixed(0)} ms alone, ${beside.ms.toFixed(0)} ms beside three 100-order requests (they took ${heavyResults.map((r) => r.ms.toFixed(0)).join(', ')} ms)`,
    );
  });

  it('retries are capped per request, and count as calls: a 503 on every per-order call adds at most the retries a request may make', async () => {
    const stub = createStubUpstream((request, res) => {
      if (request.path.endsWith('/auth/me')) return json(res, 200, { id: 'u' });
      if (request.path.endsWith('/v2/order/user')) return json(res, 200, [order('a'), order('b')]);
      json(res, 503, {});
    });
    cleanups.push(stub.close);
    const gateway = await gatewayFor({ stub }, { upstreamRetries: 1, upstreamBudget: { calls: 100, concurrency: 16, retries: 4 } });
    await timed(gateway, 't', WHOLE_ORDERS(16), 'retried');
    // The whole order's calls, plus 4 retries rather than one for each per-order call.
    expect(stub.requests).toHaveLength(wholeOrderCalls(2) + 4);
    expect(requestLine('retried')).toMatchObject({ upstreamCalls: wholeOrderCalls(2) + 4 });
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
        message: 'One login or refreshTokens per request: this operation has 20.',
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
