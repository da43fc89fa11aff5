// TRUSTED_DOCUMENTS (src/server/trusted-documents.ts), against real gateways on the
// simulator: the manifest of the SDK's documents, and what off, allow and only let run.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrderClient, WholeOrderDocument } from '../../src/client/index.js';
import { createSimulator, type InProcessSimulator } from '../../src/simulator/server.js';
import { demoCustomer } from '../helpers/demo.js';
import { inProcessGateway, type TestGateway } from '../helpers/harness.js';
import { wholeOrderCalls } from '../../src/graph/order-fields.js';

/** The upstream calls of a whole order whose customer has one order. */
const ONE_ORDER_CALLS = wholeOrderCalls(1);

const manifest = JSON.parse(
  readFileSync(new URL('../../src/client/__generated__/persisted-documents.json', import.meta.url), 'utf8'),
) as Record<string, string>;
const wholeOrderHash = (WholeOrderDocument as { __meta__?: { hash?: string } }).__meta__!.hash!;

let simulator: InProcessSimulator;
const gateways: Record<string, TestGateway> = {};
let token: string;

beforeAll(async () => {
  simulator = createSimulator();
  for (const mode of ['off', 'allow', 'only'] as const) {
    gateways[mode] = inProcessGateway({ upstream: simulator, trustedDocuments: mode });
  }
  const ready = demoCustomer(simulator, 'ready@demo.test');
  token = (await createOrderClient({ endpoint: gateways.off!.endpoint, fetch: gateways.off!.fetch }).login(ready.username, ready.password))
    .accessToken;
});
afterAll(async () => {
  for (const gateway of Object.values(gateways)) await gateway.close();
  await simulator.close();
});

/** A raw GraphQL-over-HTTP POST, so the tests control exactly what is sent. */
async function post(mode: string, body: object) {
  const response = await gateways[mode]!.fetch(gateways[mode]!.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { data?: any; errors?: Array<{ message: string; extensions?: { code?: string } }> },
  };
}
const byHash = (hash: string) => ({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
const fullQuery = { query: manifest[wholeOrderHash] };

describe('TRUSTED_DOCUMENTS', () => {
  it('the manifest holds every SDK document, keyed by its sha256', () => {
    expect(Object.keys(manifest).length).toBeGreaterThanOrEqual(6);
    expect(manifest[wholeOrderHash]).toContain('query WholeOrder');
  });

  it('off: full queries run; a hash alone is not understood', async () => {
    expect((await post('off', fullQuery)).body.data.me.id).toBeTruthy();
    const { body } = await post('off', byHash(wholeOrderHash));
    expect(body.errors?.[0]).toMatchObject({ message: 'Must provide query string.', extensions: { code: 'BAD_REQUEST' } });
  });

  it('allow: both hashes (prefixed or bare) and full queries run', async () => {
    expect((await post('allow', fullQuery)).body.data.me.orders).toHaveLength(1);
    expect((await post('allow', byHash(wholeOrderHash))).body.data.me.orders).toHaveLength(1);
    expect((await post('allow', byHash(wholeOrderHash.replace('sha256:', '')))).body.data.me.orders).toHaveLength(1);
    const unknown = await post('allow', byHash('sha256:' + '0'.repeat(64)));
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('only: a registered hash runs; any other document is refused, clearly, with no upstream call', async () => {
    simulator.clearLog();
    const ok = await post('only', byHash(wholeOrderHash));
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.me.orders[0].vehicle.vin).toHaveLength(17);
    expect(simulator.requestLog).toHaveLength(ONE_ORDER_CALLS);

    simulator.clearLog();
    const full = await post('only', fullQuery);
    expect(full.status).toBe(400);
    expect(full.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ONLY');
    expect(full.body.errors?.[0]?.message).toMatch(/Only trusted documents/);
    const ad_hoc = await post('only', { query: '{ orders { id } }' });
    expect(ad_hoc.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ONLY');
    const unknown = await post('only', byHash('sha256:' + 'f'.repeat(64)));
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    // Neither a query nor a hash.
    const nothing = await post('only', {});
    expect(nothing.status).toBe(400);
    expect(nothing.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ID_REQUIRED');
    expect(simulator.requestLog).toEqual([]);
  });

  /** The SDK in persisted mode against `only`, signed in, with every request body it sends. */
  async function persistedClient() {
    const sent: string[] = [];
    const spy: typeof fetch = (input, init) => {
      sent.push(String(init?.body));
      return gateways.only!.fetch(input, init);
    };
    const client = createOrderClient({ endpoint: gateways.only!.endpoint, persistedDocuments: true, fetch: spy });
    const ready = demoCustomer(simulator, 'ready@demo.test');
    await client.login(ready.username, ready.password);
    return { client, sent };
  }

  it('only: the SDK in persisted mode logs in and gets the whole order by hash alone', async () => {
    const { client, sent } = await persistedClient();
    const { data, errors } = await client.wholeOrder();
    expect(errors).toEqual([]);
    expect(data?.me?.orders?.[0]?.tradeIn?.status).toBeTruthy();
    expect(sent).toHaveLength(2);
    for (const body of sent) expect(JSON.parse(body)).not.toHaveProperty('query');
  });

  it('only: the deferred order and the live updates by hash alone too', async () => {
    const { client, sent } = await persistedClient();
    const results = [];
    for await (const result of client.wholeOrderDeferred()) results.push(result);
    expect(results.length).toBeGreaterThan(1);
    expect(results.at(-1)!.errors).toEqual([]);
    expect(results.at(-1)!.data?.me?.orders?.[0]?.tradeIn?.status).toBeTruthy();
    const stop = new AbortController();
    for await (const event of client.watchOrders({ signal: stop.signal })) {
      expect(event.errors).toEqual([]);
      expect(event.data?.orderUpdates.changes).toEqual([]);
      stop.abort();
    }
    expect(sent).toHaveLength(3);
    for (const body of sent) expect(JSON.parse(body)).not.toHaveProperty('query');
  });
});
