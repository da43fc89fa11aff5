// The whole-order query for every demo customer, against the simulator: every field is what
// the upstream holds, mapped; stage-bound fields before their stage are null with no error,
// and `availability` says so; two waves of upstream calls, one call per per-order operation and order.
import { readdirSync, readFileSync } from 'node:fs';
import { getNamedType, type GraphQLEnumType, type GraphQLNamedType, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import {
  AVAILABLE_FROM,
  CUSTOMER_FIELD_OPERATIONS,
  CUSTOMER_OPERATIONS,
  ORDER_FIELD_OPERATIONS,
  PER_ORDER_OPERATIONS,
  wholeOrderCalls,
} from '../../src/graph/order-fields.js';
import { CODE_KINDS, labelOf, parseCodeLabels, type CodeKind } from '../../src/graph/code-labels.js';
import { createGraphSchema } from '../../src/graph/schema.js';
import { SIMULATOR_CODE_LABELS } from '../../src/server/config/labels.js';
import { createSeedData, CUSTOMER_RECORDS, PER_ORDER_RECORDS } from '../../src/simulator/data.js';
import type { SeedData } from '../../src/simulator/server.js';
import { isActiveAt } from '../../src/upstream/contract.js';
import type { Order } from '../../src/upstream/models.js';
import { demoOrders, demoUser } from '../helpers/demo.js';
import { callCounts, execute, inProcessGateway, startHarness, type Harness } from '../helpers/harness.js';
import type { InProcessUpstream } from '../helpers/in-process-transport.js';
import { until } from '../helpers/intervals.js';

// Which stages a field answers at: the contract's x-active-from (checked against the YAML in contract.test.ts).
const active = (field: keyof typeof AVAILABLE_FROM, status: string) => isActiveAt(ORDER_FIELD_OPERATIONS[field], status);

/**
 * An order as the upstream holds it, with each per-order field as the call that backs it
 * answers (the simulator's record for the order, null before its stage or when it has none),
 * and the fields whose resolvers map the answer as those mappings are meant to.
 */
function upstreamOrder(seed: SeedData, order: Order) {
  const answers = Object.fromEntries(
    Object.entries(ORDER_FIELD_OPERATIONS).map(([field, operation]) => {
      const { find } = PER_ORDER_RECORDS[operation] as { find: (data: SeedData, order: Order, args: object) => unknown };
      return [field, isActiveAt(operation, order.status) ? (find(seed, order, {}) ?? null) : null];
    }),
  );
  const delivery = seed.addresses.filter((address) => address.orderId === order.id && address.addressType === 'DELIVERY');
  const tradeIn = seed.tradeIns.find((t) => t.reservationId === order.reservationId);
  return {
    ...order,
    ...answers,
    // The primary DELIVERY address, else the first.
    shippingAddress: delivery.find((address) => address.primary) ?? delivery[0],
    payments: seed.payments.filter((payment) => payment.orderId === order.id && payment.feeType === 'ORDER_FEE'),
    // A trade-in's amounts are in its offer's currency, else the order's.
    tradeIn: tradeIn && { ...tradeIn, currencyCode: tradeIn.offer?.currencyCode ?? order.product?.currencyCode },
  };
}

/** The customer's fields a customer-level call backs, each as its call answers (the simulator's record for the customer, null when it has none). */
function customerCallAnswers(seed: SeedData, userId: string) {
  return Object.fromEntries(
    Object.entries(CUSTOMER_FIELD_OPERATIONS).map(([field, operation]) => {
      const { find } = (CUSTOMER_RECORDS as Record<string, { find: (data: SeedData, userId: string, args: object) => unknown }>)[
        operation
      ]!;
      return [field, find(seed, userId, {}) ?? null];
    }),
  );
}

const schema = createGraphSchema();

/**
 * The schema's names for the upstream fields it renames, by type and field (a dotted path
 * reads a nested one); every other field keeps its name.
 */
const UPSTREAM_NAMES: Record<string, string> = {
  'Address.line1': 'address1',
  'Address.line2': 'address2',
  'Address.postalCode': 'zipcode',
  'Address.type': 'addressType',
  'Order.rawStatus': 'status',
  'Order.buildEditableUntil': 'editBuildExpirationDate',
  'Order.delivered': 'vehicleDelivered',
  'Pickup.locationId': 'centerPlusLocationId',
  'Pickup.available': 'pickupAvailable',
  'Payment.method': 'paymentMethod',
  'TradeIn.payoffAmount': 'payoff.amount',
  'TradeIn.lienHolder': 'payoff.lienHolder',
};
const upstreamField = (record: Record<string, any>, type: string, field: string) =>
  (UPSTREAM_NAMES[`${type}.${field}`] ?? field).split('.').reduce((value, name) => value?.[name], record);
/** The simulator's labels, which the harness's gateway answers with: a `<kind>Label` field is the label of its record's `<kind>` code. */
const LABELS = parseCodeLabels(readFileSync(SIMULATOR_CODE_LABELS, 'utf8'));
const labelled = (field: string) => CODE_KINDS.find((kind) => field === `${kind}Label`) as CodeKind | undefined;
const iso = (value: string) => (Number.isNaN(Date.parse(value)) ? undefined : new Date(value).toISOString());

/**
 * Expects a piece of the gateway's answer, of the schema's type `type`, to be the upstream's
 * record, mapped: each field from the upstream field of its name, nothing lost and nothing
 * invented; a Money is the amount (at most two decimals in the seed data, so toFixed(2) is
 * exact) in its record's currency or the nearest one above; a timestamp becomes ISO 8601 UTC,
 * an enum or a unit upper case, a numeric string a number.
 */
function expectMapped(answer: unknown, record: any, at: string, type: GraphQLNamedType, currency?: string): void {
  if (Array.isArray(answer)) {
    const records: unknown[] = record ?? [];
    expect(answer, at).toHaveLength(records.length);
    answer.forEach((item, index) => expectMapped(item, records[index], `${at}[${index}]`, type, currency));
  } else if (answer === null || record === null || record === undefined) {
    expect(answer, at).toBe(record ?? null);
  } else if (typeof answer === 'object') {
    if (type.name === 'Money') return void expect(answer, at).toEqual({ amount: Number(record).toFixed(2), currencyCode: currency });
    const fields = (type as GraphQLObjectType).getFields();
    for (const [field, value] of Object.entries(answer)) {
      const kind = labelled(field);
      if (kind) {
        expect(value, `${at}.${field}`).toBe(labelOf(LABELS, kind, record[kind] as string | undefined));
        continue;
      }
      const fieldType = getNamedType(fields[field]!.type);
      expectMapped(value, upstreamField(record, type.name, field), `${at}.${field}`, fieldType, record.currencyCode ?? currency);
    }
  } else {
    const forms = typeof record === 'string' ? [record, iso(record), record.toUpperCase(), Number(record)] : [record];
    expect(forms, `${at}: ${JSON.stringify(answer)} from ${JSON.stringify(record)}`).toContain(answer);
  }
}

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

describe('the whole-order query, for every seeded customer', () => {
  it('covers the stages the docs promise: early, confirmed, in production, ready with a trade-in, two orders', () => {
    const statuses = harness.simulator.data.orders.map((o) => o.status);
    expect(statuses).toEqual(expect.arrayContaining(['RESERVED', 'ORDER_CONFIRMED', 'IN_PRODUCTION', 'READY_FOR_PICKUP']));
    const perUser = new Map<string, number>();
    for (const o of harness.simulator.data.orders) perUser.set(o.userId!, (perUser.get(o.userId!) ?? 0) + 1);
    expect([...perUser.values()]).toContain(2);
    expect(harness.simulator.data.tradeIns.length).toBeGreaterThan(0);
  });

  it.each(createSeedData().users.map(({ username }) => username))(
    '%s: every field as the simulator holds it, no error at any stage, the availability of its stage, each customer call once and each per-order call once per order',
    async (username) => {
      const { simulator } = harness;
      const token = await harness.login(username);
      simulator.clearLog();

      const { data, errors } = await execute(harness.client(token), WholeOrderDocument);

      const seed = simulator.data;
      const orders = demoOrders(simulator, username);
      expect(data?.me?.orders).toHaveLength(orders.length);
      // A stage not reached is data: the upstream's 409s left no error, and each order says
      // which of its parts its stage has not reached (`availability`, the only field the
      // upstream record has no counterpart of).
      expect(errors).toEqual([]);
      const answered = data!.me!.orders!;
      answered.forEach((order, index) =>
        expect(order.availability, order.status).toEqual(
          (Object.keys(AVAILABLE_FROM) as (keyof typeof AVAILABLE_FROM)[]).map((field) => ({
            part: field.toUpperCase(),
            from: AVAILABLE_FROM[field],
            available: active(field, orders[index]!.status),
          })),
        ),
      );
      const records = answered.map(({ availability: _availability, ...record }) => record);
      expectMapped(
        { ...data!.me, orders: records },
        {
          ...demoUser(simulator, username),
          ...customerCallAnswers(seed, demoUser(simulator, username).id),
          orders: orders.map((order) => upstreamOrder(seed, order)),
        },
        'me',
        schema.getType('Customer')!,
      );

      const perOrder = orders.length;
      const expectedCounts: Record<string, number> = Object.fromEntries(CUSTOMER_OPERATIONS.map((operation) => [operation, 1]));
      if (perOrder > 0) for (const op of PER_ORDER_OPERATIONS) expectedCounts[op] = perOrder;
      expect(callCounts(simulator)).toEqual(expectedCounts);
      expect(simulator.requestLog).toHaveLength(wholeOrderCalls(perOrder));
      expect(simulator.requestLog.every((entry) => entry.bearer === token)).toBe(true);
    },
  );

  it('names in the rename table each a field of the schema, renamed', () => {
    for (const coordinate of Object.keys(UPSTREAM_NAMES)) {
      const [type, field] = coordinate.split('.');
      expect((schema.getType(type!) as GraphQLObjectType | undefined)?.getFields()[field!], coordinate).toBeDefined();
      expect(UPSTREAM_NAMES[coordinate], coordinate).not.toBe(field);
    }
  });

  it('the schema says what the declaration says: one OrderPart per stage-bound field, its description, the field’s and its stage’s naming it, none of it written in schema/', () => {
    const parts = schema.getType('OrderPart') as GraphQLEnumType;
    const statuses = schema.getType('OrderStatus') as GraphQLEnumType;
    const fields = (schema.getType('Order') as GraphQLObjectType).getFields();
    expect(parts.getValues().map(({ name }) => name)).toEqual(Object.keys(AVAILABLE_FROM).map((field) => field.toUpperCase()));
    for (const [field, from] of Object.entries(AVAILABLE_FROM)) {
      expect(parts.getValue(field.toUpperCase())!.description).toMatch(new RegExp(`^\`Order\\.${field}\`: .+, from ${from}\\.$`));
      expect(fields[field]!.description).toMatch(
        new RegExp(`Available from ${from}: earlier, null with no error \\(\`availability\` says so\\)\\.$`),
      );
      expect(statuses.getValue(from)!.description).toMatch(
        new RegExp(`; (\`\\w+\` and )*\`${field}\`( and \`\\w+\`)* becomes? available\\.$`),
      );
    }
    // Every stage that no part waits for says nothing of parts; no other field names a stage.
    const stages = new Set(Object.values(AVAILABLE_FROM));
    for (const status of statuses.getValues().filter(({ name }) => !stages.has(name as never)))
      expect(status.description, status.name).not.toMatch(/becomes? available/);
    for (const field of Object.values(fields).filter(({ name }) => !(name in AVAILABLE_FROM)))
      expect(field.description, field.name).not.toMatch(/Available from/);
    // The stage lives in the declaration alone: the SDL as written names none of this.
    const written = readdirSync(new URL('../../schema/', import.meta.url))
      .filter((name) => name.endsWith('.graphql'))
      .map((name) => readFileSync(new URL(`../../schema/${name}`, import.meta.url), 'utf8'))
      .join('\n');
    expect(written).not.toMatch(/Available from|becomes? available|`Order\.\w+`: .*, from/);
    expect(written).toMatch(/^enum OrderPart$/m);
  });

  it('the ready customer sees everything: VIN, pickup centre, estimate, trade-in, the primary delivery address', async () => {
    const token = await harness.login('ready@demo.test');
    const { data, errors } = await execute(harness.client(token), WholeOrderDocument);
    expect(errors).toEqual([]);
    const order = data!.me!.orders![0]!;
    expect(order.vehicle?.vin).toMatch(/^[A-HJ-NPR-Z0-9]{17}$/);
    expect(order.pickup?.name).toBeTruthy();
    expect(order.estimate?.amountDue.amount).toMatch(/^-?\d+\.\d{2}$/);
    expect(order.tradeIn?.offer?.amount.amount).toMatch(/^\d+\.\d{2}$/);
    expect(order.shippingAddress?.primary).toBe(true);
    expect(order.shippingAddress?.type).toBe('DELIVERY');
    // The simulator lists a non-primary delivery address first.
    expect(order.addresses?.[0]?.id).not.toBe(order.shippingAddress?.id);
    expect(order.payments?.map((p) => p.status).sort()).toEqual(['REFUNDED', 'SUCCEEDED']);
  });

  it('the two upstream waves: the per-order calls start only after /auth/me and the order list, which start together', async () => {
    const { simulator } = harness;
    const token = await harness.login('ready@demo.test');
    // The simulator behind a gate: each call waits until the test opens it, and its arrival and
    // answer are noted in order. A call made only after another's answer would never arrive
    // while that one waits: each wave is seen whole by its count, not by how close in time its
    // calls came (a loaded machine spreads them by hundreds of milliseconds).
    const events: Array<'arrived' | 'answered'> = [];
    let open!: () => void;
    let gate = new Promise<void>((resolve) => (open = resolve));
    const upstream: InProcessUpstream = {
      urls: simulator.urls,
      async handle(request) {
        events.push('arrived');
        await gate;
        const reply = await simulator.handle(request);
        events.push('answered');
        return reply;
      },
    };
    const letThrough = () => {
      const opening = open;
      gate = new Promise<void>((resolve) => (open = resolve));
      opening();
    };
    const arrived = () => events.filter((event) => event === 'arrived').length;
    const gateway = inProcessGateway({ upstream });
    simulator.clearLog();
    try {
      const answer = execute(gateway.client(token), WholeOrderDocument);
      await until(() => arrived() === CUSTOMER_OPERATIONS.length);
      letThrough();
      await until(() => arrived() === CUSTOMER_OPERATIONS.length + PER_ORDER_OPERATIONS.length);
      letThrough();
      const { errors } = await answer;
      expect(errors).toEqual([]);
      const operations = simulator.requestLog.map((entry) => entry.operation);
      expect(operations.slice(0, CUSTOMER_OPERATIONS.length).sort()).toEqual([...CUSTOMER_OPERATIONS].sort());
      expect(operations.slice(CUSTOMER_OPERATIONS.length).sort()).toEqual([...PER_ORDER_OPERATIONS].sort());
      // Both of the first wave's calls arrived before either was answered; every per-order call
      // arrived after both were answered, and before any of them was answered.
      expect(events).toEqual([
        ...Array(CUSTOMER_OPERATIONS.length).fill('arrived'),
        ...Array(CUSTOMER_OPERATIONS.length).fill('answered'),
        ...Array(PER_ORDER_OPERATIONS.length).fill('arrived'),
        ...Array(PER_ORDER_OPERATIONS.length).fill('answered'),
      ]);
    } finally {
      letThrough();
      await gateway.close();
    }
  });
});
