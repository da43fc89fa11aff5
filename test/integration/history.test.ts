// Order history (Order.history) through a real gateway on the simulator: recorded from
// queries and from live polls, with the same times and changes as the live updates, paged by
// cursor, bounded (events per order, age, bytes per customer and in all), each customer's own,
// and nothing at all with HISTORY=off. Its Redis side is in history-redis.test.ts.
import { parse } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { createStreamTransport } from '../../src/client/streams.js';
import type { OrderResult } from '../../src/client/index.js';
import { loadConfig } from '../../src/server/config.js';
import { createSimulator, type InProcessSimulator } from '../../src/simulator/server.js';
import type { Order } from '../../src/upstream/models.js';
import { demoCustomer, demoOrders, demoToken, DEMO_USERNAMES } from '../helpers/demo.js';
import { callCounts, inProcessGateway, type TestGateway, type TestGatewayConfig } from '../helpers/harness.js';

const POLL_MS = 250;
const DEFAULTS = loadConfig({}).history!;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface Event {
  observedAt: string;
  changes: { field: string; from: string | null; to: string | null }[];
  cursor: string;
}
interface Result<T> {
  data?: T | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

const HISTORY = `query History($first: Int, $after: String) { orders { id history(first: $first, after: $after) { observedAt changes { field from to } cursor } } }`;

const ONE_ORDER = `query One($id: ID!, $first: Int, $after: String) { order(id: $id) { history(first: $first, after: $after) { observedAt changes { field from to } cursor } } }`;

async function setup(gateway: TestGatewayConfig = {}, simulator?: InProcessSimulator) {
  const upstream = simulator ?? createSimulator({ latencyMs: 0 });
  if (!simulator) cleanups.push(upstream.close);
  const started = inProcessGateway({
    upstream,
    live: { pollIntervalMs: POLL_MS },
    metricsPath: '/metrics',
    ...gateway,
  });
  cleanups.push(started.close);
  /** The caller's orders with a page of each one's history. */
  const history = async (token: string, variables: { first?: number; after?: string } = {}) =>
    (await started.client(token).rawRequest(HISTORY, variables)) as Result<{ orders: { id: string; history: Event[] }[] }>;
  const metric = async (name: string) => {
    const text = await (await started.fetch(`${started.origin}/metrics`)).text();
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.split(' ')[1]);
  };
  return { simulator: upstream, gateway: started, history, metric };
}

/** Changes the order record as the upstream would when the order moves on. */
function advance(order: Order, status: string) {
  order.status = status;
  order.updatedAt = new Date(Date.parse(order.updatedAt ?? '2026-01-01T00:00:00Z') + 60_000).toISOString();
}

/** Reads a stream on demand, each result within 5 s. */
function reader<T>(stream: AsyncGenerator<OrderResult<T>>) {
  const iterator = stream[Symbol.asyncIterator]();
  return async (): Promise<OrderResult<T>> => {
    const result = await Promise.race([
      iterator.next(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no result within 5 s')), 5000)),
    ]);
    if (result.done) throw new Error('the stream ended');
    return result.value;
  };
}

interface Update {
  orderUpdates: { observedAt: string; changes: Event['changes']; order: { id: string; history: { observedAt: string }[] } };
}
const UPDATES = parse(
  'subscription { orderUpdates { observedAt changes { field from to } order { id history(first: 1) { observedAt } } } }',
) as TypedDocumentNode<Update, Record<string, never>>;

function subscribe({ endpoint, fetch }: TestGateway, token: string) {
  const abort = new AbortController();
  cleanups.push(() => abort.abort());
  return reader(createStreamTransport({ endpoint, fetch, accessToken: () => token })(UPDATES, {}, abort.signal));
}

const STATUS_CHANGE = (from: string, to: string) => [
  { field: 'status', from, to },
  { field: 'rawStatus', from, to },
];

describe('Order.history, recorded from queries', () => {
  it('the first reading is the start of the history (no changes), each later change an event, newest first, at no upstream call of its own', async () => {
    const { simulator, gateway, history } = await setup();
    const token = await demoToken(simulator, 'two-orders@demo.test');
    const orders = demoOrders(simulator, 'two-orders@demo.test');

    const first = await history(token);
    expect(first.errors).toBeUndefined();
    expect(first.data!.orders.map((order) => order.history.map((event) => event.changes))).toEqual(orders.map(() => [[]]));
    // The history is read from what is kept: the query's own list call and nothing else.
    expect(callCounts(simulator)).toEqual({ orderDetails: 1 });

    const moving = orders.find((order) => order.status === 'IN_TRANSIT')!;
    const before = moving.updatedAt!;
    advance(moving, 'READY_FOR_PICKUP');
    const second = await history(token);
    expect(callCounts(simulator)).toEqual({ orderDetails: 2 });
    const events = second.data!.orders.find((order) => order.id === moving.id)!.history;
    expect(events.map((event) => event.changes)).toEqual([
      [
        ...STATUS_CHANGE('IN_TRANSIT', 'READY_FOR_PICKUP'),
        { field: 'updatedAt', from: new Date(before).toISOString(), to: moving.updatedAt },
      ],
      [],
    ]);
    expect(Date.parse(events[0]!.observedAt)).toBeGreaterThan(Date.parse(events[1]!.observedAt));
    // The other order did not change: still its first event alone.
    expect(second.data!.orders.find((order) => order.id !== moving.id)!.history).toHaveLength(1);

    // The customer and the whole order list with every history: the two calls of the first wave, nothing more.
    const counted = callCounts(simulator);
    await gateway.client(token).rawRequest('{ me { email orders { id history(first: 100) { observedAt } } } }');
    expect(callCounts(simulator)).toEqual({ orderDetails: counted.orderDetails! + 1, customerDetails: 1 });

    // Reading again without a change records nothing new.
    expect((await history(token)).data!.orders.find((order) => order.id === moving.id)!.history).toEqual(events);
  });

  it('pages by cursor, newest first; `first` out of 1..100 and a foreign or made-up cursor are BAD_USER_INPUT', async () => {
    const { simulator, gateway, history } = await setup();
    const token = await demoToken(simulator, 'two-orders@demo.test');
    const [order, other] = demoOrders(simulator, 'two-orders@demo.test');
    await history(token);
    for (const status of ['A', 'B', 'C', 'D']) {
      advance(order!, status);
      await history(token);
    }
    const all = (await history(token, { first: 100 })).data!.orders.find((o) => o.id === order!.id)!.history;
    expect(all.map((event) => event.changes.find((change) => change.field === 'rawStatus')?.to ?? null)).toEqual([
      'D',
      'C',
      'B',
      'A',
      null,
    ]);
    const page = async (variables: { first: number; after?: string }, id = order!.id) =>
      (await gateway.client(token).rawRequest(ONE_ORDER, { id, ...variables })) as Result<{
        order: { history: Event[] } | null;
      }>;
    const page1 = (await page({ first: 2 })).data!.order!.history;
    expect(page1).toEqual(all.slice(0, 2));
    const page2 = (await page({ first: 2, after: page1[1]!.cursor })).data!.order!.history;
    expect(page2).toEqual(all.slice(2, 4));
    expect((await page({ first: 2, after: page2[1]!.cursor })).data!.order!.history).toEqual(all.slice(4));

    for (const first of [0, 101, -1]) {
      const refused = await page({ first });
      expect(refused.errors!.map((error) => [error.extensions?.code, error.message])).toEqual([
        ['BAD_USER_INPUT', 'first must be from 1 to 100.'],
      ]);
    }
    const otherCursor = (await page({ first: 1 }, other!.id)).data!.order!.history[0]!.cursor;
    for (const after of [otherCursor, 'not-a-cursor', Buffer.from(`1:${order!.id}x`).toString('base64url'), `${page1[1]!.cursor}=`]) {
      const refused = await page({ first: 5, after });
      expect(refused.errors!.map((error) => [error.extensions?.code, error.message])).toEqual([
        ['BAD_USER_INPUT', "after must be the cursor of one of this order's events."],
      ]);
    }
  });
});

describe('Order.history and the live updates', () => {
  it('a poll records the change, and its OrderUpdate carries the same time and changes as the history event', async () => {
    const { simulator, gateway, history } = await setup();
    const token = await demoToken(simulator, 'ready@demo.test');
    const [order] = demoOrders(simulator, 'ready@demo.test');
    const next = subscribe(gateway, token);
    const firstState = await next();
    expect(firstState.data!.orderUpdates.changes).toEqual([]);

    advance(order!, 'DELIVERED');
    const update = (await next()).data!.orderUpdates;
    expect(update.changes.map((change) => change.field)).toEqual(['status', 'rawStatus', 'updatedAt']);
    const events = (await history(token)).data!.orders[0]!.history;
    expect(events[0]).toMatchObject({ observedAt: update.observedAt, changes: update.changes });
    // The first live state is the history's first event: the subscription's poll recorded it.
    expect(events.at(-1)).toMatchObject({ observedAt: firstState.data!.orderUpdates.observedAt, changes: [] });
    expect(events).toHaveLength(2);
    // The event's own order.history is the same history, read at no upstream call: only the
    // subscription's customer check, the polls and the query's list were made.
    expect(update.order.history[0]!.observedAt).toBe(update.observedAt);
    expect(Object.keys(callCounts(simulator)).sort()).toEqual(['customerDetails', 'orderDetails']);
    expect(callCounts(simulator).customerDetails).toBe(1);
  });

  it('a change a query recorded before the poll saw it reaches the stream with the query’s time and changes', async () => {
    const { simulator, gateway, history } = await setup({ live: { pollIntervalMs: 1500 } });
    const token = await demoToken(simulator, 'ready@demo.test');
    const [order] = demoOrders(simulator, 'ready@demo.test');
    const next = subscribe(gateway, token);
    await next();

    advance(order!, 'DELIVERED');
    const recorded = (await history(token)).data!.orders[0]!.history[0]!;
    expect(recorded.changes.map((change) => change.field)).toEqual(['status', 'rawStatus', 'updatedAt']);
    const update = (await next()).data!.orderUpdates;
    expect(update).toMatchObject({ observedAt: recorded.observedAt, changes: recorded.changes });
    // One event for the one change, whoever saw it first.
    expect((await history(token)).data!.orders[0]!.history).toHaveLength(2);
  });
});

describe('Order.history, each customer’s own', () => {
  it('two customers see only their own stories; a forged `sub` gets nothing and records nothing', async () => {
    const { simulator, history, metric } = await setup();
    const ready = await demoToken(simulator, 'ready@demo.test');
    const two = await demoToken(simulator, 'two-orders@demo.test');
    const [readyOrder] = demoOrders(simulator, 'ready@demo.test');
    await history(ready);
    advance(readyOrder!, 'DELIVERED');
    await history(ready);

    const theirs = (await history(two)).data!.orders;
    expect(theirs.map((order) => order.id).sort()).toEqual(
      demoOrders(simulator, 'two-orders@demo.test')
        .map((order) => order.id)
        .sort(),
    );
    expect(theirs.every((order) => order.history.length === 1 && order.history[0]!.changes.length === 0)).toBe(true);
    // order(id:) of another customer's order is null: no history reaches them either way.
    const other = (await (
      await setupEndpoint(simulator)
    )
      .client(two)
      .rawRequest(`query($id: ID!) { order(id: $id) { history { observedAt } } }`, { id: readyOrder!.id })) as Result<{ order: unknown }>;
    expect(other.data!.order).toBeNull();

    const forged = await new SignJWT({ sub: demoCustomer(simulator, 'ready@demo.test').userId })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not-the-simulator-secret-0123456789'));
    const customersBefore = await metric('order_graph_history_customers');
    const attempt = await history(forged);
    expect(attempt.data?.orders ?? null).toBeNull();
    expect(attempt.errors![0]!.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(JSON.stringify(attempt)).not.toContain(readyOrder!.id);
    expect(await metric('order_graph_history_customers')).toBe(customersBefore);
  });
});

/** A second gateway on the same simulator (its own memory). */
async function setupEndpoint(simulator: InProcessSimulator) {
  const started = inProcessGateway({ upstream: simulator });
  cleanups.push(started.close);
  return started;
}

describe('Order.history, bounded', () => {
  it('keeps the newest HISTORY_EVENTS_PER_ORDER events of an order', async () => {
    const { simulator, history } = await setup({ history: { ...DEFAULTS, bounds: { ...DEFAULTS.bounds, eventsPerOrder: 3 } } });
    const token = await demoToken(simulator, 'ready@demo.test');
    const [order] = demoOrders(simulator, 'ready@demo.test');
    for (const status of ['A', 'B', 'C', 'D', 'E']) {
      advance(order!, status);
      await history(token);
    }
    const events = (await history(token, { first: 100 })).data!.orders[0]!.history;
    expect(events.map((event) => event.changes[0]!.to)).toEqual(['E', 'D', 'C']);
  });

  it('drops events older than the age bound: an order left with none starts afresh', async () => {
    const { simulator, history } = await setup({ history: { ...DEFAULTS, bounds: { ...DEFAULTS.bounds, maxAgeMs: 400 } } });
    const token = await demoToken(simulator, 'ready@demo.test');
    const [order] = demoOrders(simulator, 'ready@demo.test');
    await history(token);
    advance(order!, 'A');
    const young = (await history(token)).data!.orders[0]!.history;
    expect(young).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    advance(order!, 'B');
    const events = (await history(token)).data!.orders[0]!.history;
    // Both earlier events are past the bound, and the order with them: this reading is its first again.
    expect(events.map((event) => event.changes)).toEqual([[]]);
    expect(Date.parse(events[0]!.observedAt)).toBeGreaterThan(Date.parse(young[0]!.observedAt));
  });

  it('keeps a customer’s events within HISTORY_CUSTOMER_BYTES, the oldest events going first', async () => {
    const customerBytes = 10_000;
    const { simulator, history } = await setup({ history: { ...DEFAULTS, bounds: { ...DEFAULTS.bounds, customerBytes } } });
    const token = await demoToken(simulator, 'ready@demo.test');
    const [order] = demoOrders(simulator, 'ready@demo.test');
    for (let i = 0; i < 60; i += 1) {
      advance(order!, `S${i}`);
      await history(token);
    }
    const events = (await history(token, { first: 100 })).data!.orders[0]!.history;
    expect(events.length).toBeGreaterThan(5);
    expect(events.length).toBeLessThan(61);
    expect(events[0]!.changes[0]!.to).toBe('S59');
    // Newest kept, contiguous: the ones that went are the oldest.
    expect(events.map((event) => event.changes[0]!.to)).toEqual(Array.from({ length: events.length }, (_, i) => `S${59 - i}`));
    expect(Buffer.byteLength(JSON.stringify(events))).toBeLessThan(customerBytes * 2);
  });

  it('keeps the histories within HISTORY_BYTES in all, the least recently used customers evicted', async () => {
    const totalBytes = 6_000;
    const { simulator, history, metric } = await setup({ history: { ...DEFAULTS, totalBytes } });
    const users = DEMO_USERNAMES.filter((username) => username !== 'no-orders@demo.test');
    for (const user of users) await history(await demoToken(simulator, user));
    expect(await metric('order_graph_history_bytes')).toBeLessThanOrEqual(totalBytes);
    const kept = await metric('order_graph_history_customers');
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(users.length);
    // The first customer was evicted: its events starts afresh (its first reading again, nothing else).
    const early = (await history(await demoToken(simulator, 'early@demo.test'))).data!.orders;
    expect(early.every((order) => order.history.length === 1)).toBe(true);
  });
});

describe('HISTORY=off', () => {
  it('keeps nothing: every history is empty, no store exists, first is still checked', async () => {
    const { simulator, history, metric } = await setup({ history: null });
    const token = await demoToken(simulator, 'ready@demo.test');
    const [order] = demoOrders(simulator, 'ready@demo.test');
    await history(token);
    advance(order!, 'DELIVERED');
    const after = await history(token);
    expect(after.data!.orders[0]!.history).toEqual([]);
    expect(await metric('order_graph_history_customers')).toBeUndefined();
    expect(await metric('order_graph_history_bytes')).toBeUndefined();
    expect((await history(token, { first: 0 })).errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it('a restart is a fresh events without Redis', async () => {
    const simulator = createSimulator({ latencyMs: 0 });
    cleanups.push(simulator.close);
    const token = await demoToken(simulator, 'ready@demo.test');
    const [order] = demoOrders(simulator, 'ready@demo.test');
    const first = await setup({}, simulator);
    await first.history(token);
    advance(order!, 'DELIVERED');
    expect((await first.history(token)).data!.orders[0]!.history).toHaveLength(2);
    await first.gateway.close();
    const second = await setup({}, simulator);
    expect((await second.history(token)).data!.orders[0]!.history.map((event) => event.changes)).toEqual([[]]);
  });
});
