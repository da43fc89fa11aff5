// Shared state in a real Redis (Debian's redis-server on a free port), between two gateways
// over one simulator: the login counters, the live polls (one poller per customer, taken over
// when it stops), the response cache; and what happens while Redis is down.
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OrderUpdatesDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { createOrderClient, type OrderResult } from '../../src/client/index.js';
import { createStreamTransport } from '../../src/client/streams.js';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { demoCustomer, demoOrders, demoToken } from '../helpers/demo.js';
import { capturedLogLines } from '../helpers/log-capture.js';
import { execute, graphqlClient, startGateway, type TestGatewayConfig } from '../helpers/harness.js';
import { overIntervals, until } from '../helpers/intervals.js';
import { haveRedis, startRedis, type RedisServer } from '../helpers/redis.js';
import { startUpstreamProxy } from '../helpers/upstream-proxy.js';

const POLL_MS = 300;

let redis: RedisServer;
let simulator: Simulator;
const cleanups: Array<() => unknown> = [];
beforeEach(async () => {
  if (!haveRedis) return;
  redis = await startRedis();
  simulator = await startSimulator({ latencyMs: 0 });
});
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  await simulator?.close();
  await redis?.close();
});

/**
 * Gateways sharing the Redis, each once its connection is up (before that it counts alone), each
 * reaching the simulator through a proxy of its own that counts its polls (`polls()`).
 */
async function gateways(count: number, options: TestGatewayConfig = {}) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      let polls = 0;
      const upstream = await startUpstreamProxy(simulator, {
        hold: (operation) => void (operation === 'orderDetails' && polls++),
      });
      cleanups.push(upstream.close);
      const gateway = await startGateway({
        upstreamUrls: upstream.urls,
        redisUrl: redis.url,
        live: { pollIntervalMs: POLL_MS },
        ...options,
      });
      cleanups.push(gateway.close);
      if (options.redisUrl !== null) await until(async () => (await readiness(gateway.origin)).redis === 'available');
      return Object.assign(gateway, { polls: () => polls });
    }),
  );
}

/** How many polls each gateway makes over `intervals` poll intervals, and how many intervals really passed. */
async function pollsOver(gateways: Array<{ polls(): number }>, intervals: number) {
  const before = gateways.map((gateway) => gateway.polls());
  const { count, intervals: passed } = await overIntervals(
    () => gateways.reduce((sum, gateway) => sum + gateway.polls(), 0),
    POLL_MS,
    intervals,
  );
  return { each: gateways.map((gateway, i) => gateway.polls() - before[i]!), count, intervals: passed };
}

const customer = (username: string) => demoCustomer(simulator, username);
const ordersOf = (username: string) => demoOrders(simulator, username);
const calls = (operation: string, since = 0) =>
  simulator.requestLog.filter((entry) => entry.operation === operation && entry.at >= since).length;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A live stream through one gateway, read into an array as its events come. */
function watch(endpoint: string, token: string) {
  const abort = new AbortController();
  cleanups.push(() => abort.abort());
  const events: OrderResult<{
    orderUpdates: { changes: { field: string; from: string | null; to: string | null }[]; order: { id: string; status: string } };
  }>[] = [];
  const done = (async () => {
    for await (const event of createStreamTransport({ endpoint, fetch, accessToken: () => token })(OrderUpdatesDocument, {}, abort.signal))
      events.push(event);
  })().catch(() => undefined);
  return { events, done, stop: () => abort.abort() };
}

async function signIn(endpoint: string, username: string) {
  const client = createOrderClient({ endpoint });
  await client.login(username, customer(username).password);
  return client.tokens!.accessToken;
}

const readiness = async (origin: string) => (await fetch(`${origin}/readyz`)).json() as Promise<{ status: string; redis?: string }>;

describe.skipIf(!haveRedis)('with REDIS_URL', () => {
  it('failed logins and refreshes count across replicas: 5 per username and address in all, then a delay on any of them; the owner on another address gets in', async () => {
    // Behind a (loopback) proxy, so the stranger and the owner have addresses of their own.
    const [a, b] = await gateways(2, { trustedProxies: ['loopback'] });
    const send = async (endpoint: string, from: string, query: string, variables: Record<string, string>) =>
      (await graphqlClient(endpoint).rawRequest<unknown>(query, variables, { 'x-forwarded-for': from })).errors?.[0]?.extensions ?? {};
    const loginWith = (endpoint: string, from: string, password: string) =>
      send(endpoint, from, 'mutation($p: String!) { login(username: "ready@demo.test", password: $p) { accessToken } }', { p: password });
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await loginWith(i % 2 === 0 ? a!.endpoint : b!.endpoint, '203.0.113.66', 'wrong-password'));
    expect(answers.map((extensions) => extensions.code)).toEqual([...Array(5).fill('UNAUTHENTICATED'), ...Array(3).fill('RATE_LIMITED')]);
    for (const { retryAfterSeconds } of answers.slice(5)) expect(retryAfterSeconds).toBeLessThanOrEqual(30);
    expect(calls('login')).toBe(5);
    expect(await loginWith(b!.endpoint, '198.51.100.7', customer('ready@demo.test').password)).toEqual({});
    expect(calls('login')).toBe(6);

    const refreshWith = (endpoint: string, from: string) =>
      send(endpoint, from, 'mutation { refreshTokens(refreshToken: "spent-refresh-token") { accessToken } }', {});
    const refreshes = [];
    for (let i = 0; i < 8; i++) refreshes.push((await refreshWith(i % 2 === 0 ? a!.endpoint : b!.endpoint, `192.0.2.${i + 1}`)).code);
    expect(refreshes).toEqual([...Array(5).fill('UNAUTHENTICATED'), ...Array(3).fill('RATE_LIMITED')]);
    expect(calls('refreshTokens')).toBe(5);
  });

  it('50 subscribers of one customer across two gateways: one poll per interval in all; a change reaches both', async () => {
    const [a, b] = await gateways(2);
    const token = await signIn(a!.endpoint, 'ready@demo.test');
    const streams = Array.from({ length: 50 }, (_, i) => watch((i % 2 === 0 ? a : b)!.endpoint, token));
    await until(() => streams.every((stream) => stream.events.length >= 1));
    expect(streams.every((stream) => stream.events[0]!.data?.orderUpdates.changes.length === 0)).toBe(true);

    const { count: polls, intervals } = await pollsOver([a!, b!], 8);
    // One poller for both gateways: at most one poll per interval, not two (a poller a loaded
    // machine delays past its lease is taken over, which moves the poll, never doubles it).
    expect(polls).toBeGreaterThanOrEqual(1);
    expect(polls).toBeLessThanOrEqual(intervals + 2);

    const [order] = ordersOf('ready@demo.test');
    order!.status = 'DELIVERED';
    await until(() => streams.every((stream) => stream.events.length >= 2));
    for (const stream of streams)
      expect(stream.events[1]!.data?.orderUpdates.changes[0]).toEqual({ field: 'status', from: 'READY_FOR_PICKUP', to: 'DELIVERED' });
  });

  it('the poller stops: another gateway takes its customers over at once, comparing with what the first saw', async () => {
    const [a, b] = await gateways(2);
    const token = await signIn(a!.endpoint, 'ready@demo.test');
    const first = watch(a!.endpoint, token);
    await until(() => first.events.length >= 1);
    // a polls; b's subscriber gets the current state from the snapshot in Redis.
    const second = watch(b!.endpoint, token);
    await until(() => second.events.length >= 1);
    await a!.drain();
    // a gave its lease back when it stopped (not left to expire): b may poll at once.
    const lease = `order-graph:live:lease:${customer('ready@demo.test').userId}`;
    const inspector = new Redis(redis.url);
    cleanups.push(() => inspector.quit());
    const holderAfterDrain = await inspector.get(lease);
    const [order] = ordersOf('ready@demo.test');
    order!.status = 'DELIVERED';
    await until(() => second.events.length >= 2, 20_000);
    expect(second.events[1]!.data?.orderUpdates.changes[0]).toEqual({ field: 'status', from: 'READY_FOR_PICKUP', to: 'DELIVERED' });
    // Released, or already taken by b: never a's, waiting to expire.
    const holderNow = await inspector.get(lease);
    expect(holderAfterDrain === null || holderAfterDrain === holderNow).toBe(true);
    expect(holderNow).not.toBeNull();
  });

  it('a revoked token’s stream on the replica that does not poll: the snapshot polled elsewhere reaches it only once its token passes a check made there after the snapshot came; nothing while the upstream cannot answer the check, then UNAUTHENTICATED', async () => {
    // A poll interval far longer than the test's steps: they all fall between two polls.
    const SLOW_POLL_MS = 2000;
    const [a, b] = await gateways(2, { live: { pollIntervalMs: SLOW_POLL_MS } });
    const owner = await simulator.issueAccessToken(customer('ready@demo.test').userId);
    const polling = watch(a!.endpoint, owner);
    await until(() => polling.events.length >= 1);
    // a polls the customer (with the owner's token); b follows it with another token, from a's snapshots.
    const revoked = await simulator.issueAccessToken(customer('ready@demo.test').userId, { expiresInSeconds: 3600 });
    const following = watch(b!.endpoint, revoked);
    await until(() => following.events.length >= 1);
    const polls = calls('orderDetails');
    simulator.setFault('customerDetails', '500');
    simulator.revokeAccessToken(revoked);
    const revokedAt = simulator.requestLog.length;
    const [order] = ordersOf('ready@demo.test');
    order!.status = 'DELIVERED';
    expect(calls('orderDetails')).toBe(polls);
    const checksOfRevoked = () =>
      simulator.requestLog.slice(revokedAt).filter((entry) => entry.operation === 'customerDetails' && entry.bearer === revoked);

    // a's next poll: its stream gets the change; b checks the revoked token when the snapshot comes, and the upstream cannot answer.
    await until(() => polling.events.length >= 2, SLOW_POLL_MS * 4);
    expect(polling.events[1]!.data?.orderUpdates.changes[0]).toEqual({ field: 'status', from: 'READY_FOR_PICKUP', to: 'DELIVERED' });
    await until(() => checksOfRevoked().length >= 1, SLOW_POLL_MS * 4);
    simulator.clearFaults();
    // The poll after it: b's check is refused, and the stream ends.
    await until(() => following.events.length >= 2, SLOW_POLL_MS * 4);
    await following.done;
    const seen = following.events.map((event) => event.errors[0]?.extensions?.code ?? event.data?.orderUpdates.changes);
    console.info(
      `a revoked token's stream on the replica that does not poll: ${JSON.stringify(seen)}; its /auth/me since the revocation: ${JSON.stringify(checksOfRevoked().map((entry) => entry.status))}`,
    );
    expect(seen).toEqual([[], 'UNAUTHENTICATED']);
    // Checked at once when the snapshot came, then each round while the upstream could not answer; refused once it could.
    const statuses = checksOfRevoked().map((entry) => entry.status);
    expect(statuses.at(-1)).toBe(401);
    expect(statuses.slice(0, -1).length).toBeGreaterThanOrEqual(1);
    expect(statuses.slice(0, -1).every((status) => status === 500)).toBe(true);
    // Every poll was made with the owner's token, by a.
    expect(new Set(simulator.requestLog.filter((entry) => entry.operation === 'orderDetails').map((entry) => entry.bearer))).toEqual(
      new Set([owner]),
    );
  });

  it('Redis down: requests and logins work, readiness says so (still 200), live updates go on per gateway; back: shared again', async () => {
    const [a, b] = await gateways(2);
    const token = await signIn(a!.endpoint, 'ready@demo.test');
    const streams = [watch(a!.endpoint, token), watch(b!.endpoint, token)];
    await until(() => streams.every((stream) => stream.events.length >= 1));
    expect(await readiness(a!.origin)).toEqual({ status: 'ready', redis: 'available', memory: 'ok' });

    await redis.kill();
    await until(async () => (await readiness(a!.origin)).redis === 'unavailable');
    const ready = await fetch(`${a!.origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(capturedLogLines.some((line) => line.includes('Redis is unavailable'))).toBe(true);
    const whole = await execute(graphqlClient(b!.endpoint, token), WholeOrderDocument);
    expect(whole.errors).toEqual([]);
    expect(await signIn(b!.endpoint, 'two-orders@demo.test')).toMatch(/^eyJ/);

    // Each gateway polls for its own subscribers now: two polls per interval, and both see changes.
    const [order] = ordersOf('ready@demo.test');
    order!.status = 'DELIVERED';
    await until(() => streams.every((stream) => stream.events.some((event) => event.data?.orderUpdates.changes.length)), POLL_MS * 6);
    const apart = await pollsOver([a!, b!], 6);
    // Apart, each polls (counted per gateway: a rate would be a time a loaded machine misses).
    expect(apart.each.every((count) => count >= 1)).toBe(true);

    await redis.start();
    await until(
      async () => (await readiness(a!.origin)).redis === 'available' && (await readiness(b!.origin)).redis === 'available',
      10_000,
    );
    await sleep(POLL_MS * 3);
    const shared = await pollsOver([a!, b!], 8);
    expect(shared.count).toBeLessThanOrEqual(shared.intervals + 2);
    expect(capturedLogLines.some((line) => line.includes('Redis is available again'))).toBe(true);
  });
});

describe.skipIf(!haveRedis)('the response cache (RESPONSE_CACHE_TTL_MS)', () => {
  for (const store of ['redis', 'memory'] as const) {
    it(`${store}: a caller's repeated query costs no upstream call; another caller gets their own; a live change is seen at once`, async () => {
      const [gateway] = await gateways(1, { responseCacheTtlMs: 30_000, ...(store === 'memory' ? { redisUrl: null } : {}) });
      const token = await signIn(gateway!.endpoint, 'ready@demo.test');
      const first = await execute(graphqlClient(gateway!.endpoint, token), WholeOrderDocument);
      expect(first.errors).toEqual([]);
      simulator.clearLog();
      const again = await execute(graphqlClient(gateway!.endpoint, token), WholeOrderDocument);
      expect(again.data).toEqual(first.data);
      expect(simulator.requestLog).toEqual([]);

      const other = await execute(
        graphqlClient(gateway!.endpoint, await signIn(gateway!.endpoint, 'two-orders@demo.test')),
        WholeOrderDocument,
      );
      expect(other.data?.me?.email).toBe('two-orders@demo.test');
      // No token: never from the cache.
      expect((await execute(graphqlClient(gateway!.endpoint), WholeOrderDocument)).errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');

      const stream = watch(gateway!.endpoint, token);
      await until(() => stream.events.length >= 1);
      const [order] = ordersOf('ready@demo.test');
      order!.status = 'DELIVERED';
      await until(() => stream.events.length >= 2);
      const after = await execute(graphqlClient(gateway!.endpoint, token), WholeOrderDocument);
      expect(after.data?.me?.orders?.[0]?.status).toBe('DELIVERED');
    });
  }

  it('isolation under load with the cache on: 10 callers, 10 concurrent requests each, twice, through two gateways: zero foreign answers', async () => {
    // Deadlines no busy machine reaches: a timed-out answer would be neither foreign nor cached.
    // All from this one address: the caller limits must not be what is measured.
    const [a, b] = await gateways(2, {
      responseCacheTtlMs: 30_000,
      upstreamTimeoutMs: 60_000,
      requestDeadlineMs: 60_000,
      callerLimits: { operations: 1000, upstreamCalls: 10_000 },
    });
    const customers = simulator.customers.filter((c) => c.username !== 'no-orders@demo.test');
    // Ten callers: every customer, and some of them again with a second token of their own.
    const callers = await Promise.all(
      [...customers, ...customers]
        .slice(0, 10)
        .map(async (c, i) => ({ email: c.username, token: await simulator.issueAccessToken(c.userId, { expiresInSeconds: 3600 + i }) })),
    );
    const round = () =>
      Promise.all(
        callers.flatMap(({ email, token }) =>
          Array.from({ length: 10 }, async (_, i) => ({
            email,
            result: await execute(graphqlClient((i % 2 ? a : b)!.endpoint, token), WholeOrderDocument),
          })),
        ),
      );
    const cold = await round();
    // Each caller's answer is written to Redis after it is sent: on a loaded machine the last
    // writes may still be on their way when the cold round ends. The warm round starts once
    // every caller's is there.
    const inspector = new Redis(redis.url);
    cleanups.push(() => inspector.quit());
    await until(async () => (await inspector.keys('order-graph:cache:answer:*')).length >= callers.length, 20_000);
    simulator.clearLog();
    const warm = await round();
    for (const answers of [cold, warm]) {
      expect(answers.filter(({ email, result }) => result.data?.me?.email !== email)).toEqual([]);
      // Only the fields asked for: nothing of the cache's own bookkeeping.
      expect(answers.filter(({ result }) => JSON.stringify(result).includes('__responseCache'))).toEqual([]);
    }
    // The second round came from the cache, shared by both gateways, each caller's own (an
    // order before a stage has no error, so its answer is kept too).
    expect(simulator.requestLog).toEqual([]);
  });

  for (const route of ['a query of its own', 'the poll of its stream', 'the credential check of its stream'] as const) {
    it(`a revoked token's cached answer is served until a replica hears the upstream refuse it (${route}); then it is gone from every replica`, async () => {
      const [a, b] = await gateways(2, { responseCacheTtlMs: 30_000 });
      const inspector = new Redis(redis.url);
      cleanups.push(() => inspector.quit());
      const token = await demoToken(simulator, 'ready@demo.test', { expiresInSeconds: 3600 });
      const other = await signIn(a!.endpoint, 'two-orders@demo.test');
      for (const caller of [token, other])
        expect((await execute(graphqlClient(a!.endpoint, caller), WholeOrderDocument)).errors).toEqual([]);
      await until(async () => (await inspector.keys('order-graph:cache:answer:*')).length === 2);
      // The checks skip the token the poll is made with: another stream of the customer, with a
      // token that lasts longer, takes the poll.
      if (route === 'the credential check of its stream') {
        const longer = watch(b!.endpoint, await demoToken(simulator, 'ready@demo.test', { expiresInSeconds: 7200 }));
        await until(() => longer.events.length >= 1);
      }
      const stream = route === 'a query of its own' ? undefined : watch(b!.endpoint, token);
      if (stream) await until(() => stream.events.length >= 1);

      simulator.revokeAccessToken(token);
      // Nothing has asked the upstream about the token yet: the answer is served (for at most the ttl).
      simulator.clearLog();
      expect((await execute(graphqlClient(b!.endpoint, token), WholeOrderDocument)).data?.me?.email).toBe('ready@demo.test');
      expect(simulator.requestLog).toEqual([]);

      if (stream)
        await until(() => stream.events.some((event) => event.errors.some((error) => error.extensions?.code === 'UNAUTHENTICATED')));
      else {
        const refused = await graphqlClient(b!.endpoint, token).rawRequest<unknown>('{ me { email } }');
        expect(refused.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
      }
      // Forgotten before the refusal is answered (or the stream ended): the other caller's alone is left.
      expect(await inspector.keys('order-graph:cache:answer:*')).toHaveLength(1);
      const after = await execute(graphqlClient(a!.endpoint, token), WholeOrderDocument);
      expect(after.data?.me ?? null).toBeNull();
      expect(after.errors.map((error) => error.extensions?.code)).toContain('UNAUTHENTICATED');
      // Another caller's answer stays.
      simulator.clearLog();
      expect((await execute(graphqlClient(a!.endpoint, other), WholeOrderDocument)).data?.me?.email).toBe('two-orders@demo.test');
      expect(simulator.requestLog).toEqual([]);
    });
  }
});
