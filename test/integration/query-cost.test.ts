// The cost limit counts what a page of orders will fetch, `first` from a literal, a variable
// or the schema's default alike: the paging example of docs/querying.md is answered, a page of
// 100 whole orders is refused before any upstream call. Against a real gateway and a stub
// upstream that counts its calls, in process; the model's figures against the schema, and against the
// figures docs/querying.md and docs/limits.md state.
import { readdirSync, readFileSync } from 'node:fs';
import { getIntrospectionQuery, Kind, parse, print, type OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { createGraphSchema } from '../../src/graph/schema.js';
import { wholeOrderCalls } from '../../src/graph/order-fields.js';
import { DEFAULT_UPSTREAM_CALLS } from '../../src/server/config.js';
import { queryCost } from '../../src/server/cost.js';
import { LIMITS } from '../../src/server/limits.js';
import { wholeOrderPage, wholeOrderPageCost, WHOLE_ORDER_COST } from '../helpers/hostile-requests.js';
import { execute, inProcessGateway, type ResponseError, type TestGateway } from '../helpers/harness.js';
import { createStubUpstream, json } from '../helpers/stub-upstream.js';

// A customer with as many orders as the largest page, every one at a stage where every
// per-order call is made (those the stub does not answer are a 404: null, no error).
const ORDERS = Array.from({ length: 100 }, (_, i) => ({
  id: `o${i}`,
  reservationId: `R-o${i}`,
  userId: 'u',
  status: 'READY_FOR_PICKUP',
  product: { currencyCode: 'USD' },
}));
const ids = (from: number, to: number) => ORDERS.slice(from, to).map((order) => order.id);

let stub: ReturnType<typeof createStubUpstream>;
let gateway: TestGateway;
beforeAll(async () => {
  stub = createStubUpstream((request, res) => {
    const { path } = request;
    if (path.endsWith('/auth/me')) return json(res, 200, { id: 'u' });
    if (path.endsWith('/v2/order/user')) return json(res, 200, ORDERS);
    if (path.endsWith('/order/estimate')) return json(res, 200, { orderId: 'o', currencyCode: 'USD', total: 1, amountDue: 1 });
    if (path.includes('/order-address/findAll/') || path.endsWith('/order-payments')) return json(res, 200, []);
    json(res, 404, { code: 'NOT_FOUND' });
  });
  gateway = inProcessGateway({ upstream: stub });
});
afterAll(async () => {
  await gateway?.close();
  await stub?.close();
});

interface Answer {
  status: number;
  body: { data?: { me: { orderCount: number; orders: { id: string }[] } }; errors?: ResponseError[] };
  /** Upstream calls this request made. */
  calls: number;
}

async function send(query: string, variables: Record<string, unknown> = {}): Promise<Answer> {
  const before = stub.requests.length;
  const response = await gateway.fetch(gateway.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: 'Bearer t' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'], calls: stub.requests.length - before };
}

const refusedFor = (cost: number) => ({
  status: 400,
  calls: 0,
  body: {
    errors: [
      {
        message: `Query cost limit of ${LIMITS.maxCost} exceeded, found ${cost}: each field counts 1, and the fields under a list once per item its "first" asks for.`,
        extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      },
    ],
  },
});

/** A doc's text, its line breaks as spaces: a sentence reads the same however it is wrapped. */
const doc = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8').replace(/\s+/g, ' ');

describe("docs/querying.md's paging example against the gateway", () => {
  it.for([
    ['a literal', wholeOrderPage(16), {}],
    ['a variable', wholeOrderPage('$first'), { first: 16 }],
  ] as const)('a page of 16 whole orders, first as %s: answered whole, in a whole order’s upstream calls', async ([, query, variables]) => {
    const { status, body, calls } = await send(query, variables);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data!.me.orderCount).toBe(100);
    expect(body.data!.me.orders.map((order) => order.id)).toEqual(ids(0, 16));
    expect(calls).toBe(wholeOrderCalls(16));
  });

  it('the next page, after the last id, first as a variable: the next 16 orders, a whole order’s calls', async () => {
    const { status, body, calls } = await send(wholeOrderPage('$first'), { first: 16, after: 'o15' });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data!.me.orders.map((order) => order.id)).toEqual(ids(16, 32));
    expect(calls).toBe(wholeOrderCalls(16));
  });

  it('the SDK’s WholeOrder (the default page of 16): answered whole, a whole order’s calls', async () => {
    const before = stub.requests.length;
    const { data, errors } = await execute(gateway.client('t'), WholeOrderDocument);
    expect(errors).toEqual([]);
    expect(data?.me?.orders?.map((order) => order.id)).toEqual(ids(0, 16));
    expect(stub.requests.length - before).toBe(wholeOrderCalls(16));
  });

  // A literal `first` counts like a variable (armor's cost once counted literals only).
  it('a page of 3 by a literal: answered, a whole order of 3’s calls', async () => {
    const { status, body, calls } = await send(wholeOrderPage(3));
    expect([status, body.errors, body.data!.me.orders.length, calls]).toEqual([200, undefined, 3, wholeOrderCalls(3)]);
  });

  // A variable's page is counted too, so 100 whole orders are refused before they run.
  it.for([
    ['a literal', wholeOrderPage(100), {}],
    ['a variable', wholeOrderPage('$first'), { first: 100 }],
  ] as const)(
    '100 whole orders, first as %s: 400 GRAPHQL_VALIDATION_FAILED with the limit and the cost, no upstream call',
    async ([, query, variables]) => {
      expect(await send(query, variables)).toEqual(refusedFor(wholeOrderPageCost(100)));
    },
  );

  // Costs are kept per parsed document and the values of the variables the count reads.
  it('one document sent with other variables is counted with each: its default, an explicit size, @include', async () => {
    const query = wholeOrderPage('$first')
      .replace('$first: Int', '$first: Int = 100, $all: Boolean = true')
      .replace('orderCount', 'orderCount @include(if: $all)');
    const refused = refusedFor(wholeOrderPageCost(100));
    expect(await send(query, {})).toEqual(refused);
    expect(await send(query, { first: 16 })).toMatchObject({ status: 200, calls: wholeOrderCalls(16) });
    expect(await send(query, { first: 100 })).toEqual(refused);
    expect(await send(query, { first: 100, all: false })).toEqual(refusedFor(wholeOrderPageCost(100) - 1));
    expect(await send(query, {})).toEqual(refused);
    expect(await send(query, { first: 16, all: false })).toMatchObject({ status: 200, calls: wholeOrderCalls(16) });
  });

  it('the edge: the largest page of whole orders inside the limit runs (into the call budget), one more is refused', async () => {
    const largest = Math.floor((LIMITS.maxCost - wholeOrderPageCost(0)) / WHOLE_ORDER_COST);
    expect(wholeOrderPageCost(largest)).toBeLessThanOrEqual(LIMITS.maxCost);
    expect(doc('docs/querying.md')).toContain(`takes up to ${largest} whole orders in a page`);
    expect(doc('docs/limits.md')).toContain(`past 16 whole orders (17 to ${largest})`);
    expect(doc('docs/limits.md')).toContain(`and ${largest + 1} or more are refused before any call`);
    const inside = await send(wholeOrderPage('$first'), { first: largest });
    expect(inside.status).toBe(200);
    expect(inside.body.data!.me.orders).toHaveLength(largest);
    // Past 16 whole orders the budget refuses calls, field by field: the cost limit is not the call budget.
    expect(inside.calls).toBe(DEFAULT_UPSTREAM_CALLS);
    expect(new Set(inside.body.errors!.map((error) => error.extensions?.code))).toEqual(new Set(['UPSTREAM_BUDGET_EXCEEDED']));
    expect(await send(wholeOrderPage('$first'), { first: largest + 1 })).toEqual(refusedFor(wholeOrderPageCost(largest + 1)));
  });
});

describe('the cost model', () => {
  const schema = createGraphSchema();
  const costOf = (source: string, variables: Record<string, unknown> = {}, name?: string) => {
    const document = parse(source);
    const operation = document.definitions.find(
      (definition): definition is OperationDefinitionNode =>
        definition.kind === Kind.OPERATION_DEFINITION && (name === undefined || definition.name?.value === name),
    )!;
    return queryCost(schema, document, operation, variables);
  };

  it('a page costs the same whether first is a literal, a variable or the default', () => {
    expect(costOf(wholeOrderPage(16))).toBe(wholeOrderPageCost(16));
    expect(costOf(wholeOrderPage('$first'), { first: 16 })).toBe(wholeOrderPageCost(16));
    expect(costOf(wholeOrderPage('$first').replace('first: $first, ', ''))).toBe(wholeOrderPageCost(16));
    for (const first of [0, 1, 3, 100]) {
      expect(costOf(wholeOrderPage(first))).toBe(wholeOrderPageCost(first));
      expect(costOf(wholeOrderPage('$first'), { first })).toBe(wholeOrderPageCost(first));
    }
  });

  const sdkDirectory = new URL('../../src/client/documents/', import.meta.url);
  const sdk = readdirSync(sdkDirectory)
    .filter((file) => file.endsWith('.graphql'))
    .map((file) => readFileSync(new URL(file, sdkDirectory), 'utf8'))
    .join('\n');
  const operations = parse(sdk).definitions.flatMap((definition) =>
    definition.kind === Kind.OPERATION_DEFINITION ? [definition.name!.value] : [],
  );

  it.for(operations)('the SDK’s %s costs at most a third of the limit', (name) => {
    const cost = costOf(sdk, { id: 'o1', username: 'u', password: 'p', refreshToken: 'r' }, name);
    expect(cost).toBeDefined();
    expect(cost!).toBeLessThanOrEqual(LIMITS.maxCost / 3);
  });

  it('docs/limits.md states what a whole order and the SDK’s WholeOrder cost', () => {
    // WholeOrder is the paging example's page of 16 without orderCount.
    const wholeOrder = costOf(print(WholeOrderDocument))!;
    expect(wholeOrder).toBe(wholeOrderPageCost(16) - 1);
    const text = doc('docs/limits.md');
    expect(text).toContain(`a whole order costs ${WHOLE_ORDER_COST},`);
    expect(text).toContain(`(its default page of 16 whole orders) costs ${wholeOrder.toLocaleString('en')},`);
  });

  it('GraphiQL’s introspection query is counted like any other, its lists once: far inside', () => {
    expect(costOf(getIntrospectionQuery())).toBeLessThan(LIMITS.maxCost / 10);
  });
});
