// Numbers in Redis the gateway did not write: each number it reads back and decides with (the
// budgets' bytes, sizes and expiries, the login counters and their expiries, a cached answer's
// time, a history's event numbers and times, a live snapshot's time) set by hand to what no
// replica writes (negative, NaN, infinite, huge, a fraction, a key of another type, a time out
// of its keeping), against a real redis-server. Whatever the value, no good history is lost,
// what is counted comes back to what is really in Redis, one warn line per kind says so, and
// nothing ends the process.
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectRedis, type RedisConnection } from '../../src/redis/connection.js';
import { redisHistoryStore } from '../../src/redis/history.js';
import { redisResponseStore } from '../../src/redis/response-cache.js';
import { usernameKey } from '../../src/server/login-throttle.js';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { demoCustomer, demoOrders, demoToken } from '../helpers/demo.js';
import { execute, graphqlClient, startGateway } from '../helpers/harness.js';
import { OrderUpdatesDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { createStreamTransport } from '../../src/client/streams.js';
import { createOrderClient } from '../../src/client/index.js';
import { captureLogger, capturedLogLines } from '../helpers/log-capture.js';
import { haveRedis, shippedRedis, startRedis, type RedisServer } from '../helpers/redis.js';
import { escapes } from '../helpers/escapes.js';
import { until } from '../helpers/intervals.js';

let redis: RedisServer;
let writer: Redis;
const cleanups: Array<() => unknown> = [];

// The process must never end on what Redis holds: nothing may escape as an unhandled error.
const escaped = escapes();

let linesBefore = 0;
beforeEach(async () => {
  linesBefore = capturedLogLines.length;
  if (!haveRedis) return;
  redis = await startRedis({ args: shippedRedis().args });
  writer = new Redis(redis.url);
});
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  writer?.disconnect();
  await redis?.close();
  expect(escaped.splice(0)).toEqual([]);
});

/** Warn lines, since the test began, saying a value of this kind read from Redis was ignored. */
const ignoredLines = (kind: string) =>
  capturedLogLines.slice(linesBefore).filter((line) => line.includes(`"kind":"${kind}"`) && line.includes('ignored'));

async function connection(): Promise<RedisConnection> {
  const connected = connectRedis(redis.url, { commandTimeoutMs: 2000, logger: captureLogger() });
  cleanups.push(() => connected.close());
  await until(() => connected.available());
  return connected;
}

// The two kinds Redis keeps within a byte budget (src/redis/budget.ts): each writes one entry
// of about 600 bytes per name, well within its budget, so that nothing has to be evicted.
const KINDS = {
  history: {
    entries: 'order-graph:history:',
    books: 'order-graph:history-budget:',
    warning: 'history budget',
    writer: (redisConnection: RedisConnection, totalBytes = 1_000_000) => {
      const store = redisHistoryStore(redisConnection, { customerBytes: 10_000, totalBytes, maxAgeMs: 3_600_000 });
      return { put: (name: string) => store.update(name, () => JSON.stringify({ orders: [], note: name.repeat(100) })) };
    },
  },
  cache: {
    entries: 'order-graph:cache:answer:',
    books: 'order-graph:cache:',
    warning: 'response cache budget',
    writer: (redisConnection: RedisConnection, total = 1_000_000) => {
      const store = redisResponseStore(redisConnection, { entry: 100_000, total });
      return {
        put: (name: string) => store.set(name, JSON.stringify({ note: name.repeat(100) }), [`Order:${name}`], 60_000),
        forget: (names: string[]) => store.invalidate(names.map((name) => `Order:${name}`)),
      };
    },
  },
} as const;

const NAMES = Array.from({ length: 23 }, (_, i) => `c${String(i).padStart(2, '0')}`);
const VICTIM = 'c05';

type Hostile = readonly [what: string, write: (books: string) => Promise<unknown>, after: readonly string[]];
// What is written after the hostile value: a new entry (the total and the expiries decide its
// room), or the victim again (its old size is taken out of the total).
const HOSTILE: readonly Hostile[] = [
  ...['1e400', '-1e400', 'inf', '-5', 'nan', '1e30', '99999999999999999999', '1.5', ''].map((value): Hostile => [
    `the bytes in all: "${value}"`,
    (books) => writer.set(`${books}bytes`, value),
    ['c23'],
  ]),
  // A whole number in range, but not the sum of the sizes: each write evicted one entry.
  [`the bytes in all: "1000000", the whole budget`, (books) => writer.set(`${books}bytes`, '1000000'), ['c23', 'c24', 'c25']],
  [`the bytes in all: a hash`, (books) => writer.del(`${books}bytes`).then(() => writer.hset(`${books}bytes`, 'n', '1')), ['c23']],
  ...['1e400', '-1e400', '-5', 'nan', '1e30', '1.5', '0'].map((value): Hostile => [
    `one entry's size: "${value}"`,
    (books) => writer.hset(`${books}sizes`, VICTIM, value),
    [VICTIM],
  ]),
  [`the sizes: a string`, (books) => writer.del(`${books}sizes`).then(() => writer.set(`${books}sizes`, '1')), [VICTIM]],
  [`the time of the last check, with no expiry`, (books) => writer.set(`${books}checked`, '1'), ['c23']],
  ...['+inf', '1e300', '-5', '1.5'].map((value): Hostile => [
    `one entry's expiry: ${value}`,
    (books) => writer.zadd(`${books}index`, value, VICTIM),
    ['c23'],
  ]),
  [`the index: a list`, (books) => writer.del(`${books}index`).then(() => writer.rpush(`${books}index`, VICTIM)), ['c23']],
];

/** The books as they should be: one entry per key there, a whole size at least its text for each, their sum in all, each expiry the key's own. */
async function booksAgainstKeys(entries: string, books: string) {
  const keys = (await writer.keys(`${entries}*`)).sort();
  const names = keys.map((key) => key.slice(entries.length));
  const sizes = await writer.hgetall(`${books}sizes`);
  const index = await writer.zrange(`${books}index`, 0, -1, 'WITHSCORES');
  const expiries = Object.fromEntries(Array.from({ length: index.length / 2 }, (_, i) => [index[2 * i]!, Number(index[2 * i + 1])]));
  const now = Number((await writer.time())[0]) * 1000;
  const problems: string[] = [];
  if (JSON.stringify(Object.keys(sizes).sort()) !== JSON.stringify(names))
    problems.push('the sizes name other entries than the keys there');
  if (JSON.stringify(Object.keys(expiries).sort()) !== JSON.stringify(names))
    problems.push('the index names other entries than the keys there');
  let sum = 0;
  for (const [i, name] of names.entries()) {
    const size = sizes[name];
    if (!/^\d+$/.test(size ?? '') || Number(size) < (await writer.strlen(keys[i]!))) problems.push(`${name}: size ${size}`);
    sum += Number(size);
    const expiry = now + (await writer.pttl(keys[i]!));
    if (!(Math.abs((expiries[name] ?? NaN) - expiry) < 2000)) problems.push(`${name}: expiry ${expiries[name]}, the key's ${expiry}`);
  }
  const total = await writer.get(`${books}bytes`);
  if (total !== String(sum)) problems.push(`bytes in all ${total}, the sizes' sum ${sum}`);
  return problems;
}

describe.skipIf(!haveRedis)('the budgets’ books (src/redis/budget.ts) holding numbers no replica writes', () => {
  for (const [kind, { entries, books, warning, writer: makeWriter }] of Object.entries(KINDS)) {
    it(`${kind}: with nothing written by hand, 60 writes past a budget of 20 entries and 23 rewrites: the books are the keys there, no warn line`, async () => {
      const store: { put(name: string): Promise<void>; forget?(names: string[]): Promise<void> } = makeWriter(await connection(), 20_000);
      const names = Array.from({ length: 60 }, (_, i) => `c${String(i).padStart(2, '0')}`);
      for (const name of names) await store.put(name);
      for (const name of names.slice(-23)) await store.put(name);
      await store.forget?.(['c59', 'c58']);
      const kept = await writer.keys(`${entries}*`);
      expect(kept.length).toBeGreaterThan(10);
      expect(kept.length).toBeLessThan(40);
      expect(await booksAgainstKeys(entries, books)).toEqual([]);
      expect(ignoredLines(warning)).toEqual([]);
    });

    for (const [what, write, after] of HOSTILE) {
      it(`${kind}: ${what}: no entry is lost, the books are counted again from the keys there, one warn line`, async () => {
        const { put } = makeWriter(await connection());
        for (const name of NAMES) await put(name);
        expect(await booksAgainstKeys(entries, books)).toEqual([]);
        await write(books);
        for (const name of after) await put(name);
        const kept = (await writer.keys(`${entries}*`)).length;
        expect(kept, `entries kept of ${new Set([...NAMES, ...after]).size}`).toBe(new Set([...NAMES, ...after]).size);
        expect(await booksAgainstKeys(entries, books)).toEqual([]);
        expect(ignoredLines(warning)).toHaveLength(1);
        // Nothing of the value in the line.
        expect(ignoredLines(warning)[0]).not.toMatch(/1e400|99999999999999999999/);
      });
    }
  }
});

describe.skipIf(!haveRedis)('login counters (rate-limiter-flexible’s keys) holding numbers no replica writes', () => {
  let simulator: Simulator;
  beforeEach(async () => {
    simulator = await startSimulator({ latencyMs: 0 });
    cleanups.push(() => simulator.close());
  });

  const STRANGER = '203.0.113.66';
  const OWNER = '198.51.100.7';
  const TEN_YEARS_MS = 10 * 365 * 86_400_000;
  // Every counter a failed login of ready@demo.test from STRANGER takes a point of.
  const counterKeys = () => {
    const user = usernameKey('ready@demo.test');
    return [
      `order-graph:login-failures:address:${STRANGER}`,
      `order-graph:login-failures:username-address:${user}:${STRANGER}`,
      `order-graph:login-delay:username-address:${user}:${STRANGER}`,
      `order-graph:login-failures:username:${user}`,
    ];
  };
  const set =
    (value: string, ttlMs = 600_000) =>
    async (key: string) =>
      writer.set(key, value, 'PX', ttlMs);

  for (const [what, write] of [
    ['-1000000', set('-1000000')],
    ['nan', set('nan')],
    ['1.5', set('1.5')],
    ['1e30', set('1e30')],
    ['99999999999999999999 (past 64 bits)', set('99999999999999999999')],
    ['9007199254740993 (past 2^53)', set('9007199254740993')],
    ['a hash', (key: string) => writer.hset(key, 'n', '1')],
    ['100, expiring in ten years', set('100', TEN_YEARS_MS)],
  ] as const) {
    it(`each counter at ${what}: counted again from 0 (5 failures in all across two replicas, then a delay of at most the window), the owner gets in, one warn line`, async () => {
      for (const key of counterKeys()) await write(key);
      const gateways = await Promise.all(
        [0, 1].map(async () => {
          const gateway = await startGateway({ upstreamUrls: simulator.urls, redisUrl: redis.url, trustedProxies: ['loopback'] });
          cleanups.push(gateway.close);
          await until(async () => ((await (await fetch(`${gateway.origin}/readyz`)).json()) as { redis?: string }).redis === 'available');
          return gateway;
        }),
      );
      const login = async (i: number, from: string, password: string) =>
        (
          await graphqlClient(gateways[i % 2]!.endpoint).rawRequest<unknown>(
            'mutation($p: String!) { login(username: "ready@demo.test", password: $p) { accessToken } }',
            { p: password },
            { 'x-forwarded-for': from },
          )
        ).errors?.[0]?.extensions ?? {};
      const answers = [];
      for (let i = 0; i < 8; i++) answers.push(await login(i, STRANGER, 'wrong-password'));
      const logins = () => simulator.requestLog.filter((entry) => entry.operation === 'login').length;
      const guesses = logins();
      const owner = await login(1, OWNER, demoCustomer(simulator, 'ready@demo.test').password);
      console.info(
        `counters at ${what}: ${guesses} of 8 wrong passwords reached the upstream; refused: ${answers.filter((a) => a.code === 'RATE_LIMITED').length}, retry after at most ${Math.max(0, ...answers.map((a) => Number(a.retryAfterSeconds ?? 0)))} s; the owner: ${String(owner.code ?? 'signed in')} ${owner.retryAfterSeconds ?? ''}`,
      );
      expect(answers.map((extensions) => extensions.code)).toEqual([...Array(5).fill('UNAUTHENTICATED'), ...Array(3).fill('RATE_LIMITED')]);
      for (const { retryAfterSeconds } of answers.slice(5)) expect(retryAfterSeconds).toBeLessThanOrEqual(900);
      expect(guesses).toBe(5);
      expect(owner).toEqual({});
      expect(ignoredLines('login counter')).toHaveLength(1);
      expect(ignoredLines('login counter')[0]).not.toMatch(/1000000|99999999999999999999|1e30/);
    });
  }
});

describe.skipIf(!haveRedis)('a cached answer whose time is not one its ttl allows', () => {
  for (const [what, storedAt, persist] of [
    ['stored ten minutes ago, its key made to live on (PERSIST)', () => Date.now() - 600_000, true],
    ['stored a year from now', () => Date.now() + 365 * 86_400_000, false],
  ] as const) {
    it(`${what}: not served (the caller's own answer, from the upstream), one warn line`, async () => {
      const simulator = await startSimulator({ latencyMs: 0 });
      cleanups.push(() => simulator.close());
      const gateway = await startGateway({ upstreamUrls: simulator.urls, redisUrl: redis.url, responseCacheTtlMs: 30_000 });
      cleanups.push(gateway.close);
      await until(async () => ((await (await fetch(`${gateway.origin}/readyz`)).json()) as { redis?: string }).redis === 'available');
      const client = createOrderClient({ endpoint: gateway.endpoint });
      await client.login('ready@demo.test', demoCustomer(simulator, 'ready@demo.test').password);
      const token = client.tokens!.accessToken;
      const own = await execute(graphqlClient(gateway.endpoint, token), WholeOrderDocument);
      expect(own.errors).toEqual([]);
      const [key] = await writer.keys('order-graph:cache:answer:*');
      const entry = JSON.parse((await writer.get(key!))!) as { storedAt: number; result: { data: { me: { email: string } } } };
      entry.storedAt = storedAt();
      entry.result.data.me.email = 'stale@demo.test';
      await (persist ? writer.set(key!, JSON.stringify(entry)) : writer.set(key!, JSON.stringify(entry), 'KEEPTTL'));
      simulator.clearLog();
      const again = await execute(graphqlClient(gateway.endpoint, token), WholeOrderDocument);
      expect(again.data?.me?.email).toBe('ready@demo.test');
      expect(simulator.requestLog.filter((entry) => entry.operation === 'orderDetails')).toHaveLength(1);
      expect(ignoredLines('cached answer')).toHaveLength(1);
    });
  }
});

describe.skipIf(!haveRedis)('a history whose event numbers or times are not ones the gateway writes', () => {
  type StoredOrder = { next: number; events: { n: number; at: string }[] };
  const PAGE = 'query($after: String) { orders { history(first: 1, after: $after) { observedAt cursor } } }';
  const YEAR_AHEAD = new Date(Date.now() + 365 * 86_400_000).toISOString();

  for (const [what, change, events] of [
    // The next change is numbered as an event already there: one of the two is never on a page.
    ['its next number not above its events', (order: StoredOrder) => void (order.next = 1), 3],
    ['two events of one number', (order: StoredOrder) => void (order.events[0]!.n = 0), 1],
    ['its events oldest first', (order: StoredOrder) => void order.events.reverse(), 2],
    // A cursor holds at most 15 digits: past them, the page after that event was BAD_USER_INPUT.
    ['an event numbered 10^15', (order: StoredOrder) => void (order.events[0]!.n = 1e15), 1],
    ['an event dated a year ahead (it would never age out)', (order: StoredOrder) => void (order.events[0]!.at = YEAR_AHEAD), 1],
  ] as const) {
    it(`${what}: every event is on one page, no page is refused, one warn line`, async () => {
      const simulator = await startSimulator({ latencyMs: 0 });
      cleanups.push(() => simulator.close());
      const gateway = await startGateway({ upstreamUrls: simulator.urls, redisUrl: redis.url });
      cleanups.push(gateway.close);
      await until(async () => ((await (await fetch(`${gateway.origin}/readyz`)).json()) as { redis?: string }).redis === 'available');
      const token = await demoToken(simulator, 'ready@demo.test');
      const client = graphqlClient(gateway.endpoint, token);
      const [order] = demoOrders(simulator, 'ready@demo.test');
      const advance = async (status: string) => {
        order!.status = status;
        order!.updatedAt = new Date(Date.parse(order!.updatedAt ?? '2026-01-01T00:00:00Z') + 60_000).toISOString();
        await client.rawRequest(PAGE);
      };
      await client.rawRequest(PAGE);
      await advance('DELIVERED');
      // Two events now, n 1 and 0; the test rewrites them as no replica would.
      const key = `order-graph:history:${demoCustomer(simulator, 'ready@demo.test').userId}`;
      const stored = JSON.parse((await writer.get(key))!) as { orders: StoredOrder[] };
      change(stored.orders[0]!);
      await writer.set(key, JSON.stringify(stored), 'KEEPTTL');
      if (events === 3) await advance('COMPLETED');

      const seen: string[] = [];
      const refused: unknown[] = [];
      for (let after: string | null = null, page = 0; page < 10; page++) {
        const result: { data?: { orders: null | { history: { observedAt: string; cursor: string }[] }[] }; errors?: unknown[] } =
          await client
            .rawRequest(PAGE, { after })
            .catch((error: { response: { errors: unknown[] } }) => ({ errors: error.response.errors }));
        if (result.errors) refused.push(...result.errors);
        const [event] = result.data?.orders?.[0]?.history ?? [];
        if (!event) break;
        seen.push(event.cursor);
        after = event.cursor;
      }
      console.info(`a history with ${what}: ${seen.length} events on pages of one, ${refused.length} refused`);
      expect(refused).toEqual([]);
      expect(seen).toHaveLength(events);
      expect(new Set(seen).size).toBe(seen.length);
      expect(ignoredLines('order history')).toHaveLength(1);
    });
  }
});

describe.skipIf(!haveRedis)('a live snapshot whose time its keeping does not allow', () => {
  const POLL_MS = 300;
  for (const [what, observedAt] of [
    ['observed an hour ago, its key made to live on (PERSIST)', () => new Date(Date.now() - 3_600_000).toISOString()],
    ['observed a year from now', () => new Date(Date.now() + 365 * 86_400_000).toISOString()],
  ] as const) {
    it(`${what}: a new stream's current state is its own poll's, not that snapshot; one warn line`, async () => {
      const simulator = await startSimulator({ latencyMs: 0 });
      cleanups.push(() => simulator.close());
      const [order] = demoOrders(simulator, 'ready@demo.test');
      const stale = order!.status === 'DELIVERED' ? 'RESERVED' : 'DELIVERED';
      const snapshot = { observedAt: observedAt(), orders: [{ ...order, status: stale }], fields: {}, changes: {} };
      await writer.set(`order-graph:live:last:${demoCustomer(simulator, 'ready@demo.test').userId}`, JSON.stringify(snapshot));
      const gateway = await startGateway({ upstreamUrls: simulator.urls, redisUrl: redis.url, live: { pollIntervalMs: POLL_MS } });
      cleanups.push(gateway.close);
      await until(async () => ((await (await fetch(`${gateway.origin}/readyz`)).json()) as { redis?: string }).redis === 'available');
      const abort = new AbortController();
      cleanups.push(() => abort.abort());
      const statuses: unknown[] = [];
      const token = await demoToken(simulator, 'ready@demo.test');
      void (async () => {
        for await (const event of createStreamTransport({ endpoint: gateway.endpoint, fetch, accessToken: () => token })(
          OrderUpdatesDocument,
          {},
          abort.signal,
        ))
          statuses.push((event as { data?: { orderUpdates: { order: { status: string } } } }).data?.orderUpdates.order.status);
      })().catch(() => undefined);
      await until(() => statuses.length >= 1);
      expect(statuses[0]).toBe(order!.status);
      expect(ignoredLines('live snapshot')).toHaveLength(1);
    });
  }
});
