// Notifications end to end, with the gateway's own parts: its watcher polling the simulator on
// the customer's behalf (one replica per customer: the notify lease in a real Redis), the
// delivery queue (BullMQ in that Redis, or in process), and webhooks to a local receiver that
// verifies each signature. The demo order is moved by the simulator's advance; what is
// asserted is what arrived, how many times and in which order, never how fast.
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotifySettings } from '../../src/notify/contracts.js';
import { MOVING_CUSTOMER, MOVING_STAGES } from '../../src/simulator/moves.js';
import { createSimulator, startSimulator, type InProcessSimulator, type Simulator } from '../../src/simulator/server.js';
import { demoCustomer, demoOrders } from '../helpers/demo.js';
import { capturedLogLines } from '../helpers/log-capture.js';
import { inProcessGateway, type GatewayFetch, type TestGatewayConfig } from '../helpers/harness.js';
import { until } from '../helpers/intervals.js';
import { notifySettings } from '../helpers/notify.js';
import { startProcess } from '../helpers/process.js';
import { haveRedis, startRedis, type RedisServer } from '../helpers/redis.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const POLL_MS = Number(process.env.NOTIFY_TEST_POLL_MS ?? 1000);
const KEYS = `k1:${randomBytes(32).toString('base64')}`;
const settings = (overrides: Partial<NotifySettings> = {}) => notifySettings(KEYS, POLL_MS, overrides);

/** What a test needs of a gateway: its fetch (in process, or over a socket to a child's). */
type Reachable = { fetch: GatewayFetch };

let simulator: InProcessSimulator;
let receiver: WebhookReceiver;
const cleanups: Array<() => unknown> = [];
beforeEach(async () => {
  simulator = createSimulator({ latencyMs: 0 });
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  if (process.env.NOTIFY_TEST_LOGS) for (const line of capturedLogLines) if (/"level":(40|50)/.test(line)) console.log(line.slice(0, 600));
  while (cleanups.length) await cleanups.pop()!();
  await receiver.close();
  await simulator.close();
});

/** A gateway in process; with Redis, once its connection is up (before that its notification store refuses). */
async function gateway(config: TestGatewayConfig, upstream: Simulator = simulator, { cleanup = true } = {}) {
  const started =
    upstream === simulator
      ? inProcessGateway({ upstream: simulator, ...config })
      : inProcessGateway({ upstreamUrls: upstream.urls, ...config });
  if (cleanup) cleanups.push(() => started.close());
  if (config.redisUrl) await redisReady(started);
  return started;
}

const redisReady = (gw: Reachable) =>
  until(async () => ((await (await gw.fetch('/readyz')).json()) as { redis?: string }).redis === 'available');

async function graphql<T>(gw: Reachable, query: string, variables: Record<string, unknown> = {}, token?: string): Promise<T> {
  const response = await gw.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: { message: string; extensions?: { code?: string } }[] };
  if (body.errors) throw Object.assign(new Error(body.errors[0]!.message), { code: body.errors[0]!.extensions?.code });
  return body.data!;
}

/** Signs the customer in through the gateway: its access token and the refresh token to hand over. */
async function signIn(gw: Reachable, username: string, upstream: Simulator = simulator) {
  const { login } = await graphql<{ login: { accessToken: string; refreshToken: string } }>(
    gw,
    'mutation ($username: String!, $password: String!) { login(username: $username, password: $password) { accessToken refreshToken } }',
    { username, password: demoCustomer(upstream, username).password },
  );
  return login;
}

/** Every webhook secret the gateway has shown. */
const secrets: string[] = [];

/** Adds a webhook target at the receiver's `path` (its secret given to the receiver): the target's id. */
async function addWebhook(gw: Reachable, token: string, path: string, refreshToken?: string): Promise<string> {
  const { addWebhookTarget } = await graphql<{ addWebhookTarget: { target: { id: string }; secret: string } }>(
    gw,
    'mutation ($url: String!, $refreshToken: String) { addWebhookTarget(url: $url, refreshToken: $refreshToken) { target { id } secret } }',
    { url: receiver.url(path), refreshToken },
    token,
  );
  receiver.sign(path, addWebhookTarget.secret);
  secrets.push(addWebhookTarget.secret);
  return addWebhookTarget.target.id;
}

interface TargetState {
  id: string;
  lastDeliveredAt: string | null;
  failingSince: string | null;
  disabledAt: string | null;
}
const targets = async (gw: Reachable, token: string) =>
  (
    await graphql<{ notifications: { targets: TargetState[] } }>(
      gw,
      '{ notifications { targets { id lastDeliveredAt failingSince disabledAt } } }',
      {},
      token,
    )
  ).notifications.targets;

/** The orderDetails calls the simulator has answered: the watchers' polls (nothing else asks for orders here). */
const orderPolls = (upstream: Simulator) => upstream.requestLog.filter((entry) => entry.operation === 'orderDetails').length;

/** Waits for `n` more polls of the orders: after a target is added, the first sets the baseline and the next shows it was saved. */
async function polls(n: number, upstream: Simulator = simulator) {
  const before = orderPolls(upstream);
  await until(() => orderPolls(upstream) >= before + n, 30_000);
}

/** The demo order's title at a stage, as messages.ts words it. */
const stageWord = (stage: string) => stage.toLowerCase().replaceAll('_', ' ');
const titles = (path: string) => receiver.at(path).map(({ data }) => data.title);
const types = (path: string) => receiver.at(path).map(({ type }) => type);
const ids = (path: string) => receiver.at(path).map(({ id }) => id);

/** Everything Redis holds, as text: every key's name and value of any type. */
async function redisText(url: string): Promise<string> {
  const client = new Redis(url);
  try {
    const parts: string[] = [];
    for (const key of await client.keys('*')) {
      const type = await client.type(key);
      const value =
        type === 'string'
          ? await client.get(key)
          : type === 'hash'
            ? await client.hgetall(key)
            : type === 'list'
              ? await client.lrange(key, 0, -1)
              : type === 'set'
                ? await client.smembers(key)
                : type === 'zset'
                  ? await client.zrange(key, 0, -1)
                  : type === 'stream'
                    ? await client.xrange(key, '-', '+')
                    : null;
      parts.push(key, JSON.stringify(value));
    }
    return parts.join('\n');
  } finally {
    client.disconnect();
  }
}

describe('notifications in one process (no Redis)', () => {
  it('NOTIFY_MESSAGES_PER_HOUR: the changes past it are not sent, and a test message past it is refused', async () => {
    const gw = await gateway({ notify: settings({ messagesPerHour: 2 }) });
    const { accessToken, refreshToken } = await signIn(gw, MOVING_CUSTOMER);
    const home = await addWebhook(gw, accessToken, '/home', refreshToken);
    await polls(2);
    const moves = [simulator.advance()];
    await receiver.until(() => receiver.at('/home').length === 1);
    moves.push(simulator.advance());
    await receiver.until(() => receiver.at('/home').length === 2);
    simulator.advance();
    await polls(3);
    expect(titles('/home')).toEqual(moves.map(({ reservationId, to }) => `Order ${reservationId}: ${stageWord(to)}`));
    await expect(graphql(gw, 'mutation ($id: ID!) { sendTestNotification(id: $id) }', { id: home }, accessToken)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
  });

  it('a failing target is retried with backoff, then disabled, and the customer told on the other target; it gets nothing more', () =>
    failingTarget({}));

  it('a crowd of messages for one failing target makes one attempt per space, not one each; once it answers, each is delivered once', async () => {
    const [messages, attempts] = [8, 6];
    const gw = await gateway({ notify: settings(), notifyQueueTiming: { retries: { attempts, backoffMs: 200 } } });
    receiver.answer('/down', 503);
    const { accessToken, refreshToken } = await signIn(gw, MOVING_CUSTOMER);
    const down = await addWebhook(gw, accessToken, '/down', refreshToken);
    for (let n = 0; n < messages; n += 1)
      await graphql(gw, 'mutation ($id: ID!) { sendTestNotification(id: $id) }', { id: down }, accessToken);
    // Each message's first try, then 1.5 s of retries: each retrying on its own would make four
    // POSTs in that time (at 0, 0.2, 0.6 and 1.4 s).
    await receiver.until(() => receiver.at('/down').length >= messages, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const failing = receiver.at('/down').length;
    receiver.answer('/down', 204);
    await until(async () => (await targets(gw, accessToken))[0]!.failingSince === null);
    await receiver.until(() => new Set(ids('/down').slice(failing)).size === messages, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ids('/down').slice(failing).toSorted()).toEqual([...new Set(ids('/down'))].toSorted());
    expect(failing).toBeLessThan((messages * attempts) / 2);
    console.log(
      `a failing target with ${messages} messages waiting: ${failing} attempts while it failed (each retrying alone: up to ${messages * attempts})`,
    );
  });

  it('NOTIFY_QUEUE_JOBS in process: a job past it is refused (RATE_LIMITED) and never sent', () => fullQueue({}));

  it('a revoked access token: renewed with the kept refresh token as its own bearer, the new pair saved, and the polls go on; twice', async () => {
    const gw = await gateway({ notify: settings() });
    const { accessToken, refreshToken } = await signIn(gw, MOVING_CUSTOMER);
    await addWebhook(gw, accessToken, '/home', refreshToken);
    await polls(2);
    const renewals = () => simulator.requestLog.filter((entry) => entry.operation === 'refreshTokens');
    const handedOver = renewals().length;
    const moves = [];
    for (let n = 1; n <= 2; n += 1) {
      // The gateway's access token (its polls' bearer) revoked: the next poll renews.
      simulator.revokeAccessToken(simulator.requestLog.filter((entry) => entry.operation === 'orderDetails').at(-1)!.bearer!);
      moves.push(simulator.advance());
      await receiver.until(() => receiver.at('/home').length === n);
    }
    const renewed = renewals().slice(handedOver);
    expect(renewed.map(({ status }) => status)).toEqual([200, 200]);
    // The refresh token is its own bearer, and each renewal used the one the previous gave (single-use).
    expect(renewed.every(({ bearer }) => bearer !== null && !bearer.includes('.'))).toBe(true);
    expect(new Set(renewed.map(({ bearer }) => bearer)).size).toBe(2);
    expect(titles('/home')).toEqual(moves.map(({ reservationId, to }) => `Order ${reservationId}: ${stageWord(to)}`));
  });
});

describe('notifications in one process (no Redis): a record that no longer fits', () => {
  it('orders past NOTIFY_RECORD_BYTES end notifications as a refused renewal does: one `ended` notice, the record gone, no more polls', async () => {
    const gw = await gateway({ notify: settings({ recordBytes: 16 * 1024, messagesPerHour: 1 }) });
    const { accessToken, refreshToken } = await signIn(gw, MOVING_CUSTOMER);
    await addWebhook(gw, accessToken, '/home', refreshToken);
    await polls(2);
    // 40 more orders: their fields (about 700 bytes each) no longer fit in 16 KiB.
    const [order] = demoOrders(simulator, MOVING_CUSTOMER);
    for (let n = 0; n < 40; n += 1)
      simulator.data.orders.push({ ...structuredClone(order!), id: randomUUID(), reservationId: `RN-MORE-${n}` });
    await receiver.until(() => types('/home').includes('notifications.ended'));
    const calls = orderPolls(simulator);
    await new Promise((resolve) => setTimeout(resolve, 3 * POLL_MS));
    expect(orderPolls(simulator)).toBe(calls);
    expect(types('/home').filter((type) => type === 'notifications.ended')).toHaveLength(1);
    expect(types('/home').at(-1)).toBe('notifications.ended');
    expect(await targets(gw, accessToken)).toEqual([]);
  });
});

/** NOTIFY_QUEUE_JOBS (1 here): a job waiting for its retry fills the queue; the next is refused, and never sent. */
async function fullQueue(config: TestGatewayConfig) {
  const gw = await gateway({
    ...config,
    notify: settings({ queueJobs: 1 }),
    notifyQueueTiming: { retries: { attempts: 10, backoffMs: 60_000 } },
  });
  receiver.answer('/broken', 500);
  const { accessToken, refreshToken } = await signIn(gw, MOVING_CUSTOMER);
  const broken = await addWebhook(gw, accessToken, '/broken', refreshToken);
  const ok = await addWebhook(gw, accessToken, '/ok');
  const sendTest = (id: string) => graphql(gw, 'mutation ($id: ID!) { sendTestNotification(id: $id) }', { id }, accessToken);
  await sendTest(broken);
  await receiver.until(() => receiver.at('/broken').length === 1);
  await expect(sendTest(ok)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  await polls(2);
  expect(receiver.at('/ok')).toEqual([]);
  expect(types('/broken')).toEqual(['notification.test']);
}

/**
 * A failing target retried with backoff (200 ms doubling) until it failed for
 * NOTIFY_DISABLE_AFTER_MS (1.5 s), then disabled, the other target told; in process or over Redis.
 */
async function failingTarget(config: TestGatewayConfig) {
  const gw = await gateway({
    ...config,
    notify: settings({ disableAfterMs: 1_500 }),
    notifyQueueTiming: { retries: { attempts: 10, backoffMs: 200 } },
  });
  receiver.answer('/broken', 500);
  const { accessToken, refreshToken } = await signIn(gw, MOVING_CUSTOMER);
  const broken = await addWebhook(gw, accessToken, '/broken', refreshToken);
  const ok = await addWebhook(gw, accessToken, '/ok');
  await polls(2);
  const move = simulator.advance();
  await receiver.until(() => receiver.at('/ok').length === 2, 30_000);

  expect(types('/ok')).toEqual(['order.changed', 'target.disabled']);
  expect(receiver.at('/ok')[1]!.data.body).toContain('webhook');
  const attempts = receiver.at('/broken');
  // The same message each time, retried until the target had failed for NOTIFY_DISABLE_AFTER_MS.
  expect(attempts.length).toBeGreaterThanOrEqual(2);
  expect(new Set(ids('/broken'))).toEqual(new Set([receiver.at('/ok')[0]!.id]));
  expect(titles('/broken')[0]).toBe(`Order ${move.reservationId}: ${stageWord(move.to)}`);
  const gaps = attempts.slice(1).map((attempt, n) => Math.round(attempt.at - attempts[n]!.at));
  console.log(
    `notify retries under a failing target (${config.redisUrl ? 'BullMQ' : 'in process'}, backoff 200 ms, disabled after 1500 ms): ${attempts.length} attempts, gaps ms: ${gaps.join(', ')}`,
  );

  const states = new Map((await targets(gw, accessToken)).map((target) => [target.id, target]));
  expect(states.get(broken)).toMatchObject({ disabledAt: expect.any(String), failingSince: expect.any(String), lastDeliveredAt: null });
  expect(states.get(ok)).toMatchObject({ disabledAt: null, failingSince: null, lastDeliveredAt: expect.any(String) });

  simulator.advance();
  await receiver.until(() => receiver.at('/ok').length === 3);
  await polls(2);
  expect(types('/ok')).toEqual(['order.changed', 'target.disabled', 'order.changed']);
  expect(receiver.at('/broken')).toHaveLength(attempts.length);
}

describe.skipIf(!haveRedis)('notifications across replicas (Redis)', () => {
  let redis: RedisServer;
  beforeEach(async () => {
    redis = await startRedis();
    // Last: the gateways stop first, while their Redis still answers.
    cleanups.unshift(() => redis.close());
  });

  it('every stage change of one order is one message to each target, however many replicas poll; Redis holds no token, secret or address', async () => {
    const [a, b] = [await gateway({ redisUrl: redis.url, notify: settings() }), await gateway({ redisUrl: redis.url, notify: settings() })];
    const { accessToken, refreshToken } = await signIn(a, MOVING_CUSTOMER);
    await addWebhook(a, accessToken, '/home', refreshToken);
    await addWebhook(b, accessToken, '/phone');
    await polls(2);

    const latencies: number[] = [];
    const moves = [];
    for (let n = 1; n <= MOVING_STAGES.length; n += 1) {
      // At any point of the poll interval: the latency's spread, for the measurement.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * POLL_MS));
      const advancedAt = performance.now();
      moves.push(simulator.advance());
      await receiver.until(() => receiver.at('/home').length >= n && receiver.at('/phone').length >= n);
      latencies.push(Math.max(...['/home', '/phone'].map((path) => receiver.at(path)[n - 1]!.at)) - advancedAt);
    }
    // A few more rounds of both replicas: nothing more comes.
    await polls(3);
    for (const path of ['/home', '/phone']) {
      expect(types(path)).toEqual(moves.map(() => 'order.changed'));
      expect(titles(path)).toEqual(moves.map(({ reservationId, to }) => `Order ${reservationId}: ${stageWord(to)}`));
      expect(receiver.at(path).every(({ verified }) => verified)).toBe(true);
      expect(new Set(ids(path)).size).toBe(moves.length);
    }
    // The same change has the same key on every target.
    expect(ids('/home')).toEqual(ids('/phone'));
    const kept = await redisText(redis.url);
    expect(kept).toContain('notify:deliveries');
    for (const secret of [accessToken, refreshToken, receiver.url('/home'), receiver.url('/phone'), ...secrets])
      expect(kept).not.toContain(secret);
    console.log(`notify latency (poll ${POLL_MS} ms, advance → both targets), ms: ${latencies.map(Math.round).join(', ')}`);
  });

  it('a refused renewal ends notifications: one `ended` notice to each target, then the record is gone and nothing more is polled', async () => {
    const gw = await gateway({ redisUrl: redis.url, notify: settings() });
    const { accessToken, refreshToken } = await signIn(gw, MOVING_CUSTOMER);
    await addWebhook(gw, accessToken, '/home', refreshToken);
    await addWebhook(gw, accessToken, '/phone');
    await polls(2);
    // The account is gone upstream: the gateway's access token (its polls' bearer) is revoked and
    // its refresh token refused ("The user of this refresh token no longer exists").
    const kept = simulator.requestLog.filter((entry) => entry.operation === 'orderDetails').at(-1)!.bearer!;
    simulator.revokeAccessToken(kept);
    const { userId } = demoCustomer(simulator, MOVING_CUSTOMER);
    simulator.data.users.splice(
      simulator.data.users.findIndex(({ user }) => user.id === userId),
      1,
    );
    await receiver.until(() => receiver.at('/home').length >= 1 && receiver.at('/phone').length >= 1);
    const client = new Redis(redis.url);
    cleanups.push(() => client.disconnect());
    await until(async () => (await client.keys('*notify:record:*')).length === 0);
    const calls = simulator.requestLog.length;
    await new Promise((resolve) => setTimeout(resolve, 3 * POLL_MS));
    expect(simulator.requestLog.length).toBe(calls);
    for (const path of ['/home', '/phone']) {
      expect(types(path)).toEqual(['notifications.ended']);
      expect(receiver.at(path)[0]!.verified).toBe(true);
    }
  });

  it('a key taken out of NOTIFY_TOKEN_KEYS: the records it sealed end (nothing polled, nothing sent: their addresses do not open either)', async () => {
    const first = await gateway({ redisUrl: redis.url, notify: settings() }, simulator, { cleanup: false });
    const { accessToken, refreshToken } = await signIn(first, MOVING_CUSTOMER);
    await addWebhook(first, accessToken, '/home', refreshToken);
    await polls(2);
    await first.close();
    const calls = orderPolls(simulator);
    await gateway({
      redisUrl: redis.url,
      notify: settings({ tokenKeys: notifySettings(`k2:${randomBytes(32).toString('base64')}`, POLL_MS).tokenKeys }),
    });
    const client = new Redis(redis.url);
    cleanups.push(() => client.disconnect());
    await until(async () => (await client.keys('*notify:record:*')).length === 0);
    await new Promise((resolve) => setTimeout(resolve, 2 * POLL_MS));
    expect(orderPolls(simulator)).toBe(calls);
    expect(receiver.at('/home')).toEqual([]);
  });

  it('a failing target over BullMQ: retried with backoff, then disabled, and the customer told on the other target', () =>
    failingTarget({ redisUrl: redis.url }));

  it('NOTIFY_QUEUE_JOBS over BullMQ: a job past it is refused (RATE_LIMITED) and never sent', () => fullQueue({ redisUrl: redis.url }));

  it('a replica restarting loses nothing: a message waiting for its retry is delivered by the next replica, with the same key', async () => {
    const timing = { retries: { attempts: 10, backoffMs: 1_500 } };
    const first = await gateway({ redisUrl: redis.url, notify: settings(), notifyQueueTiming: timing }, simulator, { cleanup: false });
    receiver.answer('/home', 503);
    const { accessToken, refreshToken } = await signIn(first, MOVING_CUSTOMER);
    await addWebhook(first, accessToken, '/home', refreshToken);
    await polls(2);
    const move = simulator.advance();
    await receiver.until(() => receiver.at('/home').length === 1);
    await first.close();
    receiver.answer('/home', 204);
    const before = receiver.at('/home').length;
    await gateway({ redisUrl: redis.url, notify: settings(), notifyQueueTiming: timing });
    await receiver.until(() => receiver.at('/home').length === before + 1, 30_000);
    await polls(3);
    expect(types('/home')).toEqual(Array.from({ length: before + 1 }, () => 'order.changed'));
    expect(new Set(ids('/home')).size).toBe(1);
    expect(titles('/home').at(-1)).toBe(`Order ${move.reservationId}: ${stageWord(move.to)}`);
  });

  it('a replica killed mid-delivery: another delivers the message once more, with the same webhook-id, and nothing else', async () => {
    const upstream = await startSimulator({ latencyMs: 0 });
    cleanups.push(() => upstream.close());
    const timing = { lockMs: 1_000, stalledIntervalMs: 500 };
    const child = startProcess('node', ['--import', 'tsx', 'test/helpers/notify-gateway.ts'], {
      REDIS_URL: redis.url,
      NOTIFY_TEST_UPSTREAM: JSON.stringify(upstream.urls),
      NOTIFY_TEST_KEYS: KEYS,
      NOTIFY_TEST_POLL_MS: String(POLL_MS),
      NOTIFY_TEST_QUEUE_TIMING: JSON.stringify(timing),
    });
    cleanups.push(() => void child.child.kill('SIGKILL'));
    const origin = (await child.output(/notify gateway at (http:\S+)/))[1]!;
    const a: Reachable = { fetch: (input, init) => fetch(new URL(input as string, origin), init) };
    await redisReady(a);
    const { accessToken, refreshToken } = await signIn(a, MOVING_CUSTOMER, upstream);
    await addWebhook(a, accessToken, '/home', refreshToken);
    await polls(2, upstream);
    receiver.answer('/home', 'hold');
    const move = upstream.advance();
    await receiver.until(() => receiver.at('/home').length === 1);
    child.child.kill('SIGKILL');
    await child.exited;
    receiver.answer('/home', 204);
    await gateway({ redisUrl: redis.url, notify: settings(), notifyQueueTiming: timing }, upstream);
    await receiver.until(() => receiver.at('/home').length === 2, 30_000);
    // The other replica polls the customer now (the lease of the dead one expired): nothing more comes.
    await polls(3, upstream);
    expect(types('/home')).toEqual(['order.changed', 'order.changed']);
    expect(new Set(ids('/home')).size).toBe(1);
    expect(titles('/home')).toEqual([1, 2].map(() => `Order ${move.reservationId}: ${stageWord(move.to)}`));
  });
});
