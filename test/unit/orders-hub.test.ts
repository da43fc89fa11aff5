// The orders hub on its own, over an upstream function that counts its calls: what a stream
// holds for a reader that does not read, and which budget each event is fetched within.
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveItem } from '../../src/graph/context.js';
import type { ScopeLimits } from '../../src/upstream/scope.js';
import { createOrdersHub, type OrdersHub } from '../../src/live/orders-hub.js';
import type { Order } from '../../src/upstream/models.js';

const POLL_MS = 30;
const ORDERS = 2000;

const hubs: OrdersHub[] = [];
afterEach(async () => {
  while (hubs.length) await hubs.pop()!.close();
});

/** A hub over a customer with `count` orders whose `updatedAt` moves on with `bump()`; it records each poll's budget. */
function hubOver(count: number) {
  let generation = 0;
  const polls: ScopeLimits[] = [];
  const hub = createOrdersHub({
    limits: { pollIntervalMs: POLL_MS, perCustomer: 50, perAddress: 50, snapshotBytes: 64 * 1024 * 1024 },
    requestLimits: { deadlineMs: 10_000, budget: { calls: 100, concurrency: 16, retries: 4 } },
    fetchOrders: async (_token, limits) => {
      polls.push(limits);
      return Array.from(
        { length: count },
        (_, i) =>
          ({
            id: `o${i}`,
            reservationId: `R${i}`,
            status: 'READY_FOR_PICKUP',
            updatedAt: new Date(Date.UTC(2026, 0, 1) + generation * 60_000).toISOString(),
          }) as Order,
      );
    },
    checkToken: async () => 'c',
  });
  hubs.push(hub);
  const watch = () =>
    hub
      .watch({ customerId: 'c', token: 't', expiresAt: null, address: null, orderId: null, confirmedAt: Date.now() })
      [Symbol.asyncIterator]();
  return { hub, polls, watch, bump: () => (generation += 1), generation: () => generation };
}

async function until(condition: () => boolean) {
  for (const started = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 5))) {
    if (Date.now() - started > 10_000) throw new Error('the condition did not hold within 10 s');
  }
}

/** The next item, or 'none' when none comes within a few poll intervals. */
async function nextItem(stream: AsyncIterator<LiveItem>): Promise<LiveItem | 'none' | 'ended'> {
  const result = await Promise.race([stream.next(), new Promise<'none'>((resolve) => setTimeout(() => resolve('none'), POLL_MS * 5))]);
  if (result === 'none') return 'none';
  return result.done ? 'ended' : result.value;
}

const update = (item: LiveItem | 'none' | 'ended') => {
  if (typeof item === 'string' || !('update' in item))
    throw new Error(`expected an update, got ${typeof item === 'string' ? item : item.error.message}`);
  return item;
};

describe('a live stream', () => {
  it('of a 2,000-order customer, not read while every order changes three times: it then holds one event per order, each with the latest state', async () => {
    const { polls, watch, bump } = hubOver(ORDERS);
    const stream = watch();
    const read = [];
    for (let i = 0; i < 10; i++) read.push(update(await nextItem(stream)));
    for (let i = 0; i < 3; i++) {
      const before = polls.length;
      bump();
      await until(() => polls.length >= before + 2);
    }
    for (let item = await nextItem(stream); item !== 'none'; item = await nextItem(stream)) read.push(update(item));

    // The first state of every order, and one merged change for each of the 10 read before the pause.
    expect(read).toHaveLength(ORDERS + 10);
    const latest = new Date(Date.UTC(2026, 0, 1) + 3 * 60_000).toISOString();
    expect(read.slice(10, ORDERS).every(({ update: { order, changes } }) => order.updatedAt === latest && changes.length === 0)).toBe(true);
    expect(read.slice(ORDERS).map(({ update: { order, changes } }) => [order.id, changes])).toEqual(
      read.slice(0, 10).map(({ update: { order } }) => [order.id, [{ field: 'updatedAt', from: '2026-01-01T00:00:00.000Z', to: latest }]]),
    );
  });

  it('the first state is fetched within the subscribing request’s budget; the events of one poll share that poll’s budget, across streams', async () => {
    const { polls, watch, bump } = hubOver(3);
    const streams = [watch(), watch()];
    for (const stream of streams) for (let i = 0; i < 3; i++) expect(update(await nextItem(stream)).limits).toBeNull();

    const before = polls.length;
    bump();
    const changes = await Promise.all(
      streams.map(async (stream) => [update(await nextItem(stream)), update(await nextItem(stream)), update(await nextItem(stream))]),
    );
    const budgets = new Set(changes.flat().map((item) => item.limits!.budget));
    // One budget for the six events, and it is the one the poll's own call was taken from.
    expect(budgets.size).toBe(1);
    const poll = polls.slice(before).find((limits) => budgets.has(limits.budget));
    expect(poll).toBeDefined();
    expect(changes.flat().every((item) => item.limits!.deadline >= poll!.deadline)).toBe(true);

    bump();
    const next = update(await nextItem(streams[0]!));
    expect(budgets.has(next.limits!.budget)).toBe(false);
  });
});
