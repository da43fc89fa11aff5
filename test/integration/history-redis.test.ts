// Order history in Redis (REDIS_URL): shared by two gateway replicas, each key with an expiry,
// no event lost when replicas record the same customer at once (compare-and-set), nothing
// stored with HISTORY=off, values the gateway did not write ignored (the history starts
// afresh, one warn line without the value, no crash, nothing of it reaches a client), all the
// histories within HISTORY_BYTES (the oldest going first, nothing else in Redis touched), and,
// with the shipped Redis settings, kept across a restart of Redis.
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHistory } from '../../src/graph/history.js';
import type { Order } from '../../src/upstream/models.js';
import { connectRedis, type RedisConnection } from '../../src/redis/connection.js';
import { redisHistoryStore } from '../../src/redis/history.js';
import { loadConfig } from '../../src/server/config.js';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { demoCustomer, demoOrders, demoToken } from '../helpers/demo.js';
import { graphqlClient, startGateway, type TestGatewayConfig } from '../helpers/harness.js';
import { capturedLogLines } from '../helpers/log-capture.js';
import { haveRedis, shippedRedis, startRedis, type RedisServer } from '../helpers/redis.js';
import { until } from '../helpers/intervals.js';
import { createOrderClient } from '../../src/client/index.js';

const PREFIX = 'order-graph:history:';
const DEFAULTS = loadConfig({}).history!;
const HISTORY = `{ orders { id history(first: 100) { observedAt changes { field from to } cursor } } }`;

let redis: RedisServer;
let simulator: Simulator;
let reader: Redis;
const cleanups: Array<() => unknown> = [];
let linesBefore = 0;

beforeEach(async () => {
  if (!haveRedis) return;
  // As deploy/kubernetes/redis.yaml runs it: append-only, noeviction, its maxmemory.
  redis = await startRedis({ args: shippedRedis().args });
  simulator = await startSimulator({ latencyMs: 0 });
  reader = new Redis(redis.url);
  linesBefore = capturedLogLines.length;
});
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  reader?.disconnect();
  await simulator?.close();
  await redis?.close();
});

async function replica(options: TestGatewayConfig = {}) {
  const started = await startGateway({ upstreamUrls: simulator.urls, redisUrl: redis.url, ...options });
  cleanups.push(started.close);
  await until(async () => ((await (await fetch(`${started.origin}/readyz`)).json()) as { redis?: string }).redis === 'available');
  const history = async (token: string) =>
    (await graphqlClient(started.endpoint, token).rawRequest(HISTORY)) as {
      data?: { orders: { id: string; history: { observedAt: string; changes: unknown[]; cursor: string }[] }[] } | null;
      errors?: unknown[];
    };
  return { ...started, history };
}

function advance(order: Order, status: string) {
  order.status = status;
  order.updatedAt = new Date(Date.parse(order.updatedAt ?? '2026-01-01T00:00:00Z') + 60_000).toISOString();
}

const ignoredLines = () =>
  capturedLogLines.slice(linesBefore).filter((line) => line.includes('"kind":"order history"') && line.includes('ignored'));

describe.skipIf(!haveRedis)('Order.history in Redis', () => {
  it('is shared by two replicas, in one key per customer that expires with HISTORY_MAX_AGE_DAYS', async () => {
    const [a, b] = [await replica(), await replica()];
    const token = await demoToken(simulator, 'ready@demo.test');
    const [order] = demoOrders(simulator, 'ready@demo.test');
    await a.history(token);
    advance(order!, 'DELIVERED');
    const fromB = (await b.history(token)).data!.orders[0]!.history;
    expect(fromB.map((event) => event.changes.length > 0)).toEqual([true, false]);
    // A reads what B recorded.
    expect((await a.history(token)).data!.orders[0]!.history).toEqual(fromB);

    const key = `${PREFIX}${demoCustomer(simulator, 'ready@demo.test').userId}`;
    expect(await reader.keys(`${PREFIX}*`)).toEqual([key]);
    const ttl = await reader.pttl(key);
    expect(ttl).toBeGreaterThan(DEFAULTS.bounds.maxAgeMs - 60_000);
    expect(ttl).toBeLessThanOrEqual(DEFAULTS.bounds.maxAgeMs);
    // What is kept: order ids, the record's fields as text, times and changes; nothing of the customer's own record.
    const stored = (await reader.get(key))!;
    const user = simulator.data.users.find(({ user: candidate }) => candidate.id === order!.userId)!.user;
    for (const personal of [user.email, user.firstName, user.lastName, user.phoneNumber])
      if (personal) expect(stored).not.toContain(personal);
  });

  it('no event is lost when replicas record the same customer at once (compare-and-set)', async () => {
    const connections: RedisConnection[] = [0, 1, 2].map(() => connectRedis(redis.url, { commandTimeoutMs: 2000 }));
    cleanups.push(() => Promise.all(connections.map((connection) => connection.close())));
    await until(() => connections.every((connection) => connection.available()));
    const histories = connections.map((connection) =>
      createHistory({
        store: redisHistoryStore(connection, { customerBytes: 1_000_000, totalBytes: 10_000_000, maxAgeMs: 60_000 }),
        bounds: { ...DEFAULTS.bounds, customerBytes: 1_000_000 },
      }),
    );
    // 30 orders of one customer, each first seen by one of three "replicas", all at once.
    const orders: Order[] = Array.from({ length: 30 }, (_, i) => ({
      id: `o${i}`,
      reservationId: `r${i}`,
      userId: 'u1',
      status: 'RESERVED',
    }));
    await Promise.all(orders.map((order, i) => histories[i % 3]!.observe([order], new Date().toISOString())));
    const kept = await Promise.all(orders.map((order) => histories[0]!.events(order, 10, null)));
    expect(kept.map((events) => events.length)).toEqual(orders.map(() => 1));
  });

  it('HISTORY=off keeps nothing in Redis', async () => {
    const gateway = await replica({ history: null });
    const token = await demoToken(simulator, 'ready@demo.test');
    const [order] = demoOrders(simulator, 'ready@demo.test');
    await gateway.history(token);
    advance(order!, 'DELIVERED');
    expect((await gateway.history(token)).data!.orders[0]!.history).toEqual([]);
    expect(await reader.keys(`${PREFIX}*`)).toEqual([]);
  });

  for (const [what, write] of [
    ['text that is not JSON', (key: string) => reader.set(key, 'not json {')],
    [
      'JSON of another shape',
      (key: string) =>
        reader.set(key, JSON.stringify({ orders: [{ id: 'x', fields: { status: 'call +1 555 0100' }, next: 'a', events: [] }] })),
    ],
    [
      'a history with another customer’s order in it, its events forged',
      (key: string) =>
        reader.set(
          key,
          JSON.stringify({ orders: [{ id: 'forged', fields: {}, next: 1, events: [{ n: 0, at: 'yesterday', changes: [] }] }] }),
        ),
    ],
    ['a hash', (key: string) => reader.hset(key, 'orders', '[]')],
    ['a string over HISTORY_CUSTOMER_BYTES', (key: string) => reader.set(key, 'x'.repeat(DEFAULTS.bounds.customerBytes + 1))],
  ] as const) {
    it(`a history key holding ${what}: ignored with a warn line (no value in it), the history starts afresh`, async () => {
      const key = `${PREFIX}${demoCustomer(simulator, 'ready@demo.test').userId}`;
      await write(key);
      const gateway = await replica();
      const token = await demoToken(simulator, 'ready@demo.test');
      const result = await gateway.history(token);
      expect(result.errors).toBeUndefined();
      expect(result.data!.orders[0]!.history.map((event) => event.changes)).toEqual([[]]);
      expect(JSON.stringify(result)).not.toMatch(/555 0100|forged|yesterday/);
      expect(ignoredLines().length).toBeGreaterThanOrEqual(1);
      expect(ignoredLines().join('\n')).not.toMatch(/555 0100|not json|xxxx/);
      // Overwritten by the gateway's own history, which the next reading takes.
      expect(await reader.type(key)).toBe('string');
      const [order] = demoOrders(simulator, 'ready@demo.test');
      advance(order!, 'DELIVERED');
      expect((await gateway.history(token)).data!.orders[0]!.history).toHaveLength(2);
    });
  }

  it('kept across a restart of Redis (the shipped settings: an append-only file)', async () => {
    const gateway = await replica();
    const token = await demoToken(simulator, 'ready@demo.test');
    const [order] = demoOrders(simulator, 'ready@demo.test');
    await gateway.history(token);
    advance(order!, 'DELIVERED');
    const before = (await gateway.history(token)).data!.orders[0]!.history;
    expect(before).toHaveLength(2);
    await redis.kill();
    await redis.start();
    await until(async () => ((await (await fetch(`${gateway.origin}/readyz`)).json()) as { redis?: string }).redis === 'available');
    expect((await gateway.history(token)).data!.orders[0]!.history).toEqual(before);
  });

  it('all the histories within HISTORY_BYTES: the ones written longest ago go first; the counters, leases, polls and cached answers stay', async () => {
    const totalBytes = 100_000;
    // One poll, at the watch's start, in the minute: a poll after the flood evicted the ready
    // customer's history would record it again, as the newest (a watched customer's history
    // starts over), and a slow machine's flood gives a shorter interval time for one.
    const gateway = await replica({ history: { ...DEFAULTS, totalBytes }, responseCacheTtlMs: 60_000, live: { pollIntervalMs: 60_000 } });
    // What else the gateway keeps in Redis: a failed login's counters, a cached answer, a live poll's lease and snapshot.
    const two = demoCustomer(simulator, 'two-orders@demo.test');
    await graphqlClient(gateway.endpoint)
      .rawRequest(`mutation { login(username: "${two.username}", password: "wrong-password") { accessToken } }`)
      .catch(() => undefined);
    const token = await demoToken(simulator, 'ready@demo.test');
    await gateway.history(token);
    const watching = new AbortController();
    const client = createOrderClient({
      endpoint: gateway.endpoint,
      tokens: { accessToken: token, accessTokenExpiresAt: '', idToken: '', idTokenExpiresAt: '', refreshToken: '' },
    });
    let events = 0;
    const watched = (async () => {
      for await (const _event of client.watchOrders({ signal: watching.signal })) events += 1;
    })().catch(() => undefined);
    cleanups.push(() => (watching.abort(), watched));
    await until(() => events > 0);
    const others = async () => (await reader.keys('order-graph:*')).filter((key) => !key.startsWith('order-graph:history')).sort();
    await until(async () => (await others()).some((key) => key.startsWith('order-graph:live:')));
    const kept = await others();
    expect(kept.some((key) => key.startsWith('order-graph:cache:answer:'))).toBe(true);
    expect(kept.some((key) => key.includes('login'))).toBe(true);

    // Histories of 300 customers, each about 1.5 kB, through a second process's connection: 4.5 times the budget.
    const connection = connectRedis(redis.url, { commandTimeoutMs: 2000 });
    cleanups.push(() => connection.close());
    await until(() => connection.available());
    const history = createHistory({
      store: redisHistoryStore(connection, {
        customerBytes: DEFAULTS.bounds.customerBytes,
        totalBytes,
        maxAgeMs: DEFAULTS.bounds.maxAgeMs,
      }),
      bounds: DEFAULTS.bounds,
    });
    const customers = Array.from({ length: 300 }, (_, i) => `flood-${String(i).padStart(3, '0')}`);
    for (const customer of customers) {
      await history.observe(
        Array.from({ length: 4 }, (_, i) => ({
          id: `${customer}-o${i}`,
          reservationId: `r${i}`,
          userId: customer,
          status: 'IN_PRODUCTION',
          updatedAt: new Date().toISOString(),
        })),
        new Date().toISOString(),
      );
    }
    const histories = await reader.keys(`${PREFIX}*`);
    const bytes = (await Promise.all(histories.map((key) => reader.strlen(key)))).reduce((sum, n) => sum + n, 0);
    expect(bytes).toBeLessThanOrEqual(totalBytes);
    expect(histories.length).toBeGreaterThan(20);
    // The newest are kept, the oldest (the ready customer's first among them) are gone.
    expect(histories).toContain(`${PREFIX}${customers.at(-1)}`);
    expect(histories).not.toContain(`${PREFIX}${customers[0]}`);
    expect(histories).not.toContain(`${PREFIX}${demoCustomer(simulator, 'ready@demo.test').userId}`);
    expect(Number(Number(await reader.get('order-graph:history-budget:bytes')))).toBeLessThanOrEqual(totalBytes);
    // Nothing else went: Redis evicted nothing, and every other key is still there.
    expect(Number(/evicted_keys:(\d+)/.exec(await reader.info('stats'))![1])).toBe(0);
    for (const key of kept) expect(await reader.exists(key), key).toBe(1);
  });
});
