// The response cache under a flood of large answers, against a real gateway: in memory it
// keeps within RESPONSE_CACHE_BYTES (heap after GC too) and forgets expired answers; in a
// real redis-server started with the shipped settings (deploy/kubernetes/redis.yaml, its
// maxmemory scaled down with the cache's budget, same policy, same ratio), the answers stay
// within their budget and never evict a locked user's login counter.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { DELIVERY_FINISHED_KEPT, DELIVERY_JOB_REDIS_BYTES } from '../../src/notify/delivery.js';
import { loadConfig } from '../../src/server/config.js';
import { createSimulator, type Simulator } from '../../src/simulator/server.js';
import { STRING_LENGTHS } from '../../src/upstream/models.js';
import { demoOrders, demoToken } from '../helpers/demo.js';
import { inProcessGateway, startGateway, type TestGateway } from '../helpers/harness.js';
import { argument, haveRedis, redisBytes, shippedRedis, startRedis } from '../helpers/redis.js';
import { escapes } from '../helpers/escapes.js';

const MIB = 1024 * 1024;
const cleanups: Array<() => unknown> = [];
const escaped = escapes();
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  // Each test's own: one that escaped is reported once, by the test it escaped from.
  expect(escaped.splice(0)).toEqual([]);
});

// A full collection, when this process lets the test ask for one (v8's flag, set at run time).
const gc: (() => void) | undefined = (() => {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
})();
const heapAfterGc = () => {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A customer with `count` orders whose product names take `bytes` of a page's answer (each
 * order's model, trim and country as long as the upstream may send them, shown under each of
 * PAGE's aliases): one whole page is one large answer.
 */
async function customerWithLargeOrders(count: number, bytes: number) {
  const simulator = createSimulator({ latencyMs: 0 });
  cleanups.push(simulator.close);
  const [template] = demoOrders(simulator, 'ready@demo.test');
  const length = Math.min(STRING_LENGTHS.text, Math.ceil(bytes / 3 / PRODUCT_ALIASES));
  for (let i = 0; i < count; i++) {
    const name = (field: string) => `${field}${i}`.padEnd(length, 'x');
    simulator.data.orders.push({
      ...template!,
      id: `large-${i}`,
      reservationId: `OC-L${i}`,
      product: { ...template!.product, model: name('M'), trim: name('T'), country: name('C') },
    });
  }
  const token = await demoToken(simulator, 'ready@demo.test', { expiresInSeconds: 3600 });
  return { simulator, token };
}

// One document (the parse and validation caches hold it once); each $id makes another answer.
const PRODUCT_ALIASES = 4;
const PAGE = `query Page($id: ID!) { orders(first: 100) { id reservationId ${Array.from(
  { length: PRODUCT_ALIASES },
  (_, i) => `p${i}: product { model trim country }`,
).join(' ')} } order(id: $id) { id } }`;

async function page(gateway: TestGateway, token: string, id: string) {
  const result = await gateway.client(token).rawRequest<{ orders: unknown[] }>(PAGE, { id });
  expect(result.errors).toBeUndefined();
  return JSON.stringify(result.data).length;
}

/** Asks again for the answers of `ids`, newest first; how many came from the cache (no upstream call). */
async function hits(simulator: Simulator, gateway: TestGateway, token: string, ids: string[]) {
  let found = 0;
  for (const id of [...ids].reverse()) {
    simulator.clearLog();
    await page(gateway, token, id);
    if (simulator.requestLog.length === 0) found++;
  }
  return found;
}

describe('the response cache in memory', () => {
  it('40 distinct answers of about 1 MB: only the newest that fit in RESPONSE_CACHE_BYTES are kept, and the heap holds no more than that', async () => {
    const { simulator, token } = await customerWithLargeOrders(99, 12_000);
    const total = 6 * MIB;
    const gateway = inProcessGateway({
      upstream: simulator,
      responseCacheTtlMs: 60_000,
      responseCacheBytes: { entry: 2 * MIB, total },
    });
    cleanups.push(gateway.close);
    const entryBytes = await page(gateway, token, 'warm-up');
    expect(entryBytes).toBeGreaterThan(MIB * 0.9);
    const before = gc && heapAfterGc();

    const ids = Array.from({ length: 40 }, (_, i) => `flood-${i}`);
    for (const id of ids) await page(gateway, token, id);
    if (gc) {
      const growth = heapAfterGc() - before!;
      expect(growth, `the heap grew ${Math.round(growth / MIB)} MiB`).toBeLessThan(total + 16 * MIB);
    }
    const found = await hits(simulator, gateway, token, ids);
    // The newest answers that fit, and no more: 1 to 5 of them in 6 MiB.
    expect(found).toBeGreaterThanOrEqual(1);
    expect(found * entryBytes).toBeLessThanOrEqual(total);
  });

  it.skipIf(!gc)('expired answers leave the heap at their ttl, though no request asks for them again', async () => {
    const { simulator, token } = await customerWithLargeOrders(99, 12_000);
    const ttlMs = 1500;
    const gateway = inProcessGateway({
      upstream: simulator,
      responseCacheTtlMs: ttlMs,
      responseCacheBytes: { entry: 2 * MIB, total: 32 * MIB },
    });
    cleanups.push(gateway.close);
    await page(gateway, token, 'warm-up');
    await sleep(ttlMs + 500);
    const before = heapAfterGc();
    for (let i = 0; i < 12; i++) await page(gateway, token, `flood-${i}`);
    await sleep(ttlMs + 500);
    const left = heapAfterGc() - before;
    expect(left, `${Math.round(left / MIB)} MiB left on the heap`).toBeLessThan(6 * MIB);
  });
});

describe.skipIf(!haveRedis)('the response cache in Redis, with the shipped Redis settings', () => {
  it('120 large answers: the cache keeps within its budget, Redis evicts nothing, and a locked user stays locked (no guess reaches the upstream)', async () => {
    const shipped = shippedRedis();
    // The share of the shipped maxmemory that is not the notifications' (their records and queue at their fullest).
    const notify = loadConfig({ NOTIFY_TOKEN_KEYS: `k1:${'A'.repeat(43)}=` }).notify!;
    const notifications = notify.totalBytes + (notify.queueJobs + 2 * DELIVERY_FINISHED_KEPT) * DELIVERY_JOB_REDIS_BYTES;
    const ratio = (redisBytes(argument(shipped.args, '--maxmemory')!) - notifications) / loadConfig({}).responseCacheBytes.total;
    // The same policy and ratio as shipped, scaled down: 16 MiB of Redis, about 2.5 MiB of answers.
    const maxmemory = 16 * MIB;
    const total = Math.floor(maxmemory / ratio);
    const args = shipped.args.map((arg, i) => (shipped.args[i - 1] === '--maxmemory' ? String(maxmemory) : arg));
    const redis = await startRedis({ args });
    cleanups.push(redis.close);
    const inspect = new Redis(redis.url);
    cleanups.push(() => inspect.disconnect());

    const { simulator, token } = await customerWithLargeOrders(50, 12_000);
    // With Redis the gateway is on a real socket, as in production; its upstream in process.
    const gateway = await startGateway({
      upstream: simulator,
      redisUrl: redis.url,
      responseCacheTtlMs: 60_000,
      responseCacheBytes: { entry: MIB, total },
    });
    cleanups.push(gateway.close);
    for (let i = 0; (await (await gateway.fetch(`${gateway.origin}/readyz`)).json()).redis !== 'available'; i++) {
      if (i > 250) throw new Error('the gateway did not connect to Redis');
      await sleep(20);
    }

    const guess = async () =>
      (
        await gateway
          .client()
          .rawRequest<unknown>('mutation { login(username: "two-orders@demo.test", password: "wrong-password") { accessToken } }')
      ).errors?.[0]?.extensions?.code;
    const locked: unknown[] = [];
    for (let i = 0; i < 6; i++) locked.push(await guess());
    expect(locked).toEqual([...Array(5).fill('UNAUTHENTICATED'), 'RATE_LIMITED']);

    let flooded = 0;
    // About 60 MB of answers: over three times what Redis may hold.
    const ids = Array.from({ length: 120 }, (_, i) => `flood-${i}`);
    await Promise.all(
      Array.from({ length: 4 }, async (_, lane) => {
        for (const id of ids.filter((_, i) => i % 4 === lane)) {
          const bytes = await page(gateway, token, id);
          flooded += bytes;
        }
      }),
    );
    expect(flooded).toBeGreaterThan(3 * maxmemory);

    simulator.clearLog();
    const after: unknown[] = [];
    for (let i = 0; i < 5; i++) after.push(await guess());
    expect(after).toEqual(Array(5).fill('RATE_LIMITED'));
    expect(simulator.requestLog.filter((entry) => entry.operation === 'login')).toEqual([]);

    const stats = await inspect.info('stats');
    expect(Number(/evicted_keys:(\d+)/.exec(stats)![1])).toBe(0);
    const answers = await inspect.keys('order-graph:cache:answer:*');
    const cached = (await Promise.all(answers.map((key) => inspect.strlen(key)))).reduce((sum, bytes) => sum + bytes, 0);
    expect(answers.length).toBeGreaterThan(0);
    expect(cached).toBeLessThanOrEqual(total);
    // The newest answers are the ones kept: the last lane's (a write that did not finish in
    // Redis's command timeout on a loaded machine is dropped, as it should be, so not the very last alone).
    expect(await hits(simulator, gateway, token, ids.slice(-4))).toBeGreaterThanOrEqual(1);
  });
});
