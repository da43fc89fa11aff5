// Redis as a store the gateway does not trust, and one that may hang: a real gateway and a
// real redis-server, written to by the test as anyone on Redis's network could (a snapshot
// that is not one, messages that are not, error text, a lease without expiry, a cached
// answer written by hand, values too large to read), and stopped with SIGSTOP. The gateway
// ignores what does not fit (one warn line per kind), never ends, and while Redis does not
// answer works on alone at once, saying so on /readyz.
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OrderUpdatesDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { createOrderClient, type OrderResult } from '../../src/client/index.js';
import { createStreamTransport } from '../../src/client/streams.js';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { demoCustomer, demoOrders } from '../helpers/demo.js';
import { capturedLogLines } from '../helpers/log-capture.js';
import { execute, graphqlClient, startGateway, type TestGatewayConfig } from '../helpers/harness.js';
import { haveRedis, startRedis, type RedisServer } from '../helpers/redis.js';
import { escapes } from '../helpers/escapes.js';
import { until } from '../helpers/intervals.js';

const POLL_MS = 300;
const PREFIX = 'order-graph:';

let redis: RedisServer;
let simulator: Simulator;
let writer: Redis;
const cleanups: Array<() => unknown> = [];

// The process must never end on what Redis holds: nothing may escape as an unhandled error.
const escaped = escapes();

beforeEach(async () => {
  if (!haveRedis) return;
  redis = await startRedis();
  simulator = await startSimulator({ latencyMs: 0 });
  writer = new Redis(redis.url);
});
afterEach(async () => {
  redis?.resume();
  while (cleanups.length) await cleanups.pop()!();
  writer?.disconnect();
  await simulator?.close();
  await redis?.close();
  // Each test's own: one that escaped is reported once, by the test it escaped from.
  expect(escaped.splice(0)).toEqual([]);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const readiness = async (origin: string) => {
  const response = await fetch(`${origin}/readyz`);
  return { status: response.status, body: (await response.json()) as { status: string; redis?: string } };
};

async function gateway(options: TestGatewayConfig = {}) {
  const started = await startGateway({ upstreamUrls: simulator.urls, redisUrl: redis.url, live: { pollIntervalMs: POLL_MS }, ...options });
  cleanups.push(started.close);
  await until(async () => (await readiness(started.origin)).body.redis === 'available');
  return started;
}

const customer = (username: string) => demoCustomer(simulator, username);
const ordersOf = (username: string) => demoOrders(simulator, username);
const calls = (operation: string, since = 0) =>
  simulator.requestLog.filter((entry) => entry.operation === operation && entry.at >= since).length;
/** Warn lines, since the test began, saying a value of this kind from Redis was ignored. */
let linesBefore = 0;
beforeEach(() => void (linesBefore = capturedLogLines.length));
const ignoredLines = (kind: string) =>
  capturedLogLines.slice(linesBefore).filter((line) => line.includes(`"kind":"${kind}"`) && line.includes('ignored'));

async function signIn(endpoint: string, username: string) {
  const client = createOrderClient({ endpoint });
  await client.login(username, customer(username).password);
  return client.tokens!.accessToken;
}

type UpdateEvent = OrderResult<{
  orderUpdates: { changes: { field: string; from: string | null; to: string | null }[]; order: { id: string; status: string } };
}>;

/** A live stream, read into an array as its events come. */
function watch(endpoint: string, token: string) {
  const abort = new AbortController();
  cleanups.push(() => abort.abort());
  const events: UpdateEvent[] = [];
  void (async () => {
    for await (const event of createStreamTransport({ endpoint, fetch, accessToken: () => token })(OrderUpdatesDocument, {}, abort.signal))
      events.push(event as UpdateEvent);
  })().catch(() => undefined);
  return events;
}

describe.skipIf(!haveRedis)('Redis values and messages the gateway did not write', () => {
  for (const [what, value, reason] of [
    ['{}', '{}', /"reason":"/],
    ['a value over LIVE_SNAPSHOT_BYTES', 'x'.repeat(1_000_000), /1000000 bytes, over 200000/],
  ] as const) {
    it(`a snapshot key holding ${what}: ignored with one warn line, not read; the stream gets the current state from its own poll`, async () => {
      await writer.set(`${PREFIX}live:last:${customer('two-orders@demo.test').userId}`, value, 'PX', 60_000);
      const { endpoint } = await gateway({ live: { pollIntervalMs: POLL_MS, snapshotBytes: 200_000 } });
      const events = watch(endpoint, await signIn(endpoint, 'two-orders@demo.test'));
      await until(() => events.length >= 2);
      expect(events.map((event) => event.data?.orderUpdates.order.id).sort()).toEqual(
        ordersOf('two-orders@demo.test')
          .map((order) => order.id)
          .sort(),
      );
      expect(events.flatMap((event) => event.errors)).toEqual([]);
      expect(ignoredLines('live snapshot')).toHaveLength(1);
      expect(ignoredLines('live snapshot')[0]).toMatch(/"level":40/);
      expect(ignoredLines('live snapshot')[0]).toMatch(reason);
    });
  }

  it('PUBLISH of null, 42, "str", a snapshot without changes, foreign orders, unknown codes or injected text, 200 times: ignored, one warn line; a change still arrives; no text reaches the client', async () => {
    const { endpoint } = await gateway();
    const events = watch(endpoint, await signIn(endpoint, 'ready@demo.test'));
    await until(() => events.length >= 1);
    const channel = `${PREFIX}live:${customer('ready@demo.test').userId}`;
    const [order] = ordersOf('ready@demo.test');
    const snapshot = { observedAt: new Date().toISOString(), orders: [order], fields: {}, changes: {} };
    const hostile = [
      'null',
      '42',
      '"str"',
      'not json {',
      JSON.stringify({ origin: 'x', message: null }),
      JSON.stringify({ origin: 'x', message: { kind: 'snapshot', snapshot: { ...snapshot, changes: undefined } } }),
      JSON.stringify({ origin: 'x', message: { kind: 'snapshot', snapshot: { ...snapshot, orders: [{ id: 'no-status' }] } } }),
      JSON.stringify({ origin: 'x', message: { kind: 'snapshot', snapshot: { ...snapshot, changes: { 'not-in-orders': [] } } } }),
      JSON.stringify({ origin: 'x', message: { kind: 'failure', code: 'CALL_US', details: {} } }),
      JSON.stringify({
        origin: 'x',
        message: { kind: 'failure', code: 'UPSTREAM_ERROR', details: { operation: 'Injected: call +1 555 0100' } },
      }),
      JSON.stringify({ origin: 'x', message: { kind: 'failure', code: 'UPSTREAM_ERROR', details: { upstreamStatus: 'Injected' } } }),
    ];
    for (let i = 0; i < 200; i++) await writer.publish(channel, hostile[i % hostile.length]!);
    // Well-formed, with text of its own: the code arrives, in the gateway's own words.
    await writer.publish(
      channel,
      JSON.stringify({
        origin: 'x',
        message: { kind: 'failure', code: 'UPSTREAM_ERROR', message: 'Injected text', details: { operation: 'orderDetails' } },
      }),
    );
    await until(() => events.some((event) => event.errors.length > 0));

    order!.status = 'DELIVERED';
    await until(() => events.some((event) => event.data?.orderUpdates.changes.some((change) => change.to === 'DELIVERED')));
    const failure = events.find((event) => event.errors.length > 0)!;
    expect(failure.errors).toEqual([
      expect.objectContaining({ message: 'The upstream failed.', extensions: { code: 'UPSTREAM_ERROR', operation: 'orderDetails' } }),
    ]);
    expect(JSON.stringify(events)).not.toMatch(/Injected|CALL_US|no-status/);
    expect(ignoredLines('live message')).toHaveLength(1);
  });

  it('a lease written with no expiry (or one longer than any holder takes) counts as expired: the customer is polled, and the lease expires again', async () => {
    const ready = customer('ready@demo.test').userId;
    const two = customer('two-orders@demo.test').userId;
    await writer.set(`${PREFIX}live:lease:${ready}`, 'someone');
    await writer.set(`${PREFIX}live:lease:${two}`, 'someone', 'PX', 24 * 3_600_000);
    const { endpoint } = await gateway();
    const streams = [
      watch(endpoint, await signIn(endpoint, 'ready@demo.test')),
      watch(endpoint, await signIn(endpoint, 'two-orders@demo.test')),
    ];
    await until(() => streams[0]!.length >= 1 && streams[1]!.length >= 2);
    for (const id of [ready, two]) {
      expect(await writer.get(`${PREFIX}live:lease:${id}`)).not.toBe('someone');
      const ttl = await writer.pttl(`${PREFIX}live:lease:${id}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThan(3_600_000);
    }
    expect(ignoredLines('live lease')).toHaveLength(1);
  });

  it('a cached answer written by hand (no caller, another caller, too large, not a string) is never served: the caller gets their own, from the upstream', async () => {
    const { endpoint } = await gateway({ responseCacheTtlMs: 30_000, responseCacheBytes: { entry: 1_000_000, total: 10_000_000 } });
    const token = await signIn(endpoint, 'ready@demo.test');
    const own = await execute(graphqlClient(endpoint, token), WholeOrderDocument);
    expect(own.errors).toEqual([]);
    const keys = await writer.keys(`${PREFIX}cache:answer:*`);
    expect(keys).toHaveLength(1);
    const key = keys[0]!;
    const caller = key.slice(`${PREFIX}cache:answer:`.length).split('.')[0]!;
    const forged = { data: { me: { ...own.data!.me!, email: 'forged@evil.test' } } };
    const writes: Array<() => Promise<unknown>> = [
      // The old format: an answer alone.
      () => writer.set(key, JSON.stringify(forged), 'PX', 30_000),
      () => writer.set(key, JSON.stringify({ caller: 'someone-else', storedAt: Date.now(), result: forged }), 'PX', 30_000),
      () =>
        writer.set(
          key,
          JSON.stringify({
            caller,
            storedAt: Date.now(),
            result: { ...forged, errors: [{ message: 'Injected', extensions: { code: 'CALL_US' } }] },
          }),
          'PX',
          30_000,
        ),
      () => writer.set(key, JSON.stringify({ caller, storedAt: Date.now(), result: { data: 'forged' } }), 'PX', 30_000),
      () => writer.set(key, 'x'.repeat(5_000_000), 'PX', 30_000),
      () => writer.del(key).then(() => writer.hset(key, 'data', 'forged')),
    ];
    for (const write of writes) {
      await write();
      simulator.clearLog();
      const again = await execute(graphqlClient(endpoint, token), WholeOrderDocument);
      expect(again.data?.me?.email).toBe('ready@demo.test');
      expect(JSON.stringify(again)).not.toMatch(/forged|Injected|CALL_US/);
      expect(calls('orderDetails')).toBe(1);
      await writer.del(key);
    }
    expect(ignoredLines('cached answer')).toHaveLength(1);
  });
});

describe.skipIf(!haveRedis)('a hung Redis (SIGSTOP)', () => {
  /** Scripts Redis ran: every command the gateway sends but PING and PUBLISH is one (the counters', the cache's). */
  async function scriptsRun(): Promise<number> {
    const stats = await writer.info('commandstats');
    return [...stats.matchAll(/^cmdstat_(eval|evalsha):calls=(\d+)/gm)].reduce((sum, [, , count]) => sum + Number(count), 0);
  }

  it('logins and cached queries answer while it is stopped, on local counters, with no cache and the right codes; /readyz says degraded; only the first requests waited; resumed: available and shared again', async () => {
    const { endpoint, origin } = await gateway({ responseCacheTtlMs: 30_000 });
    const token = await signIn(endpoint, 'ready@demo.test');
    const cached = await execute(graphqlClient(endpoint, token), WholeOrderDocument);
    expect(cached.errors).toEqual([]);
    await writer.config('RESETSTAT');

    redis.stop();
    const login = (password: string) =>
      graphqlClient(endpoint).rawRequest<{ login: { accessToken: string } | null }>(
        'mutation($p: String!) { login(username: "two-orders@demo.test", password: $p) { accessToken } }',
        { p: password },
      );
    const first = Promise.all([
      login(customer('two-orders@demo.test').password),
      login('wrong-password'),
      execute(graphqlClient(endpoint, token), WholeOrderDocument),
    ]);
    const outcome = await Promise.race([first, sleep(20_000).then(() => 'still waiting' as const)]);
    expect(outcome, 'the requests waited for Redis').not.toBe('still waiting');
    const [good, wrong, query] = outcome as Awaited<typeof first>;
    expect(good.errors).toBeUndefined();
    expect(good.data.login?.accessToken).toMatch(/^eyJ/);
    expect(wrong.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    expect(query.errors).toEqual([]);
    expect(query.data).toEqual(cached.data);
    expect(await readiness(origin)).toEqual({ status: 200, body: { status: 'ready', redis: 'degraded', memory: 'ok' } });

    // Degraded: the next requests do not try Redis at all (nothing more is queued for it).
    for (let i = 0; i < 4; i++) {
      expect((await execute(graphqlClient(endpoint, token), WholeOrderDocument)).errors).toEqual([]);
      expect((await login('wrong-password')).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
    // Five failures per username in a window, counted here while Redis hangs.
    expect((await login('wrong-password')).errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');

    redis.resume();
    await until(async () => (await readiness(origin)).body.redis === 'available', 10_000);
    // What reached Redis while it hung: the first requests' commands only (two counters for
    // each login, the cache's read: 5), not those of the 9 requests that came after.
    expect(await scriptsRun()).toBeLessThanOrEqual(6);
    expect(capturedLogLines.some((line) => line.includes('Redis is not answering in time (degraded)'))).toBe(true);
    expect(capturedLogLines.some((line) => line.includes('Redis is available again'))).toBe(true);

    // Shared again: the cache is written and read.
    await execute(graphqlClient(endpoint, token), WholeOrderDocument);
    simulator.clearLog();
    expect((await execute(graphqlClient(endpoint, token), WholeOrderDocument)).errors).toEqual([]);
    expect(simulator.requestLog).toEqual([]);
  });
});
