// The formats every upstream value is held to before anything copies it (src/upstream/models.ts:
// ISO 4217 currencies, integers a GraphQL Int holds, strings of each kind within their length,
// lists within their `maxItems`), through the gateway in process, on every execution path: the
// standard executor, graphql-jit once a document is compiled, a live event. And the backstop for
// a value that reaches a field's serializer all the same (guards/quiet-errors.ts, maskError),
// with both executors' own errors. upstream-shapes.test.ts tries every field of every answer
// just past its format; this file follows the cases end to end.
import { execute as executeStandard } from '@graphql-tools/executor';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { buildSchema, parse, print, type ExecutionResult, type GraphQLError } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { maskError } from '../../src/server/guards/quiet-errors.js';
import { inProcessGateway, type ResponseError } from '../helpers/harness.js';
import { createStubUpstream, json, type InProcessStubHandler } from '../helpers/stub-upstream.js';

const TOKEN = 'opaque-access-token';
const ORDER = {
  id: 'ord-1',
  reservationId: 'OC-AAAAA',
  userId: 'u-1',
  status: 'READY_FOR_PICKUP',
  product: { msrp: 68999, currencyCode: 'USD' },
};
const TRADE_IN = {
  id: 't-1',
  reservationId: 'OC-AAAAA',
  status: 'OFFER_RECEIVED',
  vehicle: { vin: 'WP0ZZZ99ZTS392124', year: 2019, make: 'Porsche', model: 'Taycan', mileage: 41_250, mileageUnit: 'mi' },
  offer: { amount: 24500, currencyCode: 'USD', expiresAt: '2026-12-15T07:59:59.000Z' },
};
const ESTIMATE = {
  orderId: 'ord-1',
  currencyCode: 'USD',
  vehiclePrice: 68999,
  fees: [{ code: 'DELIVERY_FEE', amount: 2438 }],
  total: 71437,
  amountDue: 66437,
};

/** One order at every stage's end: each answer as given, by path suffix, else a plain one. */
function upstream(answers: Record<string, unknown> = {}): InProcessStubHandler {
  const plain: Record<string, unknown> = {
    '/auth/me': { id: 'u-1', firstName: 'Ann' },
    '/v2/order/user': [ORDER],
    '/vehicle/getDetails': { orderId: 'ord-1', reservationId: 'OC-AAAAA', vin: 'VCF1ZBU28PG123456', model: 'OC', modelYear: '2023' },
    '/pickup-scheduler/get-pickup-nearest-center-plus': { centerPlusLocationId: 'cp-1', name: 'Centre' },
    '/order/estimate': ESTIMATE,
    '/order-payments': [],
    '/partner-trade-in/trade-in-details': TRADE_IN,
  };
  return (request, res) => {
    const suffix = Object.keys({ ...plain, ...answers }).find((each) => request.path.endsWith(each));
    if (request.path.includes('/order-address/findAll/')) return json(res, 200, answers['/order-address'] ?? []);
    if (!suffix) return json(res, 404, { code: 'NOT_FOUND' });
    json(res, 200, suffix in answers ? answers[suffix] : plain[suffix]);
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function gatewayFor(answers: Record<string, unknown>) {
  const stub = createStubUpstream(upstream(answers));
  const gateway = inProcessGateway({ upstream: stub });
  cleanups.push(stub.close, gateway.close);
  return gateway;
}

type Answer = { status: number; body: { data?: unknown; errors?: ResponseError[] } };
const errorsOf = ({ body }: Answer) =>
  (body.errors ?? []).map(({ extensions, path, message }) => ({ code: extensions?.code, path, message }));
const order = ({ body }: Answer) => (body.data as { me: { orders: Record<string, unknown>[] } }).me.orders[0]!;

describe('an integer past a GraphQL Int (a trade-in of 3,000,000,000 miles)', () => {
  const WHOLE_ORDER = print(WholeOrderDocument);
  const MILEAGE = ['me', 'orders', 0, 'tradeIn', 'vehicle', 'mileage'];

  it('is that field’s UPSTREAM_ERROR naming the field, never the value, on every run until compiled and after, in either document', async () => {
    const gateway = gatewayFor({
      '/partner-trade-in/trade-in-details': { ...TRADE_IN, vehicle: { ...TRADE_IN.vehicle, mileage: 3_000_000_000 } },
    });
    const headers = { authorization: `Bearer ${TOKEN}` };
    // A document of its own runs on the standard executor first, and is compiled by graphql-jit
    // when it comes again (document-cache.ts); the SDK's registered one is compiled at once.
    const own = `${WHOLE_ORDER}\n# run until compiled`;
    const answers = [];
    for (let run = 0; run < 3; run++) answers.push(await gateway.post({ query: own }, headers));
    answers.push(await gateway.post({ query: WHOLE_ORDER }, headers));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(errorsOf(answer)).toEqual([{ code: 'UPSTREAM_ERROR', path: MILEAGE, message: expect.stringContaining('mileage') }]);
      expect(JSON.stringify(answer.body)).not.toContain('3000000000');
      const tradeIn = order(answer).tradeIn as { vehicle: Record<string, unknown>; offer: unknown };
      expect(tradeIn.vehicle).toMatchObject({ mileage: null, year: 2019, make: 'Porsche' });
      expect(tradeIn.offer).not.toBeNull();
    }
  });

  it('reaching a serializer all the same, either executor’s own error becomes that field’s UPSTREAM_ERROR without the value (the backstop)', async () => {
    const schema = buildSchema('type Query { vehicle: Vehicle } type Vehicle { mileage: Int year: Int }');
    const document = parse('{ vehicle { mileage year } }');
    const rootValue = { vehicle: { mileage: 3_000_000_000, year: 2019 } };
    const compiled = compileQuery(schema, document);
    if (!isCompiledQuery(compiled)) throw new Error('not compiled');
    const results = [
      (await executeStandard({ schema, document, rootValue })) as ExecutionResult,
      (await compiled.query(rootValue, {}, {})) as ExecutionResult,
    ];
    for (const result of results) {
      expect(result.data).toEqual({ vehicle: { mileage: null, year: 2019 } });
      const masked = result.errors!.map((error) => maskError(error, 'Unexpected error.', false) as GraphQLError);
      expect(masked.map(({ message, path, extensions }) => ({ message, path, code: extensions.code }))).toEqual([
        {
          message: 'The field vehicle.mileage cannot hold the value the upstream sent.',
          path: ['vehicle', 'mileage'],
          code: 'UPSTREAM_ERROR',
        },
      ]);
    }
    // Anything else is masked as before.
    expect((maskError(new Error('boom'), 'Unexpected error.', false) as GraphQLError).extensions.code).toBe('INTERNAL_SERVER_ERROR');
  });
});

describe('one upstream value multiplied into every amount (the estimate of issue 39)', () => {
  it('a currency that is no ISO 4217 code is the estimate’s UPSTREAM_ERROR: the answer stays the size of a whole order', async () => {
    const fees = Array.from({ length: 30_000 }, (_, i) => ({ code: `F${i}`, amount: 1 }));
    const gateway = gatewayFor({ '/order/estimate': { ...ESTIMATE, currencyCode: 'Q'.repeat(10_000), fees } });
    const response = await gateway.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ query: print(WholeOrderDocument) }),
    });
    const text = await response.text();
    const answer: Answer = { status: response.status, body: JSON.parse(text) };
    expect(errorsOf(answer)).toEqual([{ code: 'UPSTREAM_ERROR', path: ['me', 'orders', 0, 'estimate'], message: expect.any(String) }]);
    expect(order(answer)).toMatchObject({ estimate: null, tradeIn: { id: 't-1' }, vehicle: { vin: 'VCF1ZBU28PG123456' } });
    // Not one amount of 10,000 characters: a whole order of one order is a few kB.
    expect(text.length).toBeLessThan(10_000);
  });

  it('a list past its maxItems is that field’s UPSTREAM_ERROR (`fees` is non-null: the estimate is null); one at its maxItems is read', async () => {
    const line = { code: 'F', amount: 1 };
    const answers = await Promise.all(
      [200, 201].map(async (length) => {
        const gateway = gatewayFor({ '/order/estimate': { ...ESTIMATE, fees: Array(length).fill(line) } });
        return gateway.post(
          { query: '{ me { orders { estimate { fees { code } total { amount } } } } }' },
          { authorization: `Bearer ${TOKEN}` },
        );
      }),
    );
    expect(errorsOf(answers[0]!)).toEqual([]);
    expect((order(answers[0]!).estimate as { fees: unknown[] }).fees).toHaveLength(200);
    expect(errorsOf(answers[1]!)).toEqual([
      { code: 'UPSTREAM_ERROR', path: ['me', 'orders', 0, 'estimate', 'fees'], message: expect.stringContaining('fees') },
    ]);
    expect(order(answers[1]!).estimate).toBeNull();
  });

  it('an answer that is a list past its maxItems (101 addresses) is its call’s UPSTREAM_ERROR, on each field it backs', async () => {
    const address = { id: 'a', addressType: 'DELIVERY', address1: 'Main St' };
    const gateway = gatewayFor({ '/order-address': Array(101).fill(address) });
    const answer = await gateway.post(
      { query: '{ me { orders { id addresses { id } shippingAddress { line1 } } } }' },
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(errorsOf(answer).map(({ code, path }) => ({ code, path }))).toEqual([
      { code: 'UPSTREAM_ERROR', path: ['me', 'orders', 0, 'addresses'] },
      { code: 'UPSTREAM_ERROR', path: ['me', 'orders', 0, 'shippingAddress'] },
    ]);
    expect(order(answer)).toEqual({ id: 'ord-1', addresses: null, shippingAddress: null });
  });
});
