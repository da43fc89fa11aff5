// Every upstream call as the gateway makes it, against a stub upstream over real HTTP:
// each host, path, parameter and bearer as the contract spells them; ids from the upstream's
// own answers sent only where they can do no harm; bodies read tolerantly; and what each
// upstream status becomes on the fields that needed the call.
import { afterEach, describe, expect, it } from 'vitest';
import { LoginDocument, OrderSummaryDocument, RefreshTokensDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { execute, inProcessGateway, type ResponseError } from '../helpers/harness.js';
import { createStubUpstream, json, type InProcessStubHandler, type StubRequest } from '../helpers/stub-upstream.js';
import { wholeOrders } from '../helpers/whole-order.js';
import type { GraphQLObjectType } from 'graphql';
import { CUSTOMER_OPERATIONS, ORDER_FIELD_OPERATIONS, PER_ORDER_OPERATIONS } from '../../src/graph/order-fields.js';
import { createGraphSchema } from '../../src/graph/schema.js';
import { operationSpec, operationUrl, paramValues, pathParamNames, type OperationName } from '../../src/upstream/contract.js';

const TOKEN = 'opaque-access-token';

const order = {
  id: 'ord-1',
  reservationId: 'OC-AAAAA',
  userId: 'u-1',
  status: 'ORDER_CONFIRMED',
  product: { msrp: 68999, currencyCode: 'USD' },
};

/** A well-behaved upstream for one order; `override` replaces any answer by path suffix. */
function upstream(override: Record<string, InProcessStubHandler> = {}): InProcessStubHandler {
  return (request, res) => {
    const entry = Object.entries(override).find(([suffix]) => request.path.endsWith(suffix));
    if (entry) return entry[1](request, res);
    const p = request.path;
    if (p.endsWith('/auth/me')) return json(res, 200, { id: 'u-1', email: 'a@b.test', unknownField: { nested: true } });
    if (p.endsWith('/v2/order/user')) return json(res, 200, [order]);
    if (p.endsWith('/vehicle/getDetails'))
      return json(res, 200, { orderId: 'ord-1', reservationId: 'OC-AAAAA', vin: 'VCF1ZBU28PG123456', model: 'OC', modelYear: '2023' });
    if (p.endsWith('/pickup-scheduler/get-pickup-nearest-center-plus'))
      return json(res, 200, { centerPlusLocationId: 'cp-1', name: 'Centre', distance: { value: 12.4, unit: 'mi' } });
    if (p.endsWith('/order/estimate')) return json(res, 200, { orderId: 'ord-1', currencyCode: 'USD', total: 70000, amountDue: 65000 });
    if (p.includes('/order-address/findAll/')) return json(res, 200, []);
    if (p.endsWith('/order-payments')) return json(res, 200, []);
    if (p.endsWith('/partner-trade-in/trade-in-details')) return json(res, 404, { code: 'TRADE_IN_NOT_FOUND' });
    json(res, 404, { code: 'NOT_FOUND' });
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(handler: InProcessStubHandler) {
  const stub = createStubUpstream(handler);
  const gateway = inProcessGateway({ upstream: stub, upstreamTimeoutMs: 1000 });
  cleanups.push(stub.close, gateway.close);
  return { stub, client: gateway.client };
}

const ORDER_FIELDS = (createGraphSchema().getType('Order') as GraphQLObjectType).getFields();

/**
 * What a call is sent for an argument of the field it backs that the whole order does not
 * give: the argument's default in the schema ('' when it has none).
 */
function argumentDefault(operation: OperationName, argument: string): string {
  const field = Object.keys(ORDER_FIELD_OPERATIONS).find(
    (name) => ORDER_FIELD_OPERATIONS[name as keyof typeof ORDER_FIELD_OPERATIONS] === operation,
  )!;
  const given = ORDER_FIELDS[field]!.args.find(({ name }) => name === argument)?.defaultValue;
  return given === undefined || given === null ? '' : String(given);
}

/** The Order fields whose call takes an order's key in its path, not only its query: where a hostile id could reach another resource. */
const PATH_ID_FIELDS = Object.entries(ORDER_FIELD_OPERATIONS)
  .filter(([, operation]) => pathParamNames(operation).some((name) => 'order' in operationSpec(operation).params![name]!))
  .map(([field]) => field)
  .sort();
/** Those calls' paths up to the order's key, e.g. `/order-address/findAll/`. */
const PATH_ID_PREFIXES = [
  ...new Set(
    PATH_ID_FIELDS.map((field) => operationSpec(ORDER_FIELD_OPERATIONS[field as keyof typeof ORDER_FIELD_OPERATIONS]).path.split('{')[0]!),
  ),
];

const find = (requests: StubRequest[], suffix: string) => requests.filter((r) => r.path.endsWith(suffix) || r.path.includes(suffix));

describe('every upstream call', () => {
  it('use each host with its path prefix, the contract parameter spellings and the caller bearer', async () => {
    const { stub, client } = await setup(upstream());
    const { errors } = await execute(client(TOKEN), WholeOrderDocument);
    expect(errors).toEqual([]);

    // Each call at its host's base (with its prefix), with the contract's path and parameter
    // spellings (contract.test.ts holds the table to the YAML), its values from the order.
    const sent = stub.requests.map((r) => ({ path: r.path, query: r.query })).sort((a, b) => a.path.localeCompare(b.path));
    const expected = [...CUSTOMER_OPERATIONS, ...PER_ORDER_OPERATIONS]
      .map((operation) => {
        const url = new URL(
          operationUrl(
            stub.urls,
            operation,
            paramValues(operation, (source) => ('order' in source ? order[source.order] : argumentDefault(operation, source.argument))),
          ),
        );
        return { path: decodeURIComponent(url.pathname), query: Object.fromEntries(url.searchParams) };
      })
      .sort((a, b) => a.path.localeCompare(b.path));
    expect(sent).toEqual(expected);
    expect(sent.map(({ path }) => path.split('/')[2])).toEqual(
      expect.arrayContaining(['auth', 'order', 'appointment', 'price_calculator', 'trade_in']),
    );
    for (const request of stub.requests) {
      expect(request.method).toBe('GET');
      expect(request.authorization).toBe(`Bearer ${TOKEN}`);
    }
  });

  it('encode an order id into the address path', async () => {
    const odd = { ...order, id: 'a/b?c' };
    const { stub, client } = await setup(upstream({ '/v2/order/user': (_r, res) => json(res, 200, [odd]) }));
    await execute(client(TOKEN), WholeOrderDocument);
    expect(find(stub.requests, '/order-address/findAll/')[0]!.path).toBe('/prefix/order/order-address/findAll/a%2Fb%3Fc');
  });

  it('login posts the credentials without a bearer; expirations in seconds or milliseconds become DateTime', async () => {
    const { stub, client } = await setup(
      upstream({
        '/auth/login': (_r, res) =>
          json(res, 200, {
            accessToken: 'a',
            accessExpiration: 1763884800,
            idToken: 'i',
            idExpiration: 1763884800123,
            refreshToken: 'r',
            extra: 1,
          }),
      }),
    );
    const { data, errors } = await execute(client(), LoginDocument, { username: 'u@x.test', password: 'pw' });
    expect(errors).toEqual([]);
    expect(data?.login).toEqual({
      accessToken: 'a',
      accessTokenExpiresAt: '2025-11-23T08:00:00.000Z',
      idToken: 'i',
      idTokenExpiresAt: '2025-11-23T08:00:00.123Z',
      refreshToken: 'r',
    });
    const [login] = find(stub.requests, '/auth/login');
    expect(login!.method).toBe('POST');
    expect(login!.authorization).toBeUndefined();
    expect(JSON.parse(login!.body)).toEqual({ username: 'u@x.test', password: 'pw' });
  });

  it('a token set whose expiry is not a time is UPSTREAM_ERROR, not an internal error', async () => {
    const { client } = await setup(
      upstream({ '/auth/login': (_r, res) => json(res, 200, { accessToken: 'a', accessExpiration: 1e300, refreshToken: 'r' }) }),
    );
    const { data, errors } = await execute(client(), LoginDocument, { username: 'u', password: 'p' });
    expect(data).toBeNull();
    expect(errors[0]!.extensions).toMatchObject({ code: 'UPSTREAM_ERROR', operation: 'login' });
  });

  it('refresh sends refresh_token, with the caller access token as bearer when there is one, else the refresh token', async () => {
    const tokens = { accessToken: 'a2', accessExpiration: 1763884800, refreshToken: 'r2' };
    const { stub, client } = await setup(upstream({ '/auth/refresh': (_r, res) => json(res, 200, tokens) }));
    await execute(client(TOKEN), RefreshTokensDocument, { refreshToken: 'r1' });
    await execute(client(), RefreshTokensDocument, { refreshToken: 'r1' });
    const refreshes = find(stub.requests, '/auth/refresh');
    expect(refreshes.map((r) => [r.method, r.authorization, JSON.parse(r.body)])).toEqual([
      ['POST', `Bearer ${TOKEN}`, { refresh_token: 'r1' }],
      ['POST', 'Bearer r1', { refresh_token: 'r1' }],
    ]);
  });
});

describe('hostile ids in the upstream’s answers', () => {
  const orderWith = (id: string) => ({ id, reservationId: id, userId: 'u', status: 'READY_FOR_PICKUP', product: { currencyCode: 'USD' } });
  const WHOLE_ORDERS = wholeOrders(undefined, 'estimate { total { amount } } addresses { id }');
  const operationsOf = (fields: readonly string[]) =>
    new Set(fields.map((field) => ORDER_FIELD_OPERATIONS[field as keyof typeof ORDER_FIELD_OPERATIONS])).size;
  const everyField = Object.keys(ORDER_FIELD_OPERATIONS).sort();

  it.each([
    // In a path they would reach another resource; as a query value they are only a value.
    ['.', '.', PATH_ID_FIELDS],
    ['..', '..', PATH_ID_FIELDS],
    ['a lone surrogate', 'o\ud800x', everyField],
    ['a control character', 'o\u0001x', everyField],
    ['a line break (a header injected)', 'o\r\nX-Injected: 1', everyField],
  ])(
    'an order id of %s is never sent where it could do harm: those fields are UPSTREAM_ERROR, the other orders are whole',
    async (_name, hostileId, refused) => {
      const stub = createStubUpstream((request, res) => {
        const { path } = request;
        if (path.endsWith('/auth/me')) return json(res, 200, { id: 'u' });
        if (path.endsWith('/v2/order/user')) return json(res, 200, [orderWith('good'), orderWith(hostileId)]);
        if (path.endsWith('/order/estimate')) return json(res, 200, { orderId: 'o', currencyCode: 'USD', total: 1, amountDue: 1 });
        if (path.includes('/order-address/findAll/') || path.endsWith('/order-payments')) return json(res, 200, []);
        json(res, 404, { code: 'NOT_FOUND' });
      });
      const gateway = inProcessGateway({ upstream: stub });
      try {
        const response = await gateway.client('t').rawRequest<any>(WHOLE_ORDERS);
        const errors = (response.errors ?? []) as unknown as ResponseError[];
        expect(response.data.me.orders[0]).toMatchObject({ id: 'good', estimate: { total: { amount: '1.00' } }, addresses: [] });
        expect([...new Set(errors.map((e) => e.extensions?.code))]).toEqual(['UPSTREAM_ERROR']);
        expect(errors.map((e) => `${e.path?.[2]}.${e.path?.[3]}`).sort()).toEqual(refused.map((field) => `1.${field}`));
        // The first wave, the good order's calls, and only the hostile order's harmless ones went out.
        const operations = operationsOf(everyField);
        expect(stub.requests).toHaveLength(CUSTOMER_OPERATIONS.length + operations + (operations - operationsOf(refused)));
        // No path named a dot segment after the order's place, nor (a dot segment resolved) a path above it.
        for (const { path } of stub.requests)
          for (const prefix of PATH_ID_PREFIXES) {
            if (path.includes(prefix)) expect(path.slice(path.indexOf(prefix) + prefix.length), path).not.toMatch(/^(\.|%2e)/i);
            const above = prefix
              .split('/')
              .slice(1, -1)
              .map((_, index, parts) => `/${parts.slice(0, index + 1).join('/')}`);
            for (const parent of above) expect(path.replace(/\/$/, ''), path).not.toMatch(new RegExp(`${parent}$`));
          }
      } finally {
        await gateway.close();
        await stub.close();
      }
    },
  );
});

describe('tolerant parsing', () => {
  it('maps an unknown order status to UNKNOWN and keeps it in rawStatus', async () => {
    const { client } = await setup(
      upstream({ '/v2/order/user': (_r, res) => json(res, 200, [{ ...order, status: 'QUALITY_HOLD', brandNew: 1 }]) }),
    );
    const { data, errors } = await execute(client(TOKEN), OrderSummaryDocument);
    expect(errors).toEqual([]);
    expect(data?.orders?.[0]).toMatchObject({ status: 'UNKNOWN', rawStatus: 'QUALITY_HOLD' });
  });

  it('maps every other enum’s unknown values to UNKNOWN and its known ones in any case to themselves, with no code of its own', async () => {
    const payment = { id: 'p-1', orderId: 'ord-1', feeType: 'ORDER_FEE', amount: 100, currencyCode: 'USD' };
    const { client } = await setup(
      upstream({
        '/order-payments': (_r, res) =>
          json(res, 200, [
            { ...payment, status: 'ON_HOLD' },
            { ...payment, id: 'p-2', status: ' succeeded' },
          ]),
        '/order-address/findAll/ord-1': (_r, res) =>
          json(res, 200, [
            { id: 'a-1', orderId: 'ord-1', addressType: 'delivery' },
            { id: 'a-2', orderId: 'ord-1', addressType: 'GARAGE' },
          ]),
        '/partner-trade-in/trade-in-details': (_r, res) => json(res, 200, { id: 't-1', reservationId: 'OC-AAAAA', status: 'APPRAISED' }),
      }),
    );
    const { data, errors } = await execute(client(TOKEN), WholeOrderDocument);
    expect(errors).toEqual([]);
    const [answer] = data!.me!.orders!;
    expect(answer!.payments!.map((p) => p.status)).toEqual(['UNKNOWN', 'SUCCEEDED']);
    expect(answer!.addresses!.map((a) => a.type)).toEqual(['DELIVERY', 'UNKNOWN']);
    expect(answer!.tradeIn!.status).toBe('UNKNOWN');
  });

  it('a body missing what the contract requires is UPSTREAM_ERROR, and siblings stay', async () => {
    const { client } = await setup(upstream({ '/vehicle/getDetails': (_r, res) => json(res, 200, { model: 'OC' }) }));
    const { data, errors } = await execute(client(TOKEN), WholeOrderDocument);
    expect(data?.me?.orders?.[0]?.vehicle).toBeNull();
    expect(data?.me?.orders?.[0]?.estimate?.total).toEqual({ amount: '70000.00', currencyCode: 'USD' });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.extensions).toMatchObject({ code: 'UPSTREAM_ERROR', operation: 'vehicleProductionDetails', upstreamStatus: 200 });
    expect(errors[0]!.path).toEqual(['me', 'orders', 0, 'vehicle']);
  });
});

describe('upstream statuses', () => {
  it.each([
    [400, 'BAD_USER_INPUT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'FORBIDDEN'],
    [422, 'BAD_USER_INPUT'],
  ])('%i on a per-order call is %s on that field only', async (status, code) => {
    const { client } = await setup(
      upstream({ '/pickup-scheduler/get-pickup-nearest-center-plus': (_r, res) => json(res, status, { message: `status ${status}` }) }),
    );
    const { data, errors } = await execute(client(TOKEN), WholeOrderDocument);
    expect(data?.me?.orders?.[0]?.pickup).toBeNull();
    expect(data?.me?.orders?.[0]?.vehicle?.vin).toBe('VCF1ZBU28PG123456');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.extensions).toMatchObject({ code, operation: 'nearestPickupCenter', upstreamStatus: status });
    expect(errors[0]!.message).toBe(`status ${status}`);
  });

  // Which calls are retried is the upstream client's rule (upstream-http.test.ts); here, what each failure becomes.
  // (A 429's Retry-After as retryAfterSeconds: test/unit/failures.test.ts, and for every operation upstream-failures.test.ts.)
  it('a POST answered 503 is UPSTREAM_ERROR; a 500 is UPSTREAM_ERROR without its message; a 429 is RATE_LIMITED with its message', async () => {
    const { client } = await setup(
      upstream({
        '/auth/login': (_r, res) => json(res, 503, {}),
        '/order/estimate': (_r, res) => json(res, 500, { message: 'internal detail' }),
        '/order-payments': (_r, res) => json(res, 429, { code: 'RATE_LIMITED', message: 'Slow down' }),
      }),
    );
    const login = await execute(client(), LoginDocument, { username: 'u', password: 'p' });
    expect(login.errors[0]!.extensions).toMatchObject({ code: 'UPSTREAM_ERROR', operation: 'login', upstreamStatus: 503 });
    const { errors } = await execute(client(TOKEN), WholeOrderDocument);
    const byOperation = Object.fromEntries(errors.map((e) => [e.extensions?.operation, e]));
    expect(byOperation.priceEstimate!.extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstreamStatus: 500 });
    expect(byOperation.priceEstimate!.message).not.toContain('internal detail');
    expect(byOperation.orderPayments!.extensions).toMatchObject({ code: 'RATE_LIMITED', upstreamStatus: 429 });
    expect(byOperation.orderPayments!.message).toBe('Slow down');
  });

  it('a 404 on a nested lookup is null with no error', async () => {
    const { data, errors } = await (async () => {
      const { client } = await setup(upstream({ '/vehicle/getDetails': (_r, res) => json(res, 404, { code: 'ORDER_NOT_FOUND' }) }));
      return execute(client(TOKEN), WholeOrderDocument);
    })();
    expect(errors).toEqual([]);
    expect(data?.me?.orders?.[0]?.vehicle).toBeNull();
    expect(data?.me?.orders?.[0]?.tradeIn).toBeNull();
  });
});
