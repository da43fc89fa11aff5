// Whose data a request reaches: only its caller's. order(id:) by ownership (another
// customer's order, or an unknown id, is null with no upstream call naming it), and under
// load: many concurrent whole orders of ten customers, each request with its own token, none
// answered with another customer's data, none making a call under another request's token.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderByIdDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { PER_ORDER_OPERATIONS, wholeOrderCalls } from '../../src/graph/order-fields.js';
import type { SeedData } from '../../src/simulator/server.js';
import { demoOrders } from '../helpers/demo.js';
import { execute, startHarness, type Harness } from '../helpers/harness.js';

const CUSTOMERS = 10;
const REQUESTS_PER_CUSTOMER = 30;

/**
 * A copy of a seeded customer's whole world under new ids, so the simulator has one more: the
 * user, its orders, and every record of every other collection that names the customer or one
 * of its orders (by any of the order's keys; in a collection keyed by id, by its key), each id
 * in them replaced wherever it appears.
 */
function cloneCustomer(data: SeedData, username: string, n: number) {
  const source = data.users.find((u) => u.username === username)!;
  const orders = data.orders.filter((o) => o.userId === source.user.id);
  const owned = new Set<unknown>([source.user.id, ...orders.flatMap((o) => [o.id, o.reservationId])]);
  const collections = (Object.keys(data) as (keyof SeedData)[]).filter((name) => name !== 'users' && name !== 'orders');
  const records = collections.map((name) => {
    const collection = data[name] as unknown as Array<Record<string, unknown>> | Map<string, Record<string, unknown>>;
    const own =
      collection instanceof Map
        ? [...collection].filter(([key]) => owned.has(key))
        : collection
            .filter((record) => Object.values(record).some((value) => owned.has(value)))
            .map((record) => [undefined, record] as const);
    return { collection, own };
  });
  const ids = [...owned, ...records.flatMap(({ own }) => own.map(([, record]) => record.id))].filter(
    (id): id is string => typeof id === 'string',
  );
  // New ids that share no substring with the originals, so a leak cannot hide in a match.
  const renames = new Map(ids.map((id) => [id, createHash('sha256').update(`${n}:${id}`).digest('hex').slice(0, 32)]));
  const renamed = <T>(value: T): T =>
    JSON.parse(JSON.stringify(value), (_key, v: unknown) => (typeof v === 'string' ? (renames.get(v) ?? v) : v));
  const clone = renamed(source);
  data.users.push({ ...clone, username: `clone${n}-${username}`, user: { ...clone.user, email: `clone${n}-${username}` } });
  data.orders.push(...orders.map(renamed));
  for (const { collection, own } of records)
    for (const [key, record] of own) {
      if (collection instanceof Map) collection.set(renamed(key!), renamed(record));
      else collection.push(renamed(record));
    }
  return clone.user.id;
}

let harness: Harness;
beforeAll(async () => {
  // The gateway and the simulator share this test process: a generous timeout, since this
  // test is about whose data goes where, not about speed.
  // All the requests come from this one address: the per-address limits must not be what is measured.
  harness = await startHarness({
    simulator: { latencyMs: 2, jitterMs: 8 },
    gateway: {
      upstreamTimeoutMs: 60_000,
      requestDeadlineMs: 120_000,
      maxConnectionsPerAddress: 2_000,
      callerLimits: { operations: 2_000, upstreamCalls: 20_000 },
    },
  });
});
afterAll(() => harness.close());

const ordersOf = (username: string) => demoOrders(harness.simulator, username);

describe('ownership by construction', () => {
  it('order(id:) of another customer is null, no error, and no upstream call names that order', async () => {
    const token = await harness.login('early@demo.test');
    const foreign = ordersOf('ready@demo.test')[0]!;
    harness.simulator.clearLog();

    const { data, errors } = await execute(harness.client(token), OrderByIdDocument, { id: foreign.id });

    expect(data?.order).toBeNull();
    expect(errors).toEqual([]);
    expect(harness.simulator.requestLog.map((e) => e.operation)).toEqual(['orderDetails']);
    for (const entry of harness.simulator.requestLog) {
      expect(entry.orderIds).not.toContain(foreign.id);
      expect(entry.orderIds).not.toContain(foreign.reservationId);
    }
  });

  it('order(id:) of the caller own order makes its per-order calls with that id only', async () => {
    const token = await harness.login('two-orders@demo.test');
    const [first, second] = ordersOf('two-orders@demo.test');
    harness.simulator.clearLog();

    const { data, errors } = await execute(harness.client(token), OrderByIdDocument, { id: second!.id });

    expect(errors).toEqual([]);
    expect(data?.order?.id).toBe(second!.id);
    const perOrder = harness.simulator.requestLog.filter((e) => e.operation !== 'orderDetails');
    expect(perOrder).toHaveLength(PER_ORDER_OPERATIONS.length);
    for (const entry of perOrder) {
      expect(entry.orderIds.length).toBeGreaterThan(0);
      expect(entry.orderIds.every((id) => id === second!.id || id === second!.reservationId)).toBe(true);
      expect(entry.orderIds).not.toContain(first!.id);
    }
  });

  it('an unknown id is null the same way', async () => {
    const token = await harness.login('ready@demo.test');
    const { data, errors } = await execute(harness.client(token), OrderByIdDocument, { id: 'no-such-order' });
    expect(data?.order).toBeNull();
    expect(errors).toEqual([]);
  });
});

describe(`isolation under load: ${CUSTOMERS} customers × ${REQUESTS_PER_CUSTOMER} requests, all concurrent, each with its own token`, () => {
  it('zero responses with another customer data; zero upstream calls with another request token', { timeout: 180_000 }, async () => {
    const { simulator } = harness;
    const seeded = simulator.customers.map((c) => c.userId);
    const clones = ['ready@demo.test', 'two-orders@demo.test', 'production@demo.test'].map((u, i) =>
      cloneCustomer(simulator.data, u, i + 1),
    );
    const userIds = [...seeded, ...clones].slice(0, CUSTOMERS);
    expect(new Set(userIds).size).toBe(CUSTOMERS);

    const ordersOfUser = (userId: string) => simulator.data.orders.filter((o) => o.userId === userId);
    const owned = new Map(userIds.map((userId) => [userId, new Set(ordersOfUser(userId).flatMap((o) => [o.id, o.reservationId]))]));
    const everyoneElse = (userId: string) => userIds.filter((u) => u !== userId).flatMap((u) => [u, ...owned.get(u)!]);

    // One token per request: 1,000 distinct tokens.
    const requests = await Promise.all(
      Array.from({ length: CUSTOMERS * REQUESTS_PER_CUSTOMER }, async (_, i) => {
        const userId = userIds[i % CUSTOMERS]!;
        return { userId, token: await simulator.issueAccessToken(userId) };
      }),
    );
    expect(new Set(requests.map((r) => r.token)).size).toBe(requests.length);
    const ownerOfToken = new Map(requests.map((r) => [r.token, r.userId]));
    simulator.clearLog();

    const responses = await Promise.all(
      requests.map(async ({ userId, token }) => ({ userId, ...(await execute(harness.client(token), WholeOrderDocument)) })),
    );

    let foreign = 0;
    for (const { userId, data, errors } of responses) {
      expect(errors).toEqual([]);
      expect(data?.me?.id).toBe(userId);
      expect(data?.me?.orders?.map((o) => o.id)).toEqual(ordersOfUser(userId).map((o) => o.id));
      const text = JSON.stringify(data);
      for (const id of everyoneElse(userId)) if (text.includes(id)) foreign += 1;
    }
    expect(foreign).toBe(0);

    let wrongToken = 0;
    const callsPerToken = new Map<string, number>();
    for (const entry of simulator.requestLog) {
      const owner = entry.bearer ? ownerOfToken.get(entry.bearer) : undefined;
      if (!owner || owner !== entry.userId || entry.orderIds.some((id) => !owned.get(owner)!.has(id))) wrongToken += 1;
      callsPerToken.set(entry.bearer!, (callsPerToken.get(entry.bearer!) ?? 0) + 1);
    }
    expect(wrongToken).toBe(0);
    // Every request made exactly its own whole order's calls, all under its own token.
    for (const { userId, token } of requests) expect(callsPerToken.get(token)).toBe(wholeOrderCalls(owned.get(userId)!.size / 2));
  });
});
