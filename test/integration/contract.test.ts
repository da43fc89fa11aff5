// The contract checked three ways: the declaration (src/upstream/__generated__/contract.ts)
// is what src/tools/upstream-codegen.ts derives from upstream/openapi.yaml, and the generator
// refuses what it cannot map; a parameter the YAML makes optional is left out of a call and
// checked only when given; and every simulator answer (all seeded customers, every operation,
// and the demo's moving order at each of its stages) matches the YAML's response schemas, so
// contract, simulator and the models the simulator's data is typed with cannot drift apart
// unnoticed.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { requireParams, SimulatedError, type Call } from '../../src/simulator/request.js';
import { MOVING_CUSTOMER, MOVING_STAGES, startSimulator, type Simulator } from '../../src/simulator/server.js';
import { declare, DeclarationError, generate, GENERATED_FILE, YAML_FILE } from '../../src/tools/upstream-codegen.js';
import {
  CONTRACT,
  CUSTOMER_LEVEL_OPERATIONS,
  HOSTS,
  OPERATION_NAMES,
  ORDER_STAGES,
  ORDER_STATUSES,
  operationUrl,
  isPerOrder,
  paramValues,
  pathWriter,
  PER_ORDER_OPERATIONS,
  type OperationName,
  type OperationSpec,
} from '../../src/upstream/contract.js';
import { demoCustomer } from '../helpers/demo.js';

type Json = Record<string, any>;
const source = readFileSync(YAML_FILE, 'utf8');
const openapi = parse(source) as Json;

/** The YAML's operations, by operationId. */
const yamlOperations = new Map<string, { path: string; method: string; spec: Json }>();
for (const [path, methods] of Object.entries(openapi.paths as Json)) {
  for (const [method, spec] of Object.entries(methods as Json))
    yamlOperations.set(spec.operationId, { path, method: method.toUpperCase(), spec });
}

/** The YAML as `change` leaves it (a copy), as text. */
function changed(change: (openapi: Json) => void): string {
  const copy = parse(source) as Json;
  change(copy);
  return stringify(copy);
}

describe('the declaration is derived from upstream/openapi.yaml (src/tools/upstream-codegen.ts)', () => {
  it('is current: src/upstream/__generated__/contract.ts is what the generator writes from the YAML (run npm run codegen)', () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(generate(source));
  });

  const schemas = (o: Json) => o.components.schemas as Json;
  const estimate = (o: Json) => o.paths['/order/estimate'].get as Json;
  it.each<[string, (o: Json) => void, RegExp]>([
    [
      'an unknown x-kind',
      (o) => (schemas(o).User.properties.email['x-kind'] = 'email'),
      /User\.email: x-kind email is not a kind of string/,
    ],
    [
      'a kind of another type',
      (o) => (schemas(o).TokenSet.properties.idExpiration['x-kind'] = 'currency'),
      /x-kind currency is not a kind of integer/,
    ],
    [
      'a parameter without a source (no x-from, and no GraphQL field whose argument it could be)',
      (o) => (o.paths['/auth/me'].get.parameters = [{ name: 'locale', in: 'query', required: false, schema: { type: 'string' } }]),
      /get \/auth\/me parameters\[0\] \(locale\): has no source/,
    ],
    [
      'an x-graph entry not Order. or Customer.',
      (o) => (estimate(o)['x-graph'] = ['Vehicle.estimate']),
      /Vehicle\.estimate is not Order\.<field> or Customer\.<field>/,
    ],
    [
      'an x-from not order.<field>',
      (o) => (estimate(o).parameters[0]['x-from'] = 'customer.id'),
      /x-from customer\.id is not order\.<field>/,
    ],
    [
      'an optional path parameter',
      (o) => (o.paths['/order-address/findAll/{order_id}'].get.parameters[0].required = false),
      /a path parameter is required/,
    ],
    [
      'a path parameter its path does not name',
      (o) => (o.paths['/order/estimate'].get.parameters[0].in = 'path'),
      /get \/order\/estimate: the path names \{\} but its path parameters are orderID/,
    ],
    ['a list without maxItems', (o) => delete schemas(o).Estimate.properties.fees.maxItems, /Estimate\.fees: a list needs maxItems/],
    [
      'a response list without maxItems',
      (o) => delete o.paths['/v2/order/user'].get.responses['200'].content['application/json'].schema.maxItems,
      /get \/v2\/order\/user 200: a list needs maxItems/,
    ],
    [
      'an extension it does not know (a typo)',
      (o) => (estimate(o)['x-active-form'] = 'IN_TRANSIT'),
      /x-active-form is not an extension the gateway knows/,
    ],
    [
      'x-read-required beyond required',
      (o) => (schemas(o).Payment['x-read-required'] = ['paidAt']),
      /x-read-required names paidAt, which the upstream does not require/,
    ],
    [
      'a schema that contains itself',
      (o) => (schemas(o).PostalAddress.properties.next = { $ref: '#/components/schemas/PostalAddress' }),
      /PostalAddress contains itself/,
    ],
    ['an x-bearer other than refresh', (o) => (o.paths['/auth/me'].get['x-bearer'] = 'id'), /x-bearer id is not refresh/],
  ])('refuses %s, saying where', (_, change, message) => {
    const text = changed(change);
    expect(() => generate(text)).toThrow(DeclarationError);
    expect(() => generate(text)).toThrow(message);
  });

  it('the per-order calls (those that back Order fields) are the operations whose parameters come from an order', () => {
    expect([...PER_ORDER_OPERATIONS].sort()).toEqual(OPERATION_NAMES.filter(isPerOrder).sort());
  });

  it('names the five hosts and the stages in the YAML order', () => {
    expect(new Set([...yamlOperations.values()].map(({ spec }) => spec['x-base']))).toEqual(new Set(HOSTS));
    const description = openapi.info.description.replace(/\s+/g, ' ');
    expect(description).toContain(HOSTS.join(', '));
    expect(description).toContain(ORDER_STAGES.join(' < '));
    expect(openapi.components.schemas.Order.properties.status.enum).toEqual(ORDER_STATUSES);
  });
});

describe('an optional parameter (a per-order list with an optional enum argument, declared in a copy of the YAML)', () => {
  const documents = {
    'x-base': 'ORDER_URL',
    operationId: 'orderDocuments',
    'x-graph': ['Order.documents'],
    parameters: [
      { name: 'reservationId', in: 'path', required: true, schema: { type: 'string' }, 'x-from': 'order.reservationId' },
      { name: 'category', in: 'query', required: false, schema: { type: 'string', enum: ['INVOICE', 'WARRANTY'] } },
    ],
    responses: {
      '200': {
        description: 'The documents',
        content: { 'application/json': { schema: { type: 'array', maxItems: 50, items: { $ref: '#/components/schemas/Document' } } } },
      },
    },
  };
  const document = {
    type: 'object',
    required: ['id'],
    properties: {
      id: { type: 'string', 'x-kind': 'id' },
      category: { type: 'string', enum: ['INVOICE', 'WARRANTY'] },
      title: { type: 'string' },
    },
  };
  const declared = declare(
    changed((o) => {
      o.paths['/orders/{reservationId}/documents'] = { get: documents };
      o.components.schemas.Document = document;
    }),
  );
  const row = declared.operations.orderDocuments as OperationSpec;

  it('is declared required: false, with its values, its argument of its own name', () => {
    expect(row).toEqual({
      host: 'ORDER_URL',
      method: 'GET',
      path: '/orders/{reservationId}/documents',
      params: {
        reservationId: { order: 'reservationId', required: true },
        category: { argument: 'category', required: false, enum: ['INVOICE', 'WARRANTY'] },
      },
      auth: 'access',
      response: { model: 'Document', list: true, maxItems: 50 },
      orderFields: ['documents'],
    });
    expect(declared.models.get('Document')).toEqual({ fields: { id: 'id', category: 'code', title: 'text' }, required: ['id'] });
  });

  it('is left out of the call when the argument is not given or empty, never sent empty; sent when given', () => {
    const path = pathWriter(row);
    expect(path({ reservationId: 'OC-1' })).toBe('/orders/OC-1/documents');
    expect(path({ reservationId: 'OC-1', category: '' })).toBe('/orders/OC-1/documents');
    expect(path({ reservationId: 'OC 1', category: 'INVOICE' })).toBe('/orders/OC%201/documents?category=INVOICE');
  });

  it('writes every value as encodeURIComponent (its path) and a form-encoded query (URLSearchParams) would', () => {
    const path = pathWriter(row);
    const values = [
      'OC-1',
      "a.b_c~d*e'f(g)h!",
      'a b',
      'a+b',
      '/',
      '?#&=%',
      'ü',
      '😀',
      ...Array.from({ length: 0x24f }, (_, i) => String.fromCharCode(i + 1)),
    ];
    for (const value of values) {
      expect(path({ reservationId: value, category: value })).toBe(
        `/orders/${encodeURIComponent(value)}/documents?${new URLSearchParams({ category: value })}`,
      );
    }
  });

  const call = (query: Record<string, string>): Call => ({
    operation: 'orderPayments',
    path: '/orders/OC-1/documents',
    query,
    repeated: new Set(),
    pathParams: { reservationId: 'OC-1' },
    body: { kind: 'none' },
    bearer: 't',
    check: null,
    userId: 'u',
  });
  const refusal = (query: Record<string, string>) => {
    try {
      requireParams(call(query), row);
    } catch (error) {
      if (error instanceof SimulatedError) return { status: error.status, code: error.code, message: error.message };
      throw error;
    }
    return null;
  };

  it('the simulator takes a call without it, checks it when given: refused outside its values, or blank (400 VALIDATION_ERROR)', () => {
    expect(requireParams(call({}), row)).toEqual({ order: { reservationId: 'OC-1' }, argument: {} });
    expect(requireParams(call({ category: 'WARRANTY' }), row)).toEqual({
      order: { reservationId: 'OC-1' },
      argument: { category: 'WARRANTY' },
    });
    expect(refusal({ category: 'OTHER' })).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
      message: 'category must be one of: INVOICE, WARRANTY',
    });
    expect(refusal({ category: ' ' })).toEqual({ status: 400, code: 'VALIDATION_ERROR', message: 'category must not be blank' });
    // A required one is still required.
    expect(() => requireParams({ ...call({}), pathParams: {} }, row)).toThrow('reservationId is required');
  });
});

/**
 * A schema of the YAML made strict (any property the contract does not name is an error,
 * so a simulator answer, typed with the models, cannot carry a field the contract lacks),
 * its references pointing into the schemas registered as `contract`, without the gateway's
 * `x-` extensions (which say nothing of what the upstream sends).
 */
function strict(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strict);
  if (typeof node !== 'object' || node === null) return node;
  const copy: Json = Object.fromEntries(
    Object.entries(node)
      .flatMap(([key, value]) => (key.startsWith('x-') ? [] : [[key, value]]))
      .map(([key, value]) => [key, key === '$ref' ? String(value).replace('#/components/schemas/', 'contract#/$defs/') : strict(value)]),
  );
  if (copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv);
ajv.addSchema({ $id: 'contract', $defs: strict(openapi.components.schemas) as Json });

/** The schema the YAML gives for an operation's answer with this status. */
function responseValidator(operation: OperationName, status: number) {
  let response = yamlOperations.get(operation)!.spec.responses[String(status)] as Json | undefined;
  if (!response) throw new Error(`${operation} answered ${status}, which the contract does not list`);
  if (response.$ref) response = openapi.components.responses[String(response.$ref).split('/').pop()!] as Json;
  return ajv.compile(strict(response.content['application/json'].schema) as Json);
}

let simulator: Simulator;
beforeAll(async () => {
  simulator = await startSimulator();
});
afterAll(() => simulator.close());

/** Calls the simulator (or another) and checks the answer against the contract; resolves to the parsed body. */
async function call(
  operation: OperationName,
  init: { params?: Record<string, string>; bearer?: string; json?: unknown },
  target = simulator,
) {
  const { method } = CONTRACT[operation];
  const response = await fetch(operationUrl(target.urls, operation, init.params), {
    method,
    headers: {
      ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}),
      ...(init.json ? { 'content-type': 'application/json' } : {}),
    },
    body: init.json ? JSON.stringify(init.json) : undefined,
  });
  const body = (await response.json()) as unknown;
  const validate = responseValidator(operation, response.status);
  expect(validate(body), `${operation} ${response.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  return { status: response.status, body: body as Json };
}

describe('every simulator answer matches the contract', () => {
  it('for every seeded customer, every operation (answers and errors)', async () => {
    const statuses = new Map<OperationName, Set<number>>(OPERATION_NAMES.map((operation) => [operation, new Set()]));
    const record = (operation: OperationName, status: number) => statuses.get(operation)!.add(status);
    for (const customer of simulator.customers) {
      const login = await call('login', { json: { username: customer.username, password: customer.password } });
      record('login', login.status);
      const { accessToken, refreshToken } = login.body;
      record('refreshTokens', (await call('refreshTokens', { bearer: accessToken, json: { refresh_token: refreshToken } })).status);
      record('customerDetails', (await call('customerDetails', { bearer: accessToken })).status);
      const orders = await call('orderDetails', { bearer: accessToken });
      record('orderDetails', orders.status);
      // Each customer-level call, an argument as the first value the contract allows it.
      for (const operation of CUSTOMER_LEVEL_OPERATIONS) {
        const params = paramValues(operation, (source) => ('argument' in source ? (source.enum?.[0] ?? 'x') : undefined));
        record(operation, (await call(operation, { params, bearer: accessToken })).status);
      }
      // A customer without orders asks about an order that does not exist: the contract's 404.
      const ids = orders.body.length > 0 ? (orders.body as Json[]) : [{ id: 'no-such-order', reservationId: 'OC-NONE' }];
      for (const order of ids) {
        // Each per-order call with its parameters from the order, an argument as the first value the contract allows it.
        for (const operation of PER_ORDER_OPERATIONS) {
          const params = paramValues(operation, (source) => ('order' in source ? order[source.order] : (source.enum?.[0] ?? 'x')));
          record(operation, (await call(operation, { params, bearer: accessToken })).status);
        }
      }
    }
    // Refusals: a wrong password, a missing bearer, a spent refresh token, a bad parameter.
    record('login', (await call('login', { json: { username: 'ready@demo.test', password: 'wrong' } })).status);
    record('customerDetails', (await call('customerDetails', {})).status);
    record('refreshTokens', (await call('refreshTokens', { bearer: 'spent', json: { refresh_token: 'spent' } })).status);
    record(
      'orderPayments',
      (await call('orderPayments', { params: { order_id: 'x', fee_type: 'OTHER' }, bearer: await simulator.issueAccessToken('u') })).status,
    );

    // Each operation was seen answering, and the stage rules and absences were met too.
    for (const operation of OPERATION_NAMES) expect(statuses.get(operation), operation).toContain(200);
    expect(statuses.get('priceEstimate')).toContain(409);
    expect(statuses.get('tradeInDetails')).toContain(404);
    expect(statuses.get('login')).toContain(401);
    expect(statuses.get('orderPayments')).toContain(400);
  });
});

describe("the demo's moving order answers within the contract at every stage", () => {
  it(`${MOVING_CUSTOMER}: each stage of its cycle and back to the first, each operation answering as the stage rules say`, async () => {
    const moving = await startSimulator();
    try {
      const { username, password } = demoCustomer(moving, MOVING_CUSTOMER);
      const { accessToken } = (await call('login', { json: { username, password } }, moving)).body;
      const seen: Record<string, Record<string, number>> = {};
      // Its seeded stage, then one move per stage: the last move starts it over.
      for (let step = 0; step <= MOVING_STAGES.length; step += 1) {
        const move = step === 0 ? null : moving.advance();
        const [order] = (await call('orderDetails', { bearer: accessToken }, moving)).body as Json[];
        expect(order!.status).toBe(MOVING_STAGES[step % MOVING_STAGES.length]);
        if (move) expect(order).toMatchObject({ status: move.to, updatedAt: move.at });
        const { id, reservationId } = order!;
        const answers: Record<string, Json> = {};
        for (const [operation, params] of [
          ['vehicleProductionDetails', { order_id: id, reservation_id: reservationId }],
          ['nearestPickupCenter', { orderId: id }],
          ['priceEstimate', { orderID: id }],
        ] as const)
          answers[operation] = await call(operation, { params, bearer: accessToken }, moving);
        seen[`${step}:${order!.status}`] = Object.fromEntries(
          Object.entries(answers).map(([operation, { status }]) => [operation, status]),
        );
        const delivered = order!.status === 'DELIVERED';
        // What the stage sets: completion, the final bill, the pickup centre's availability.
        expect(order).toMatchObject({ vehicleDelivered: delivered, completedAt: delivered ? order!.updatedAt : null });
        const { total } = answers.priceEstimate!.body;
        expect(answers.priceEstimate!.body).toMatchObject(
          delivered ? { isEstimate: false, paidTotal: total, amountDue: 0 } : { isEstimate: true, paidTotal: 250 },
        );
        if (answers.nearestPickupCenter!.status === 200)
          expect(answers.nearestPickupCenter!.body.pickupAvailable).toBe(order!.status === 'READY_FOR_PICKUP');
        expect(answers.vehicleProductionDetails!.body.lastUpdatedAt).toBe(order!.updatedAt);
      }
      // The vehicle and the estimate answer throughout; pickup from IN_TRANSIT, as x-active-from says.
      expect(seen).toEqual({
        '0:IN_PRODUCTION': { vehicleProductionDetails: 200, nearestPickupCenter: 409, priceEstimate: 200 },
        '1:IN_TRANSIT': { vehicleProductionDetails: 200, nearestPickupCenter: 200, priceEstimate: 200 },
        '2:READY_FOR_PICKUP': { vehicleProductionDetails: 200, nearestPickupCenter: 200, priceEstimate: 200 },
        '3:DELIVERED': { vehicleProductionDetails: 200, nearestPickupCenter: 200, priceEstimate: 200 },
        '4:IN_PRODUCTION': { vehicleProductionDetails: 200, nearestPickupCenter: 409, priceEstimate: 200 },
      });
    } finally {
      await moving.close();
    }
  });
});
