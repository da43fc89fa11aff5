// Live streams inside the budgets, against a hostile upstream whose callers have as many
// orders as their bearer says (`orders-2000`): upstream calls per poll for all of a
// customer's streams, a first state that reaches its reader whole, a reader that pauses,
// and the bytes the live snapshots may take.
import { afterEach, describe, expect, it } from 'vitest';
import { capturedLogLines } from '../helpers/log-capture.js';
import { inProcessGateway, startGateway, type TestGateway, type TestGatewayConfig } from '../helpers/harness.js';
import { createStubUpstream, json, startStubUpstream, type InProcessStubHandler } from '../helpers/stub-upstream.js';
import { DEFAULT_UPSTREAM_CALLS } from '../../src/server/config.js';
import { PER_ORDER_FIELDS } from '../helpers/whole-order.js';

const POLL_MS = 400;
const ORDERS = 2000;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const BASE_TIME = Date.UTC(2026, 0, 1);

/**
 * The upstream: a bearer `orders-N~name` is customer `orders-N` (the part before `~`) with N
 * orders; each order's `updatedAt` moves on with `bump()`. It counts every call it gets. In
 * process, unless on a socket (`sockets`) where the socket is the subject.
 */
async function hostileUpstream({ latencyMs = 5, trim = 'Long Range All-Wheel Drive', sockets = false } = {}) {
  const generations = new Map<number, number>();
  const orders = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      id: `o${i}`,
      reservationId: `R-o${i}`,
      userId: 'u',
      status: 'READY_FOR_PICKUP',
      updatedAt: new Date(BASE_TIME + (generations.get(i) ?? 0) * 60_000).toISOString(),
      product: { currencyCode: 'USD', model: 'Model Y', trim },
    }));
  const handler: InProcessStubHandler = (request, res) => {
    const customer = /^Bearer (orders-(\d+))/.exec(request.authorization ?? '');
    setTimeout(() => {
      if (res.destroyed) return;
      if (!customer) return json(res, 401, { code: 'UNAUTHORIZED' });
      const { path } = request;
      if (path.endsWith('/auth/me')) return json(res, 200, { id: customer[1] });
      if (path.endsWith('/v2/order/user')) return json(res, 200, orders(Number(customer[2])));
      if (path.endsWith('/order/estimate')) return json(res, 200, { orderId: 'o', currencyCode: 'USD', total: 1, amountDue: 1 });
      if (path.includes('/order-address/findAll/') || path.endsWith('/order-payments')) return json(res, 200, []);
      json(res, 404, { code: 'NOT_FOUND' });
    }, latencyMs);
  };
  const stub = sockets ? await startStubUpstream(handler) : createStubUpstream(handler);
  cleanups.push(stub.close);
  const kind = (path: string) => (path.endsWith('/auth/me') ? 'customer' : path.endsWith('/v2/order/user') ? 'poll' : 'perOrder');
  return {
    stub,
    /** Moves the first `count` orders (all by default) on by one minute. */
    bump(count = ORDERS) {
      for (let i = 0; i < count; i++) generations.set(i, (generations.get(i) ?? 0) + 1);
    },
    updatedAt: (generation: number) => new Date(BASE_TIME + generation * 60_000).toISOString(),
    /** Calls since the `from`th, by kind: the customer check, polls, per-order calls; of one gateway request alone when given its id. */
    calls(from = 0, requestId?: string) {
      const counts = { customer: 0, poll: 0, perOrder: 0 };
      for (const request of stub.requests.slice(from)) {
        if (!requestId || request.headers['x-request-id'] === requestId) counts[kind(request.path)] += 1;
      }
      return counts;
    },
    polls: () => stub.requests.filter((request) => kind(request.path) === 'poll').length,
  };
}

/** A gateway in front of the upstream: in process in front of one in process, else on a socket. */
async function gatewayFor(upstream: Awaited<ReturnType<typeof hostileUpstream>>, options: TestGatewayConfig = {}) {
  const settings = { upstreamTimeoutMs: 5000, ...options, live: { pollIntervalMs: POLL_MS, ...options.live } };
  const { stub } = upstream;
  const gateway =
    'handle' in stub ? inProcessGateway({ upstream: stub, ...settings }) : await startGateway({ upstreamUrls: stub.urls, ...settings });
  cleanups.push(gateway.close);
  return gateway;
}

interface Event {
  data: {
    orderUpdates: {
      changes: { field: string; from: string | null; to: string | null }[];
      order: Record<string, unknown> & { id: string; updatedAt: string };
    };
  } | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** A subscription over SSE, read only when asked to (a reader that stops reading holds the stream back). */
async function subscribe(gateway: TestGateway, token: string, query: string) {
  const abort = new AbortController();
  cleanups.push(() => abort.abort());
  const response = await gateway.fetch(gateway.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
    signal: abort.signal,
  });
  const body = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: Event[] = [];
  const updates: Event[] = [];
  let buffer = '';
  let ended = false;
  // A read not yet answered is kept for the next turn: its chunk must not be lost.
  let reading: ReturnType<typeof body.read> | undefined;
  const take = (block: string) => {
    if (/^event: complete/m.test(block)) ended = true;
    const data = /^data: (.+)$/m.exec(block)?.[1];
    if (!/^event: next/m.test(block) || !data) return;
    const event = JSON.parse(data) as Event;
    events.push(event);
    if (event.data) updates.push(event);
  };
  return {
    /** The subscribing request's id: its calls carry it upstream. */
    requestId: response.headers.get('x-request-id')!,
    /** Every event, and those with an update. */
    events,
    updates,
    /** The events without an update: errors (a failed poll's, or the stream's last). */
    failures: () => events.filter((event) => !event.data),
    ended: () => ended,
    /** Reads until the condition holds or the stream ends; false when it ended first or the time ran out. */
    async readUntil(condition: () => boolean, timeoutMs = 60_000): Promise<boolean> {
      const started = Date.now();
      while (!condition()) {
        if (ended || Date.now() - started > timeoutMs) return false;
        reading ??= body.read();
        const chunk = await Promise.race([reading, new Promise<'later'>((resolve) => setTimeout(() => resolve('later'), 1000))]);
        if (chunk === 'later') continue;
        reading = undefined;
        if (chunk.done) {
          ended = true;
          continue;
        }
        buffer += chunk.value;
        for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
          take(buffer.slice(0, at));
          buffer = buffer.slice(at + 2);
        }
      }
      return true;
    },
  };
}

/**
 * Events without an update may only be polls that failed (the stream survives them): on a
 * busy machine a 2,000-order poll now and then takes longer than UPSTREAM_TIMEOUT_MS, or
 * meets a keep-alive connection the stub had just closed.
 */
function expectOnlyPollFailures(failures: Event[]) {
  for (const failure of failures) {
    expect(failure.errors).toEqual([
      expect.objectContaining({ extensions: { code: expect.stringMatching(/^UPSTREAM_(TIMEOUT|ERROR)$/), operation: 'orderDetails' } }),
    ]);
  }
}

const codesOf = (events: Event[]) => [...new Set(events.flatMap((event) => (event.errors ?? []).map((error) => error.extensions?.code)))];

/** The whole order as a subscriber asks for it: every per-order call for each order. */
const WHOLE_ORDER_UPDATES = `subscription { orderUpdates { changes { field from to } order {
  id updatedAt ${PER_ORDER_FIELDS} estimate { total { amount } } addresses { id } payments { id } } } }`;
/** Two per-order calls for each order. */
const SMALL_UPDATES = 'subscription { orderUpdates { changes { field from to } order { id updatedAt vehicle { vin } pickup { name } } } }';

/** Resolves once the condition holds (checked every 20 ms), failing after the timeout. */
async function until(condition: () => boolean, timeoutMs = 20_000) {
  for (const started = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() - started > timeoutMs) throw new Error(`the condition did not hold within ${timeoutMs} ms`);
  }
}

describe('a 2,000-order customer', () => {
  it('one subscription: its whole first state reaches a reader that reads, within the subscribing request’s budget; a poll that changes every order makes at most the budget’s calls in all', async () => {
    const upstream = await hostileUpstream();
    const gateway = await gatewayFor(upstream);
    const stream = await subscribe(gateway, 'orders-2000', WHOLE_ORDER_UPDATES);

    const whole = await stream.readUntil(() => stream.updates.length >= ORDERS);
    const subscribing = upstream.calls(0, stream.requestId);
    console.info(
      `2,000-order subscription, first state: ${stream.updates.length} events read${stream.ended() ? ' (then the stream ended)' : ''}; ${subscribing.customer + subscribing.perOrder} calls for the subscribing request (customer check and per-order), ${upstream.polls()} polls`,
    );
    expect(whole).toBe(true);
    const first = stream.updates.slice(0, ORDERS);
    expect(new Set(first.map((event) => event.data!.orderUpdates.order.id)).size).toBe(ORDERS);
    expect(first.every((event) => event.data!.orderUpdates.changes.length === 0)).toBe(true);
    // The first orders are whole; the fields past the budget say so, one error each.
    expect(first[0]!.errors ?? []).toEqual([]);
    expect(first[0]!.data!.orderUpdates.order).toMatchObject({ estimate: { total: { amount: '1.00' } }, addresses: [], payments: [] });
    expect(codesOf(first)).toEqual(['UPSTREAM_BUDGET_EXCEEDED']);
    expect(first.filter((event) => event.errors?.length).length).toBeGreaterThan(ORDERS - 20);
    expect(subscribing.customer + subscribing.perOrder).toBeLessThanOrEqual(DEFAULT_UPSTREAM_CALLS);

    const mark = upstream.stub.requests.length;
    upstream.bump();
    const changed = await stream.readUntil(() => stream.updates.length >= 2 * ORDERS);
    const polled = upstream.calls(mark);
    console.info(
      `2,000-order subscription, a poll that changed every order: ${changed ? ORDERS : stream.updates.length - ORDERS} change events read; ${polled.perOrder} per-order calls beside ${polled.poll} polls`,
    );
    expect(changed).toBe(true);
    const changes = stream.updates.slice(ORDERS, 2 * ORDERS);
    expect(changes.map((event) => event.data!.orderUpdates.changes)).toEqual(
      Array(ORDERS).fill([{ field: 'updatedAt', from: upstream.updatedAt(0), to: upstream.updatedAt(1) }]),
    );
    expect(codesOf(changes)).toEqual(['UPSTREAM_BUDGET_EXCEEDED']);
    // The poll that saw the change and its events share one budget; the other polls found nothing to send.
    expect(1 + polled.perOrder).toBeLessThanOrEqual(DEFAULT_UPSTREAM_CALLS);
    expect(polled.perOrder).toBeGreaterThan(90);
    expectOnlyPollFailures(stream.failures());
    expect(stream.ended()).toBe(false);
  }, 120_000);

  it('ten subscriptions: each first state within its own request’s budget, and at most the budget’s calls per poll for all ten together', async () => {
    const upstream = await hostileUpstream();
    const gateway = await gatewayFor(upstream);
    const bearers = Array.from({ length: 10 }, (_, i) => `orders-2000~s${i}`);
    const streams = await Promise.all(bearers.map((bearer) => subscribe(gateway, bearer, SMALL_UPDATES)));

    const whole = await Promise.all(streams.map((stream) => stream.readUntil(() => stream.updates.length >= ORDERS)));
    const total = upstream.calls();
    console.info(
      `ten 2,000-order subscriptions, first states: ${streams.map((stream) => stream.updates.length).join('/')} events read; ${total.customer + total.perOrder} customer checks and per-order calls in all (each stream’s own within its budget), ${total.poll} polls`,
    );
    expect(whole).toEqual(Array(10).fill(true));
    for (const stream of streams) {
      const own = upstream.calls(0, stream.requestId);
      expect(own.customer + own.perOrder).toBeLessThanOrEqual(DEFAULT_UPSTREAM_CALLS);
    }

    const mark = upstream.stub.requests.length;
    upstream.bump();
    const changed = await Promise.all(streams.map((stream) => stream.readUntil(() => stream.updates.length >= 2 * ORDERS)));
    const polled = upstream.calls(mark);
    console.info(
      `ten 2,000-order subscriptions, a poll that changed every order: ${polled.perOrder} per-order calls for all ten streams beside ${polled.poll} polls`,
    );
    expect(changed).toEqual(Array(10).fill(true));
    for (const stream of streams) expectOnlyPollFailures(stream.failures());
    for (const stream of streams)
      expect(stream.updates.slice(ORDERS).every((event) => event.data!.orderUpdates.changes.length === 1)).toBe(true);
    expect(1 + polled.perOrder).toBeLessThanOrEqual(DEFAULT_UPSTREAM_CALLS);
    expect(streams.some((stream) => stream.ended())).toBe(false);
  }, 180_000);

  it('a reader that stops reading while every order changes three times, then reads: each order’s latest state, each event’s changes from the state it last had, at most one change per order', async () => {
    // Large events (the record's fields only, no per-order call, about 8 kB each), so that the
    // stream fills the sockets' buffers long before its first state is through.
    const upstream = await hostileUpstream({ latencyMs: 0, trim: 'x'.repeat(400), sockets: true });
    const gateway = await gatewayFor(upstream);
    const stream = await subscribe(
      gateway,
      'orders-2000',
      `subscription { orderUpdates { changes { field from to } order { id updatedAt ${Array.from({ length: 19 }, (_, i) => `p${i}: product { trim }`).join(' ')} } } }`,
    );
    expect(await stream.readUntil(() => stream.updates.length >= 10)).toBe(true);
    for (let generation = 1; generation <= 3; generation++) {
      const polls = upstream.polls();
      upstream.bump();
      await until(() => upstream.polls() >= polls + 2);
    }
    // Read until every order's latest state arrived (or the stream ended).
    const latest = new Map<string, string>();
    let seen = 0;
    const caughtUp = await stream.readUntil(() => {
      for (const event of stream.updates.slice(seen))
        latest.set(event.data!.orderUpdates.order.id, event.data!.orderUpdates.order.updatedAt);
      seen = stream.updates.length;
      return latest.size === ORDERS && [...latest.values()].every((at) => at === upstream.updatedAt(3));
    });
    console.info(
      `a reader that paused while 2,000 orders changed three times: ${stream.updates.length} events once caught up (not ${ORDERS * 4})`,
    );
    expect(caughtUp).toBe(true);
    expect(stream.ended()).toBe(false);
    expectOnlyPollFailures(stream.failures());
    expect(codesOf(stream.updates)).toEqual([]);
    // Each order's events form one chain: each change starts from the state its previous event showed.
    const shown = new Map<string, string>();
    for (const event of stream.updates) {
      const { order, changes } = event.data!.orderUpdates;
      const before = shown.get(order.id);
      if (before === undefined) expect(changes).toEqual([]);
      else expect(changes).toEqual([{ field: 'updatedAt', from: before, to: order.updatedAt }]);
      shown.set(order.id, order.updatedAt);
    }
    // Held back, the changes were merged: a first state and at most one change per order, not
    // the 8,000 events of a queue that keeps each.
    expect(stream.updates.length).toBeLessThanOrEqual(ORDERS * 2);
  }, 120_000);
});

describe('live snapshots are bounded in bytes', () => {
  it('a customer whose snapshot does not fit in LIVE_SNAPSHOT_BYTES: its streams end with RATE_LIMITED; the others go on', async () => {
    const upstream = await hostileUpstream({ latencyMs: 0 });
    const gateway = await gatewayFor(upstream, { live: { snapshotBytes: 200_000 } });
    const small = await subscribe(gateway, 'orders-10', SMALL_UPDATES);
    expect(await small.readUntil(() => small.updates.length >= 10)).toBe(true);

    const large = await subscribe(gateway, 'orders-2000', SMALL_UPDATES);
    await large.readUntil(() => large.ended(), 10_000);
    console.info(
      `LIVE_SNAPSHOT_BYTES 200,000: a 2,000-order stream got ${large.events.length} events (${codesOf(large.events).join(', ') || 'no error'})${large.ended() ? ', then ended' : ''}`,
    );
    expect(large.events).toHaveLength(1);
    expect(large.events[0]!.data).toBeNull();
    expect(large.events[0]!.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/too large to follow live/),
        extensions: expect.objectContaining({ code: 'RATE_LIMITED' }),
      }),
    ]);
    expect(large.ended()).toBe(true);
    expect(capturedLogLines.some((line) => /"level":40/.test(line) && /live snapshot refused/.test(line))).toBe(true);

    // The small customer's stream is untouched: its next change arrives.
    upstream.bump(1);
    expect(await small.readUntil(() => small.updates.length >= 11)).toBe(true);
    expect(small.updates[10]!.data!.orderUpdates.changes).toEqual([
      { field: 'updatedAt', from: upstream.updatedAt(0), to: upstream.updatedAt(1) },
    ]);
    expectOnlyPollFailures(small.failures());
    expect(small.ended()).toBe(false);
  });
});
