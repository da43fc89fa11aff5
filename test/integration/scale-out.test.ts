// Scale-out on loopback, with the real engines: three compiled gateway processes sharing one
// redis-server, behind nginx running deploy/nginx/order-graph.conf, in front of the
// simulator. What must hold across replicas: the same answers, one live poll per customer in
// all, a replica stopped under load losing nothing, and Redis going away and coming back.
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { createOrderClient, type OrderClient } from '../../src/client/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { demoCustomer } from '../helpers/demo.js';
import { execute, graphqlClient } from '../helpers/harness.js';
import { haveNginx, startNginx, type Nginx } from '../helpers/nginx.js';
import { checkoutCopy, killStarted, startProcess, type Started } from '../helpers/process.js';
import { overIntervals } from '../helpers/intervals.js';
import { haveRedis, startRedis, type RedisServer } from '../helpers/redis.js';

const POLL_MS = 500;
const SUBSCRIBERS = 50;

interface Replica {
  process: Started;
  origin: string;
}

let work: string;
let redis: RedisServer;
let simulator: Simulator;
let replicas: Replica[] = [];
let balancer: Nginx;
let token: string;
const watchers: { client: OrderClient; statuses: string[]; stop: AbortController }[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  for (const started = Date.now(); !(await condition()); await sleep(25)) {
    if (Date.now() - started > timeoutMs) throw new Error(`the condition did not hold within ${timeoutMs} ms`);
  }
}
const polls = (since: number) => simulator.requestLog.filter((entry) => entry.operation === 'orderDetails' && entry.at >= since).length;
/** Upstream polls over about ten poll intervals, and how many intervals really passed. */
const pollsOverTenIntervals = async () => {
  const { count, intervals } = await overIntervals(() => polls(0), POLL_MS, 10);
  return { polls: count, intervals };
};

/** A replica's count of a metric (0 when it is gone). */
async function metric(replica: Replica, name: string): Promise<number> {
  try {
    const text = await (await fetch(`${replica.origin}/metrics`)).text();
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
}
const streamsPerReplica = () => Promise.all(replicas.map((replica) => metric(replica, 'order_graph_live_streams')));
const readiness = async (replica: Replica) => (await (await fetch(`${replica.origin}/readyz`)).json()) as { redis?: string };

function startReplica(app: string): Promise<Replica> {
  const process = startProcess(
    'node',
    ['dist/src/server/main.js'],
    {
      ...simulator.urls,
      NODE_ENV: 'production',
      ALLOWED_HOSTS: 'localhost',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      REDIS_URL: redis.url,
      LIVE_POLL_INTERVAL_MS: String(POLL_MS),
      TRUSTED_PROXIES: '127.0.0.1',
    },
    app,
  );
  return process.output(/listening at (http:\/\/\S+)\/graphql/).then(([, origin]) => ({ process, origin: origin! }));
}

beforeAll(async () => {
  if (!haveRedis || !haveNginx) return;
  work = mkdtempSync(join(tmpdir(), 'order-graph-scale-'));
  chmodSync(work, 0o755);
  const app = checkoutCopy(join(work, 'app'), { build: true });
  redis = await startRedis();
  simulator = await startSimulator({ latencyMs: 20 });
  replicas = await Promise.all([1, 2, 3].map(() => startReplica(app)));
  balancer = await startNginx(join(work, 'nginx'), replicas.map((replica) => new URL(replica.origin).host));
  await until(async () => (await Promise.all(replicas.map(readiness))).every((state) => state.redis === 'available'));
  const ready = demoCustomer(simulator, 'ready@demo.test');
  const login = createOrderClient({ endpoint: balancer.endpoint });
  token = (await login.login(ready.username, ready.password)).accessToken;
}, 120_000);

afterAll(async () => {
  for (const watcher of watchers) watcher.stop.abort();
  killStarted();
  await redis?.kill();
  await simulator?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!haveRedis || !haveNginx)('three replicas, one Redis, nginx', () => {
  it('every replica answers the same, directly and through nginx', async () => {
    const direct = await Promise.all(replicas.map((replica) => execute(graphqlClient(`${replica.origin}/graphql`, token), WholeOrderDocument)));
    const balanced = await Promise.all(Array.from({ length: 6 }, () => execute(graphqlClient(balancer.endpoint, token), WholeOrderDocument)));
    for (const { data, errors } of [...direct, ...balanced]) {
      expect(errors).toEqual([]);
      expect(data).toEqual(direct[0]!.data);
    }
  });

  it(`${SUBSCRIBERS} subscribers of one customer, spread over the replicas: one upstream poll per interval in all`, async () => {
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const client = createOrderClient({ endpoint: balancer.endpoint, tokens: { accessToken: token, accessTokenExpiresAt: '', idToken: '', idTokenExpiresAt: '', refreshToken: '' } });
      const watcher = { client, statuses: [] as string[], stop: new AbortController() };
      watchers.push(watcher);
      void (async () => {
        for await (const event of client.watchOrders({ signal: watcher.stop.signal, minIntervalMs: POLL_MS })) {
          const status = event.data?.orderUpdates.order.status;
          if (status) watcher.statuses.push(status);
        }
      })().catch(() => undefined);
    }
    await until(() => watchers.every((watcher) => watcher.statuses.length > 0));
    const spread = await streamsPerReplica();
    expect(spread.reduce((sum, n) => sum + n, 0)).toBe(SUBSCRIBERS);
    expect(spread.every((n) => n > 0)).toBe(true);

    const { polls: counted, intervals } = await pollsOverTenIntervals();
    // One poller for all three replicas: about one poll per interval (three would poll three times as often).
    expect(counted).toBeGreaterThanOrEqual(intervals / 2);
    expect(counted).toBeLessThanOrEqual(intervals + 2);
    console.info(`scale-out: ${SUBSCRIBERS} subscribers over 3 replicas (${spread.join('/')}): ${counted} upstream polls in ${intervals.toFixed(1)} intervals of ${POLL_MS} ms`);
  });

  it('SIGTERM to one replica under load: no request lost; its subscribers come back through nginx and see the change made meanwhile', async () => {
    const [stopping, ...staying] = replicas as [Replica, ...Replica[]];
    const before = await metric(stopping, 'order_graph_live_streams');
    expect(before).toBeGreaterThan(0);
    let loading = true;
    const outcomes = { ok: 0, failed: [] as string[] };
    const load = Array.from({ length: 8 }, async () => {
      while (loading) {
        try {
          const { data, errors } = await execute(graphqlClient(balancer.endpoint, token), WholeOrderDocument);
          if (errors.length === 0 && data?.me?.orders?.[0]?.vehicle?.vin) outcomes.ok++;
          else outcomes.failed.push(JSON.stringify(errors).slice(0, 200));
        } catch (error) {
          outcomes.failed.push(error instanceof Error ? error.message.slice(0, 200) : String(error));
        }
      }
    });
    await sleep(1000);
    const signalledAt = Date.now();
    stopping.process.child.kill('SIGTERM');
    // The change comes while the stopped replica's subscribers are away.
    const order = simulator.data.orders.find((o) => o.reservationId === 'OC-ACBDE')!;
    order.status = 'DELIVERED';
    await until(async () => (await Promise.all(staying.map((replica) => metric(replica, 'order_graph_live_streams')))).reduce((a, b) => a + b, 0) === SUBSCRIBERS, 15_000);
    const reconnectedMs = Date.now() - signalledAt;
    await until(() => watchers.every((watcher) => watcher.statuses.at(-1) === 'DELIVERED'), 15_000);
    const everyoneSawItMs = Date.now() - signalledAt;
    expect(await stopping.process.exited).toBe(0);
    await sleep(1000);
    loading = false;
    await Promise.all(load);
    replicas = staying;

    expect(outcomes.failed).toEqual([]);
    expect(outcomes.ok).toBeGreaterThan(0);
    console.info(
      `scale-out: SIGTERM to a replica holding ${before} of ${SUBSCRIBERS} streams under load (8 concurrent whole orders through nginx): ${outcomes.ok} answered, ${outcomes.failed.length} lost; its subscribers were back on the other replicas after ${reconnectedMs} ms, all ${SUBSCRIBERS} had the status change after ${everyoneSawItMs} ms`,
    );
  });

  it('Redis killed: requests, logins and live updates go on (each replica polls for its own subscribers); started again: shared again', async () => {
    await redis.kill();
    await until(async () => (await Promise.all(replicas.map(readiness))).every((state) => state.redis === 'unavailable'));
    const answers = await Promise.all(Array.from({ length: 10 }, () => execute(graphqlClient(balancer.endpoint, token), WholeOrderDocument)));
    expect(answers.every(({ errors }) => errors.length === 0)).toBe(true);
    const two = demoCustomer(simulator, 'two-orders@demo.test');
    expect((await createOrderClient({ endpoint: balancer.endpoint }).login(two.username, two.password)).accessToken).toMatch(/^eyJ/);

    const order = simulator.data.orders.find((o) => o.reservationId === 'OC-ACBDE')!;
    order.status = 'READY_FOR_PICKUP';
    await until(() => watchers.every((watcher) => watcher.statuses.at(-1) === 'READY_FOR_PICKUP'), 15_000);
    const { polls: whileDown, intervals: downIntervals } = await pollsOverTenIntervals();
    // Each of the two replicas polls for its own subscribers now: more than one poll per interval, at most two.
    expect(whileDown).toBeGreaterThan(downIntervals * 1.2);
    expect(whileDown).toBeLessThanOrEqual(downIntervals * 2 + 2);

    await redis.start();
    await until(async () => (await Promise.all(replicas.map(readiness))).every((state) => state.redis === 'available'), 15_000);
    await sleep(POLL_MS * 3);
    const { polls: afterwards, intervals: backIntervals } = await pollsOverTenIntervals();
    expect(afterwards).toBeLessThanOrEqual(backIntervals + 2);
    order.status = 'DELIVERED';
    await until(() => watchers.every((watcher) => watcher.statuses.at(-1) === 'DELIVERED'), 15_000);
    console.info(`scale-out: Redis down: requests and logins answered, ${whileDown} polls in ${downIntervals.toFixed(1)} intervals (per replica); back: ${afterwards} polls in ${backIntervals.toFixed(1)} intervals`);
  });
});
