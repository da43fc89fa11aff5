// One customer's order history as kept (src/graph/customer-history.ts): an observation recorded
// against the kept state, the bounds (events per order, age, bytes), and the check of a
// history read back; and which order lists the history (src/graph/history.ts) records at all.
import { describe, expect, it } from 'vitest';
import { createHistory } from '../../src/graph/history.js';
import { memoryHistoryStore } from '../../src/graph/history-memory.js';
import { dropAged, fit, observe, parseHistory, type CustomerHistory } from '../../src/graph/customer-history.js';
import { MAX_CUSTOMER_ID_CHARS } from '../../src/graph/order-owner.js';
import type { Order } from '../../src/upstream/models.js';

const order = (id: string, status: string, userId = 'u1'): Order => ({ id, reservationId: `R-${id}`, userId, status });
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

/** A history of `orders` orders, each observed `times` times with a new status each time. */
function historyOf(orders: number, times: number, eventsPerOrder = 100): CustomerHistory {
  let history: CustomerHistory = { orders: [] };
  for (let time = 0; time < times; time += 1) {
    history = observe(
      history,
      Array.from({ length: orders }, (_, i) => order(`o${i}`, `S${time}`)),
      at(time),
      eventsPerOrder,
    ).history;
  }
  return history;
}

describe('observe', () => {
  it('a first event without changes, then one per change, newest first; nothing for no change', () => {
    const first = observe({ orders: [] }, [order('a', 'RESERVED')], at(0), 100);
    expect(first.recorded).toBe(true);
    expect(first.since).toEqual({ a: at(0) });
    const same = observe(first.history, [order('a', 'RESERVED')], at(1), 100);
    expect(same.recorded).toBe(false);
    expect(same.since).toEqual({ a: at(0) });
    const moved = observe(same.history, [order('a', 'ORDER_CONFIRMED')], at(2), 100);
    expect(moved.since).toEqual({ a: at(2) });
    expect(moved.history.orders[0]!.events).toEqual([
      {
        n: 1,
        at: at(2),
        changes: [
          { field: 'status', from: 'RESERVED', to: 'ORDER_CONFIRMED' },
          { field: 'rawStatus', from: 'RESERVED', to: 'ORDER_CONFIRMED' },
        ],
      },
      { n: 0, at: at(0), changes: [] },
    ]);
  });

  it('keeps the newest events per order, numbering on', () => {
    const history = historyOf(1, 6, 3);
    expect(history.orders[0]!.events.map((event) => event.n)).toEqual([5, 4, 3]);
    expect(history.orders[0]!.next).toBe(6);
  });
});

describe('the bounds', () => {
  it('drops events past the age, and orders left with none', () => {
    const history = observe(historyOf(1, 3), [order('b', 'X')], at(10), 100).history;
    const aged = dropAged(history, Date.parse(at(10)), 9 * 60_000);
    expect(aged.orders.map((kept) => [kept.id, kept.events.map((event) => event.at)])).toEqual([
      ['o0', [at(2), at(1)]],
      ['b', [at(10)]],
    ]);
    expect(dropAged(history, Date.parse(at(100)), 60_000).orders).toEqual([]);
  });

  it('fits the bytes: the oldest events go first, then whole orders; the text is within the bound', () => {
    const history = historyOf(3, 40);
    const whole = fit(history, 10_000_000).json;
    for (const maxBytes of [10_000, 5_000, 1_000, 200]) {
      const { json, history: fitted } = fit(structuredClone(history), maxBytes);
      expect(Buffer.byteLength(json)).toBeLessThanOrEqual(maxBytes);
      expect(json.length).toBeLessThan(whole.length);
      const kept = fitted.orders.flatMap((o) => o.events.map((event) => event.at));
      // Every event dropped is older than every event kept.
      const dropped = history.orders.flatMap((o) => o.events.map((event) => event.at)).filter((time) => !kept.includes(time));
      if (dropped.length > 0 && kept.length > 0) expect(dropped.sort().at(-1)! <= kept.sort()[0]!).toBe(true);
    }
    expect(fit(historyOf(3, 40), 20).history.orders).toEqual([]);
  });

  it('orders first seen in an observation that does not fit go before the older events of the others', () => {
    const kept = historyOf(1, 5);
    const known = new Set(kept.orders.map((o) => o.id));
    const observed = observe(kept, [order('o0', 'S4'), ...Array.from({ length: 50 }, (_, i) => order(`new${i}`, 'RESERVED'))], at(20), 100);
    const newIds = new Set(observed.history.orders.map((o) => o.id).filter((id) => !known.has(id)));
    const { history } = fit(observed.history, Buffer.byteLength(JSON.stringify(historyOf(1, 5))) + 10, newIds);
    expect(history.orders.map((o) => [o.id, o.events.length])).toEqual([['o0', 5]]);
  });
});

describe('parseHistory', () => {
  it('reads back what it wrote', () => {
    const json = fit(historyOf(2, 3), 1_000_000).json;
    expect(parseHistory(json)).toEqual({ ok: true, history: JSON.parse(json), dropped: 0 });
  });

  it('refuses a text that is no history at all, with a reason that holds none of it', () => {
    for (const hostile of ['not json {', 'null', '[]', '{"orders":{}}', JSON.stringify({ orders: 'secret-call-me' })]) {
      const read = parseHistory(hostile);
      expect(read.ok).toBe(false);
      if (!read.ok) expect(read.reason).not.toMatch(/secret-call-me/);
    }
  });

  it('drops an order or an event not of its shape, alone: the rest of the history stands', () => {
    const good = historyOf(1, 2).orders[0]!;
    const goodEvent = good.events[0]!;
    for (const hostile of [
      { id: 'a', fields: {}, next: 1, events: [{ n: 0, at: 'secret-call-me', changes: [] }] },
      { id: 'a', fields: { status: 42 }, next: 1, events: [goodEvent] },
      { id: 'a', fields: {}, next: -1, events: [goodEvent] },
      { id: 'x'.repeat(10_001), fields: {}, next: 1, events: [goodEvent] },
      { id: 'a', fields: { 'product.model': 'x'.repeat(10_001) }, next: 1, events: [goodEvent] },
      {
        id: 'a',
        fields: {},
        next: 1,
        events: [{ ...goodEvent, changes: [{ field: 'product.model', from: null, to: 'x'.repeat(10_001) }] }],
      },
      'not an order',
      [[[[[]]]]],
      { id: good.id, fields: {}, next: 1, events: [goodEvent] },
    ]) {
      const read = parseHistory(JSON.stringify({ orders: [good, hostile] }));
      expect(read).toEqual({ ok: true, history: { orders: [good] }, dropped: 1 });
    }
    // One bad event among good ones: the order keeps the others.
    const mixed = { ...good, events: [goodEvent, { n: 7, at: 'not a time', changes: [] }, ...good.events.slice(1)] };
    expect(parseHistory(JSON.stringify({ orders: [mixed] }))).toEqual({ ok: true, history: { orders: [good] }, dropped: 1 });
  });
});

describe('createHistory: the customer an order list is recorded under', () => {
  const bounds = { eventsPerOrder: 100, maxAgeMs: 86_400_000, customerBytes: 65_536 };
  it.each([
    ['one customer id of the longest length', [order('o1', 'S', 'u'.repeat(MAX_CUSTOMER_ID_CHARS))], 1],
    ['a customer id longer than a key may be', [order('o1', 'S', 'u'.repeat(MAX_CUSTOMER_ID_CHARS + 1))], 0],
    ['an empty customer id', [order('o1', 'S', '')], 0],
    ['two customers in one list', [order('o1', 'S', 'u1'), order('o2', 'S', 'u2')], 0],
  ])('%s: %i customers kept', async (_case, orders, customers) => {
    const store = memoryHistoryStore(1_000_000);
    const history = createHistory({ store, bounds });
    await history.observe(orders, at(0));
    expect(store.stats().customers).toBe(customers);
  });
});

describe('createHistory: what the writer keeps is what the reader takes back', () => {
  // The events are dated 2026-01-01: an age bound that keeps them.
  const bounds = { eventsPerOrder: 100, maxAgeMs: 3650 * 86_400_000, customerBytes: 1_000_000 };
  const withModel = (status: string, model: string): Order => ({ ...order('o1', status), product: { model } });

  it('a field longer than a reader takes (10,001 characters) is not written: the history, with every other change, stays', async () => {
    const store = memoryHistoryStore(10_000_000);
    const ignored: string[] = [];
    const history = createHistory({ store, bounds, ignored: (reason) => ignored.push(reason) });
    await history.observe([withModel('RESERVED', 'OC')], at(0));
    await history.observe([withModel('ORDER_CONFIRMED', 'x'.repeat(10_001))], at(1));
    await history.observe([withModel('IN_PRODUCTION', 'x'.repeat(10_001))], at(2));
    await history.observe([withModel('IN_PRODUCTION', 'OC2')], at(3));
    const events = await history.events(order('o1', 'IN_PRODUCTION'), 10, null);
    expect(events.map((event) => [event.observedAt, event.changes.map((change) => [change.field, change.from, change.to])])).toEqual([
      [at(3), [['product.model', 'OC', 'OC2']]],
      [
        at(2),
        [
          ['status', 'ORDER_CONFIRMED', 'IN_PRODUCTION'],
          ['rawStatus', 'ORDER_CONFIRMED', 'IN_PRODUCTION'],
        ],
      ],
      [
        at(1),
        [
          ['status', 'RESERVED', 'ORDER_CONFIRMED'],
          ['rawStatus', 'RESERVED', 'ORDER_CONFIRMED'],
        ],
      ],
      [at(0), []],
    ]);
    expect(ignored).toEqual([]);
  });

  it('a kept history with a foreign entry keeps the rest, and is written again without it', async () => {
    const store = memoryHistoryStore(10_000_000);
    const ignored: string[] = [];
    const history = createHistory({ store, bounds, ignored: (reason) => ignored.push(reason) });
    await history.observe([order('o1', 'RESERVED')], at(0));
    const kept = JSON.parse((await store.read('u1'))!) as { orders: unknown[] };
    await store.update('u1', () =>
      JSON.stringify({ orders: [...kept.orders, { id: 'o2', fields: { status: 'x'.repeat(10_001) }, next: 1, events: [] }] }),
    );
    expect(await history.events(order('o1', 'RESERVED'), 10, null)).toHaveLength(1);
    await history.observe([order('o1', 'RESERVED')], at(1));
    expect(JSON.parse((await store.read('u1'))!)).toEqual(kept);
    expect(ignored).toEqual([
      '1 of its entries were not of their shape: dropped or mended, the rest kept',
      '1 of its entries were not of their shape: dropped or mended, the rest kept',
    ]);
  });
});

describe('createHistory: a history read again', () => {
  const bounds = { eventsPerOrder: 100, maxAgeMs: 3650 * 86_400_000, customerBytes: 1_000_000 };
  const statuses = async (history: ReturnType<typeof createHistory>) =>
    (await history.events(order('o1', 'X'), 10, null)).map(
      (event) => event.changes.find((change) => change.field === 'status')?.to ?? null,
    );

  it('is read from the store each time: a text another writer changed is taken as it is now, its foreign entries dropped', async () => {
    const store = memoryHistoryStore(10_000_000);
    const ignored: string[] = [];
    const history = createHistory({ store, bounds, ignored: (reason) => ignored.push(reason) });
    await history.observe([order('o1', 'RESERVED')], at(0));
    await history.observe([order('o1', 'ORDER_CONFIRMED')], at(1));
    // Read twice: the second from what the first parsed.
    expect(await statuses(history)).toEqual(['ORDER_CONFIRMED', null]);
    expect(await statuses(history)).toEqual(['ORDER_CONFIRMED', null]);
    // Another writer (a replica, over Redis) moves the order on.
    const other = createHistory({ store, bounds });
    await other.observe([order('o1', 'IN_PRODUCTION')], at(2));
    expect(await statuses(history)).toEqual(['IN_PRODUCTION', 'ORDER_CONFIRMED', null]);
    // And a foreign entry written in its place is dropped on every read, as the first time.
    const text = (await store.read('u1'))!;
    const foreign = JSON.parse(text) as { orders: { events: unknown[] }[] };
    foreign.orders[0]!.events.unshift({ n: 9, at: 'not a time', changes: [] });
    await store.update('u1', () => JSON.stringify(foreign));
    expect(await statuses(history)).toEqual(['IN_PRODUCTION', 'ORDER_CONFIRMED', null]);
    expect(await statuses(history)).toEqual(['IN_PRODUCTION', 'ORDER_CONFIRMED', null]);
    expect(ignored).toHaveLength(2);
  });

  it('hands out what no reader can change for the next: the changes of a read are frozen, and the next read is whole', async () => {
    const store = memoryHistoryStore(10_000_000);
    const history = createHistory({ store, bounds });
    await history.observe([order('o1', 'RESERVED')], at(0));
    await history.observe([order('o1', 'ORDER_CONFIRMED')], at(1));
    await statuses(history);
    const [newest] = await history.events(order('o1', 'X'), 10, null);
    expect(() => (newest!.changes as unknown[]).push({ field: 'status', from: null, to: 'FORGED' })).toThrow(TypeError);
    // An observation changes its own copy: what was kept, and the text written, are the observation's alone.
    await history.observe([order('o1', 'ORDER_CONFIRMED')], at(2));
    await history.observe([order('o1', 'IN_PRODUCTION')], at(3));
    expect(await statuses(history)).toEqual(['IN_PRODUCTION', 'ORDER_CONFIRMED', null]);
    expect(parseHistory((await store.read('u1'))!)).toMatchObject({ ok: true, dropped: 0 });
  });
});
