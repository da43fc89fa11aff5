// The contract checked three ways: the table in src/upstream/contract.ts against
// upstream/openapi.yaml, and every simulator answer (all seeded customers, every
// operation, and the demo's moving order at each of its stages) against the YAML's
// response schemas, so contract, table, simulator and the models the simulator's data is
// typed with cannot drift apart unnoticed.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MOVING_CUSTOMER, MOVING_STAGES, startSimulator, type Simulator } from '../../src/simulator/server.js';
import {
  CONTRACT,
  HOSTS,
  OPERATION_NAMES,
  ORDER_STAGES,
  ORDER_STATUSES,
  operationUrl,
  isPerOrder,
  paramNames,
  paramValues,
  pathParamNames,
  PER_ORDER_OPERATIONS,
  queryParamNames,
  type OperationName,
} from '../../src/upstream/contract.js';
import { SHAPES, type Leaf } from '../../src/upstream/models.js';
import { responseShape } from '../../src/upstream/shapes.js';
import { demoCustomer } from '../helpers/demo.js';

type Json = Record<string, any>;
const openapi = parse(readFileSync(new URL('../../upstream/openapi.yaml', import.meta.url), 'utf8')) as Json;

/** The YAML's operations, by operationId. */
const yamlOperations = new Map<string, { path: string; method: string; spec: Json }>();
for (const [path, methods] of Object.entries(openapi.paths as Json)) {
  for (const [method, spec] of Object.entries(methods as Json))
    yamlOperations.set(spec.operationId, { path, method: method.toUpperCase(), spec });
}

describe('the contract table matches upstream/openapi.yaml', () => {
  it('has exactly the operations of the YAML', () => {
    expect([...OPERATION_NAMES].sort()).toEqual([...yamlOperations.keys()].sort());
  });

  it.each(OPERATION_NAMES)('%s: host, method, path, parameters, bearer and x-active-from', (operation) => {
    const { path, method, spec } = yamlOperations.get(operation)!;
    const row = CONTRACT[operation] as Json;
    expect(row.host).toBe(spec['x-base']);
    expect(row.method).toBe(method);
    expect(row.path).toBe(path);
    const parameters = (spec.parameters ?? []) as Json[];
    expect(queryParamNames(operation)).toEqual(parameters.filter((p) => p.in === 'query').map((p) => p.name));
    expect(pathParamNames(operation)).toEqual(parameters.filter((p) => p.in === 'path').map((p) => p.name));
    expect(paramNames(operation)).toEqual(parameters.map((p) => p.name));
    // The values an argument may take, where the contract lists them (the simulator refuses others).
    const enums = (row.params ?? {}) as Json;
    expect(Object.fromEntries(parameters.map((p) => [p.name, enums[p.name]?.enum]))).toEqual(
      Object.fromEntries(parameters.map((p) => [p.name, p.schema.enum])),
    );
    // `security: []` is the one operation without a bearer; refresh says which bearers it takes.
    expect(row.auth === 'none').toBe(Array.isArray(spec.security) && spec.security.length === 0);
    if (row.auth === 'refresh') expect(spec.description).toMatch(/refresh token itself may be sent as the bearer/);
    expect(row.activeFrom).toBe(spec['x-active-from']);
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

/** The YAML types each kind of shapes.ts reads (Money, a number in major units, is an amount; a date-time a string of that format). */
const TYPES_OF_KIND: Record<Leaf, string[]> = {
  id: ['string'],
  code: ['string'],
  text: ['string'],
  token: ['string'],
  currency: ['string'],
  flag: ['boolean'],
  int: ['integer'],
  number: ['number'],
  epoch: ['integer'],
  amount: ['Money', 'number'],
  dateTime: ['string date-time'],
};

/** Each field of a YAML schema with its type (a date-time string as `string date-time`), by path (a list's items as `[]`). */
function yamlFields(node: Json, prefix = ''): [string, string][] {
  if (node.$ref === '#/components/schemas/Money') return [[prefix, 'Money']];
  if (node.$ref) return yamlFields(openapi.components.schemas[node.$ref.split('/').at(-1)], prefix);
  if (node.oneOf)
    return yamlFields(
      node.oneOf.find((branch: Json) => branch.type !== 'null'),
      prefix,
    );
  const type = [node.type].flat().find((candidate) => candidate !== 'null');
  if (type === 'array') return yamlFields(node.items, `${prefix}[]`);
  if (type !== 'object') return [[prefix, node.format === 'date-time' ? `${type} date-time` : type]];
  return Object.entries(node.properties as Json).flatMap(([key, property]) =>
    yamlFields(property as Json, prefix ? `${prefix}.${key}` : key),
  );
}

/** Each leaf of a shape with its kind, by path. */
function shapeFields(shape: unknown, prefix = ''): [string, string][] {
  if (typeof shape === 'string') return [[prefix, shape]];
  const node = shape as Json;
  if (node.list) return shapeFields(node.list, `${prefix}[]`);
  return Object.entries(node.fields as Json).flatMap(([key, field]) => shapeFields(field, prefix ? `${prefix}.${key}` : key));
}

describe('the shapes every upstream body is read through (src/upstream/shapes.ts) match the YAML', () => {
  const schemaOf = (operation: OperationName) =>
    yamlOperations.get(operation)!.spec.responses['200'].content['application/json'].schema as Json;
  /** The model the table says an operation's response is (its `response`), and whether a list of it. */
  const shapeOf = (operation: OperationName) => {
    const response = CONTRACT[operation].response;
    return { shape: SHAPES[response.model], list: 'list' in response };
  };

  it.each(OPERATION_NAMES)(
    '%s: every field the response may have, each of the kind its type is; a list where the YAML has one',
    (operation) => {
      expect(shapeOf(operation).list).toBe(schemaOf(operation).type === 'array');
      const yaml = new Map(yamlFields(schemaOf(operation)));
      const shaped = new Map(shapeFields(responseShape(operation)));
      expect([...shaped.keys()].sort()).toEqual([...yaml.keys()].sort());
      for (const [path, kind] of shaped)
        expect(TYPES_OF_KIND[kind as Leaf], `${path}: ${kind} for ${yaml.get(path)}`).toContain(yaml.get(path));
    },
  );

  it.each(OPERATION_NAMES)('%s: what the answer cannot be without is what the YAML requires, or less', (operation) => {
    const schema = schemaOf(operation);
    const required = (
      schema.$ref
        ? openapi.components.schemas[schema.$ref.split('/').at(-1)]
        : openapi.components.schemas[schema.items.$ref.split('/').at(-1)]
    ).required as string[];
    for (const field of shapeOf(operation).shape.required ?? []) expect(required).toContain(field);
  });
});

/**
 * A schema of the YAML made strict (any property the contract does not name is an error,
 * so a simulator answer, typed with the models, cannot carry a field the contract lacks),
 * its references pointing into the schemas registered as `contract`.
 */
function strict(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strict);
  if (typeof node !== 'object' || node === null) return node;
  const copy: Json = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' ? String(value).replace('#/components/schemas/', 'contract#/$defs/') : strict(value),
    ]),
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
