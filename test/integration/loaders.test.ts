// The request's loaders (src/graph/loaders.ts), against the simulator: one upstream call per
// distinct operation and arguments within a request, none shared across requests, and no
// call that the selection does not need.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PER_ORDER_OPERATIONS } from '../../src/graph/order-fields.js';
import { callCounts, startHarness, type Harness } from '../helpers/harness.js';
import { PER_ORDER_FIELDS } from '../helpers/whole-order.js';

let harness: Harness;
let token: string;
beforeAll(async () => {
  harness = await startHarness();
  token = await harness.login('ready@demo.test');
});
afterAll(() => harness.close());
beforeEach(() => harness.simulator.clearLog());

async function run(query: string, variables?: Record<string, unknown>) {
  const response = await harness.client(token).rawRequest<Record<string, unknown>>(query, variables);
  expect(response.errors ?? []).toEqual([]);
  return response.data;
}

const once = (...operations: string[]) => Object.fromEntries(operations.map((op) => [op, 1]));

describe('one upstream call per distinct operation and arguments, per request', () => {
  it('orders together with me { orders }', async () => {
    // Every per-order field (the table's), some with data to compare.
    const fields = `id ${PER_ORDER_FIELDS} vehicle { vin } pickup { name } estimate { total { amount } } shippingAddress { id } payments { id }`;
    const data = await run(`{ orders { ${fields} } me { id orders { ${fields} } } }`);
    expect((data as any).orders).toEqual((data as any).me.orders);
    expect(callCounts(harness.simulator)).toEqual(once('customerDetails', 'orderDetails', ...PER_ORDER_OPERATIONS));
  });

  it('aliases of the same field and of order(id:)', async () => {
    const [order] = harness.simulator.data.orders.filter((o) => o.reservationId === 'OC-ACBDE');
    await run(
      `query ($id: ID!) {
        a: orders { id v1: vehicle { vin } v2: vehicle { model } }
        b: orders { id vehicle { vin } }
        x: order(id: $id) { id vehicle { vin } p1: payments { id } p2: payments(feeType: ORDER_FEE) { amount { amount } } }
        y: order(id: $id) { tradeIn { id } t2: tradeIn { status } }
      }`,
      { id: order!.id },
    );
    expect(callCounts(harness.simulator)).toEqual(once('orderDetails', 'vehicleProductionDetails', 'orderPayments', 'tradeInDetails'));
  });

  it('shippingAddress together with addresses', async () => {
    const data = (await run('{ orders { shippingAddress { id } addresses { id type primary } } }')) as any;
    const order = data.orders[0];
    expect(order.addresses.map((a: { id: string }) => a.id)).toContain(order.shippingAddress.id);
    expect(callCounts(harness.simulator)).toEqual(once('orderDetails', 'shippingAddresses'));
  });

  it('but a new request makes its own calls: nothing is cached across requests', async () => {
    await run('{ orders { id } }');
    await run('{ orders { id } }');
    expect(callCounts(harness.simulator)).toEqual({ orderDetails: 2 });
  });

  it('orders alone never asks for /auth/me', async () => {
    await run('{ orders { id status } }');
    expect(callCounts(harness.simulator)).toEqual(once('orderDetails'));
  });

  it('me without orders never asks for the order list', async () => {
    await run('{ me { id firstName } }');
    expect(callCounts(harness.simulator)).toEqual(once('customerDetails'));
  });

  it('me { orders } reached through fragments still starts the order list with /auth/me', async () => {
    // Each call takes a second: one after the other, the second would arrive a second after the first.
    harness.simulator.setLatency(1000);
    try {
      await run('{ me { ...M } } fragment M on Customer { ... on Customer { orders { id } } }');
    } finally {
      harness.simulator.setLatency(0);
    }
    const at = (op: string) => harness.simulator.requestLog.find((e) => e.operation === op)!.at;
    // Both in flight at once: each arrived before the other could have been answered.
    expect(Math.abs(at('orderDetails') - at('customerDetails'))).toBeLessThan(1000);
  });
});
