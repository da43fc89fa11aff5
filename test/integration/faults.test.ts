import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WholeOrderDocument, type WholeOrderQuery } from '../../src/client/__generated__/graphql.js';
import { FAULT_MODES } from '../../src/simulator/server.js';
import type { OperationName } from '../../src/upstream/models.js';
import { CODE_OF_FAULT, ORDER_FIELDS_OF } from '../helpers/faults.js';
import { execute, graphqlClient, startGateway, startHarness, type Harness } from '../helpers/harness.js';

const TIMEOUT_MS = 300;

let harness: Harness;
let token: string;
let baseline: WholeOrderQuery;
beforeAll(async () => {
  harness = await startHarness({ gateway: { upstreamTimeoutMs: TIMEOUT_MS, upstreamRetries: 1 } });
  token = await harness.login('ready@demo.test');
  const { data, errors } = await execute(harness.client(token), WholeOrderDocument);
  expect(errors).toEqual([]);
  baseline = data!;
});
afterAll(() => harness.close());
beforeEach(() => harness.simulator.clearFaults());

const cases = Object.keys(ORDER_FIELDS_OF).flatMap((operation) =>
  FAULT_MODES.map((mode) => [operation as OperationName, mode] as const),
);

describe('a fault on one per-order operation leaves every sibling intact', () => {
  it.each(cases)('%s: %s', async (operation, mode) => {
    harness.simulator.setFault(operation, mode);
    const { data, errors } = await execute(harness.client(token), WholeOrderDocument);

    const fields = ORDER_FIELDS_OF[operation]!;
    const order = data!.me!.orders![0]!;
    const expectedOrder = { ...baseline.me!.orders![0]! };
    for (const field of fields) {
      expect(order[field]).toBeNull();
      (expectedOrder as Record<string, unknown>)[field] = null;
    }
    expect(data).toEqual({ me: { ...baseline.me!, orders: [expectedOrder] } });

    expect(errors.map((e) => e.path)).toEqual(expect.arrayContaining(fields.map((f) => ['me', 'orders', 0, f])));
    expect(errors).toHaveLength(fields.length);
    for (const error of errors) {
      expect(error.extensions).toMatchObject({ code: CODE_OF_FAULT[mode], operation });
      if (mode === '429') expect(error.extensions).toMatchObject({ upstreamStatus: 429, retryAfterSeconds: 7 });
      if (mode === '500') expect(error.extensions?.upstreamStatus).toBe(500);
      // Nothing of the upstream leaks: no URL, no body, no stack, no token.
      const text = JSON.stringify(error);
      expect(text).not.toMatch(/127\.0\.0\.1|http:|<html|stack|Bearer/i);
      expect(text).not.toContain(token);
    }
  });
});

describe('faults on the caller-level operations', () => {
  it('the order list failing leaves the customer intact', async () => {
    harness.simulator.setFault('orderDetails', '500');
    const { data, errors } = await execute(harness.client(token), WholeOrderDocument);
    expect(data?.me).toEqual({ ...baseline.me!, orders: null });
    expect(errors.map((e) => [e.path, e.extensions?.code, e.extensions?.operation])).toEqual([
      [['me', 'orders'], 'UPSTREAM_ERROR', 'orderDetails'],
    ]);
  });

  it('/auth/me failing leaves top-level orders intact', async () => {
    harness.simulator.setFault('customerDetails', 'hang');
    const response = await harness
      .client(token)
      .rawRequest<{ me: unknown; orders: Array<{ id: string; vehicle: { vin: string } }> }>('{ me { id } orders { id vehicle { vin } } }');
    expect(response.data.me).toBeNull();
    expect(response.data.orders[0]!.vehicle.vin).toBe(baseline.me!.orders![0]!.vehicle!.vin);
    expect(response.errors?.map((e) => e.extensions?.code)).toEqual(['UPSTREAM_TIMEOUT']);
  });

  it('a refused connection is UPSTREAM_ERROR, and the gateway keeps answering', async () => {
    // Port 1 on loopback: nothing listens there, so every connection is refused.
    const closed = { ...harness.simulator.urls };
    for (const name of Object.keys(closed) as Array<keyof typeof closed>) closed[name] = 'http://127.0.0.1:1/nothing';
    const gateway = await startGateway({ upstreamUrls: closed, upstreamRetries: 1 });
    try {
      const { data, errors } = await execute(graphqlClient(gateway.endpoint, token), WholeOrderDocument);
      expect(data?.me).toBeNull();
      expect(errors.map((e) => e.extensions?.code)).toEqual(['UPSTREAM_ERROR']);
      expect(JSON.stringify(errors)).not.toContain('127.0.0.1');
    } finally {
      await gateway.close();
    }
  });
});
