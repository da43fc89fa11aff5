// Standard GET queries (GraphQL over HTTP; urql's default): answered without a CSRF header,
// while mutations over GET and the "simple" POSTs a foreign page can send stay refused.
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderByIdDocument, OrderUpdatesDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { createSimulator, type InProcessSimulator } from '../../src/simulator/server.js';
import { demoOrders, demoToken } from '../helpers/demo.js';
import { inProcessGateway, callCounts, type TestGateway } from '../helpers/harness.js';

let simulator: InProcessSimulator;
const gateways: Record<'off' | 'only', TestGateway> = {} as never;
let token: string;
const wholeOrder = print(WholeOrderDocument);
const wholeOrderHash = (WholeOrderDocument as { __meta__?: { hash?: string } }).__meta__!.hash!;

beforeAll(async () => {
  simulator = createSimulator({ latencyMs: 0 });
  gateways.off = inProcessGateway({ upstream: simulator });
  gateways.only = inProcessGateway({ upstream: simulator, trustedDocuments: 'only' });
  token = await demoToken(simulator, 'ready@demo.test');
});
afterAll(async () => {
  for (const gateway of Object.values(gateways)) await gateway?.close();
  await simulator?.close();
});

type Answer = { status: number; body: { data?: any; errors?: Array<{ message: string; extensions?: { code?: string } }> } };

/** A GET as urql and Apollo's `useGETForQueries` send it: parameters in the URL, a bearer, no CSRF header. */
async function get(mode: 'off' | 'only', params: Record<string, string>, accept = 'application/graphql-response+json'): Promise<Answer> {
  const response = await gateways[mode].fetch(`${gateways[mode].endpoint}?${new URLSearchParams(params)}`, {
    headers: { accept, authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: await response.json() };
}

async function post(mode: 'off' | 'only', headers: Record<string, string>, body: string): Promise<Answer & { text: string }> {
  const response = await gateways[mode].fetch(gateways[mode].endpoint, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : {} };
}

const authCalls = () => callCounts(simulator).login ?? 0;

describe('GET queries without a CSRF header', () => {
  it('the whole order, as either media type: the same data a JSON POST gets', async () => {
    const posted = await post(
      'off',
      { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      JSON.stringify({ query: wholeOrder }),
    );
    expect(posted.body.data.me.orders[0].estimate.total.amount).toBeTruthy();
    for (const accept of ['application/graphql-response+json', 'application/json']) {
      const answer = await get('off', { query: wholeOrder }, accept);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(posted.body);
    }
  });

  it('with variables and an operation name', async () => {
    const [order] = demoOrders(simulator, 'ready@demo.test');
    const answer = await get('off', {
      query: print(OrderByIdDocument),
      variables: JSON.stringify({ id: order!.id }),
      operationName: 'OrderById',
    });
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.order).toMatchObject({ id: order!.id, vehicle: expect.any(Object), estimate: expect.any(Object) });
  });

  it('a subscription over SSE (as an EventSource or graphql-sse sends it): the current state first', async () => {
    const controller = new AbortController();
    const response = await gateways.off.fetch(`${gateways.off.endpoint}?${new URLSearchParams({ query: print(OrderUpdatesDocument) })}`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!/^data: .*\n/m.test(text)) text += (await reader.read()).value ?? '';
    controller.abort();
    const event = JSON.parse(/^data: (.*)$/m.exec(text)![1]!);
    expect(event.errors).toBeUndefined();
    expect(event.data.orderUpdates.order.id).toBe(demoOrders(simulator, 'ready@demo.test')[0]!.id);
  });

  it('a mutation over GET is refused (405) and never runs', async () => {
    const before = authCalls();
    const answer = await get('off', { query: 'mutation { login(username: "ready@demo.test", password: "x") { accessToken } }' });
    expect(answer.status).toBe(405);
    expect(answer.body.errors?.[0]?.message).toBe('Can only perform a mutation operation from a POST request.');
    expect(authCalls()).toBe(before);
  });
});

describe('the POSTs a foreign page can send without a preflight stay refused', () => {
  const login = 'mutation { login(username: "ready@demo.test", password: "x") { accessToken } }';
  it.each([
    ['text/plain', { 'content-type': 'text/plain' }, JSON.stringify({ query: login })],
    ['text/plain; charset=utf-8', { 'content-type': 'text/plain; charset=utf-8' }, JSON.stringify({ query: login })],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ query: login }).toString()],
  ])('a mutation as %s: 403 before anything runs', async (_, headers, body) => {
    const before = authCalls();
    const answer = await post('off', { accept: 'application/graphql-response+json', ...headers }, body);
    expect(answer.status).toBe(403);
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('PREFLIGHT_REQUIRED');
    expect(authCalls()).toBe(before);
  });
});

describe('GET with TRUSTED_DOCUMENTS=only', () => {
  it('a registered document by its hash in the `extensions` parameter runs', async () => {
    const answer = await get('only', { extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: wholeOrderHash } }) });
    expect(answer.status).toBe(200);
    expect(answer.body.data.me.orders[0].estimate.total.amount).toBeTruthy();
  });

  it('a query text is refused, registered or not', async () => {
    for (const query of [wholeOrder, '{ me { id } }']) {
      const answer = await get('only', { query });
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ONLY');
    }
  });
});
