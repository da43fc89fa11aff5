import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { execute, startHarness, type Harness } from '../helpers/harness.js';

let harness: Harness;
beforeAll(async () => {
  // A little latency and jitter so that requests really overlap and finish out of order.
  // The gateway and the simulator share this test process: a generous timeout, since this
  // test is about whose data goes where, not about speed.
  harness = await startHarness({ simulator: { latencyMs: 5, jitterMs: 10 }, gateway: { upstreamTimeoutMs: 30_000 } });
});
afterAll(() => harness.close());

describe('two customers, 200 interleaved concurrent requests', () => {
  it('no response holds the other customer data; every upstream call carries its own request token', async () => {
    const customers = ['ready@demo.test', 'two-orders@demo.test'].map((username) => {
      const { userId } = harness.simulator.customers.find((c) => c.username === username)!;
      const orders = harness.simulator.data.orders.filter((o) => o.userId === userId);
      return { username, userId, orderIds: orders.map((o) => o.id), reservationIds: orders.map((o) => o.reservationId) };
    });
    const tokens = await Promise.all(customers.map((c) => harness.login(c.username)));
    harness.simulator.clearLog();

    const responses = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const who = i % 2;
        return { who, ...(await execute(harness.client(tokens[who]), WholeOrderDocument)) };
      }),
    );

    for (const { who, data, errors } of responses) {
      const mine = customers[who]!;
      const other = customers[1 - who]!;
      expect(errors).toEqual([]);
      expect(data?.me?.id).toBe(mine.userId);
      expect(data?.me?.orders?.map((o) => o.id)).toEqual(mine.orderIds);
      const text = JSON.stringify(data);
      for (const id of [other.userId, ...other.orderIds, ...other.reservationIds]) expect(text).not.toContain(id);
    }

    const log = harness.simulator.requestLog;
    expect(log).toHaveLength(100 * (2 + 6 * 1) + 100 * (2 + 6 * 2));
    for (const entry of log) {
      const owner = customers.find((c) => c.userId === entry.userId)!;
      expect(entry.bearer).toBe(tokens[customers.indexOf(owner)]);
      for (const id of entry.orderIds) expect([...owner.orderIds, ...owner.reservationIds]).toContain(id);
    }
  });
});
