// @defer: the WholeOrderDeferred document through the SDK against the simulator. The first
// payload is the first upstream wave's (customer, order records); each per-order part
// follows as its own call returns, so a slow part holds back only itself.
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WholeOrderDeferredDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { createOrderClient, type OrderClient, type OrderResult, type WholeOrderDeferredQuery } from '../../src/client/index.js';
import { ORDER_FIELD_OPERATIONS } from '../../src/graph/order-fields.js';
import { demoCustomer, demoToken } from '../helpers/demo.js';
import { execute, startHarness, type Harness } from '../helpers/harness.js';

const PER_ORDER_FIELDS = Object.keys(ORDER_FIELD_OPERATIONS);

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

async function signIn(username: string) {
  const client = createOrderClient({ endpoint: harness.endpoint, fetch: harness.fetch });
  await client.login(username, demoCustomer(harness.simulator, username).password);
  return client;
}

/** Every result the deferred query yields, each with the parts present in it. */
async function collect(client: OrderClient) {
  const results: { result: OrderResult<WholeOrderDeferredQuery>; parts: string[] }[] = [];
  for await (const result of client.wholeOrderDeferred()) {
    const orders = result.data?.me?.orders ?? [];
    results.push({ result, parts: PER_ORDER_FIELDS.filter((field) => orders.some((order) => field in order)) });
  }
  return results;
}

describe('WholeOrderDeferred', () => {
  it('first the customer and the order records with no per-order field, then the parts; the end result is WholeOrder’s', async () => {
    for (const username of ['ready@demo.test', 'two-orders@demo.test']) {
      const client = await signIn(username);
      const results = await collect(client);
      const [first] = results;
      expect(first!.result.errors).toEqual([]);
      expect(first!.result.data!.me!.orders!.length).toBeGreaterThan(0);
      expect(first!.parts).toEqual([]);
      expect(results.length).toBeGreaterThan(1);
      const whole = await execute(harness.client(client.tokens!.accessToken), WholeOrderDocument);
      expect(results.at(-1)!.result).toEqual({ data: whole.data, errors: whole.errors });
    }
  });

  it('a part whose call hangs holds back only itself: the first payload and the other parts arrive first; it comes with its error', async () => {
    const client = await signIn('ready@demo.test');
    harness.simulator.setFault('priceEstimate', 'hang');
    try {
      const results = await collect(client);
      expect(results[0]!.parts).toEqual([]);
      const withEstimate = results.findIndex((entry) => entry.parts.includes('estimate'));
      expect(withEstimate).toBe(results.length - 1);
      // Every other part had arrived before it.
      expect(results[withEstimate - 1]!.parts.sort()).toEqual(PER_ORDER_FIELDS.filter((field) => field !== 'estimate').sort());
      const last = results.at(-1)!.result;
      expect(last.data!.me!.orders![0]).toMatchObject({ estimate: null });
      expect(last.errors).toEqual([
        expect.objectContaining({
          path: ['me', 'orders', 0, 'estimate'],
          extensions: expect.objectContaining({ code: 'UPSTREAM_TIMEOUT', operation: 'priceEstimate' }),
        }),
      ]);
    } finally {
      harness.simulator.clearFaults();
    }
  });

  it('an expired access token: the tokens are renewed once, then the deferred query starts again', async () => {
    const client = await signIn('two-orders@demo.test');
    const expired = await demoToken(harness.simulator, 'two-orders@demo.test', { expiresInSeconds: -60 });
    const stale = createOrderClient({
      endpoint: harness.endpoint,
      fetch: harness.fetch,
      tokens: { ...client.tokens!, accessToken: expired },
    });
    const results = await collect(stale);
    expect(results[0]!.result.errors).toEqual([]);
    expect(results.at(-1)!.result.data!.me!.orders).toHaveLength(2);
    expect(stale.tokens!.accessToken).not.toBe(expired);
  });
});

describe('incremental delivery over HTTP', () => {
  it('is multipart/mixed when asked for; a client that accepts only JSON is refused before any upstream call', async () => {
    const client = await signIn('ready@demo.test');
    const query = print(WholeOrderDeferredDocument);
    const post = (accept: string) =>
      harness.fetch(harness.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${client.tokens!.accessToken}` },
        body: JSON.stringify({ query }),
      });
    const multipart = await post('multipart/mixed');
    expect(multipart.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    await multipart.text();
    harness.simulator.clearLog();
    const json = await post('application/json');
    expect(json.status).toBe(406);
    expect(harness.simulator.requestLog).toEqual([]);
  });
});
