import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderByIdDocument } from '../../src/client/__generated__/graphql.js';
import { demoOrders } from '../helpers/demo.js';
import { execute, startHarness, type Harness } from '../helpers/harness.js';
import { PER_ORDER_OPERATIONS } from '../../src/graph/order-fields.js';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
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
