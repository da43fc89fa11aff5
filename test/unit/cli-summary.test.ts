// The wording of the CLI (summary.ts) and what of it reaches a terminal (terminal.ts), without a server.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OrderGraphError, OrderResult } from '../../src/client/index.js';
import { AVAILABLE_FROM, ORDER_STAGES } from '../../src/client/index.js';
import { WholeOrderDocument, type OrderPart, type OrderStatus, type WholeOrderQuery } from '../../src/client/__generated__/graphql.js';
import { blockingError, changeLine, formatMoney, historyLines, progressLine, stageLine, summarize, toJson } from '../../src/cli/summary.js';
import { printable } from '../../src/cli/terminal.js';
import { ORDER_FIELD_OPERATIONS } from '../../src/graph/order-fields.js';
import { canHaveValue } from '../../src/upstream/contract.js';
import { selectionAt } from '../../examples/order-tracker/src/query.js';

type Customer = NonNullable<WholeOrderQuery['me']>;
type Order = NonNullable<Customer['orders']>[number];

const usd = (amount: string) => ({ amount, currencyCode: 'USD' });

/** Every per-order part of the field table null: a part the summary does not show is no part of these tests. */
const NO_PARTS = Object.fromEntries(Object.keys(ORDER_FIELD_OPERATIONS).map((field) => [field, null])) as {
  [F in keyof typeof ORDER_FIELD_OPERATIONS]: null;
};

/** Every field WholeOrder asks of the customer null: a field the summary does not read needs no value here. */
const NO_CUSTOMER_FIELDS = Object.fromEntries(selectionAt(WholeOrderDocument, ['me']).map(({ name }) => [name, null])) as {
  [F in keyof Customer]: null;
};

/** A READY_FOR_PICKUP order with every part the summary shows present, as the gateway would send it. */
function readyOrder(overrides: Partial<Order> = {}): Order {
  return {
    ...NO_PARTS,
    id: 'order-1',
    reservationId: 'OC-TEST1',
    status: 'READY_FOR_PICKUP',
    rawStatus: 'READY_FOR_PICKUP',
    createdAt: '2026-02-14T18:01:33.420Z',
    updatedAt: null,
    cancelledAt: null,
    completedAt: null,
    buildEditableUntil: null,
    delivered: false,
    product: {
      model: 'OCEAN',
      modelLabel: null,
      trim: 'ONE',
      trimLabel: null,
      country: 'United States',
      msrp: usd('68999.00'),
      preorderFee: null,
      deliveryFees: null,
    },
    configuration: null,
    vehicle: {
      vin: 'VINTEST0000000001',
      model: 'OC',
      modelLabel: null,
      modelYear: 2026,
      trim: 'O1',
      trimLabel: null,
      exterior: 'BSB',
      exteriorLabel: null,
      interior: 'BL',
      interiorLabel: null,
      wheel: 'F3B',
      wheelLabel: null,
      salesCountry: 'US',
      digitalId: null,
      lastUpdatedAt: null,
    },
    pickup: {
      locationId: 'cp-1',
      name: 'Center Plus Test',
      latitude: null,
      longitude: null,
      timeZone: null,
      phone: null,
      email: null,
      available: true,
      earliestPickupDate: '2026-11-27',
      address: {
        id: null,
        line1: '1 Test Way',
        line2: null,
        city: 'Testville',
        region: 'CA',
        postalCode: '90000',
        country: 'United States',
        type: null,
        primary: null,
        validated: null,
      },
      distance: { value: 12.4, unit: 'MI' },
    },
    estimate: {
      isEstimate: true,
      calculatedAt: null,
      vehiclePrice: usd('68999.00'),
      optionsTotal: null,
      fees: [],
      feesTotal: null,
      taxes: [],
      taxTotal: null,
      credits: [],
      tradeInCredit: null,
      total: usd('1234567.10'),
      paidTotal: usd('5000.00'),
      // More digits than a double holds: must come out exactly as sent.
      amountDue: usd('9007199254740993.05'),
    },
    shippingAddress: null,
    addresses: [],
    payments: [
      {
        id: 'pay-1',
        feeType: 'ORDER_FEE',
        status: 'SUCCEEDED',
        method: 'CREDIT_CARD',
        refundable: false,
        paidAt: '2026-02-14T18:03:17.902Z',
        createdAt: null,
        amount: usd('5000.00'),
        card: { brand: 'VISA', last4: '4242', expiryDate: null },
      },
    ],
    tradeIn: {
      id: 'trade-1',
      status: 'OFFER_ACCEPTED',
      partner: null,
      partnerReferenceId: null,
      lienHolder: null,
      vehicle: { vin: null, year: 2018, make: 'Audi', model: 'Q5', trim: null, mileage: null, mileageUnit: null, condition: null },
      offer: { expiresAt: '2026-12-15T07:59:59.000Z', amount: usd('24500.00') },
      payoffAmount: usd('6000.00'),
      netCredit: usd('18500.00'),
    },
    availability: availabilityAt(overrides.status ?? 'READY_FOR_PICKUP'),
    ...overrides,
  };
}

/** `Order.availability` as the gateway sends it for an order in this status (from the SDK's stage table). */
function availabilityAt(status: OrderStatus): Order['availability'] {
  return Object.entries(AVAILABLE_FROM).map(([field, from]) => ({
    part: field.toUpperCase() as OrderPart,
    from,
    available: canHaveValue(status, from),
  }));
}

function customer(orders: Order[] | null): Customer {
  return {
    ...NO_CUSTOMER_FIELDS,
    id: 'user-1',
    email: 'test@demo.test',
    emailVerified: true,
    firstName: 'Test',
    lastName: 'Customer',
    phoneNumber: null,
    country: 'US',
    locale: 'en-US',
    createdAt: null,
    address: null,
    orders,
  };
}

const result = (orders: Order[] | null, errors: OrderGraphError[] = []): OrderResult<WholeOrderQuery> => ({
  data: { me: customer(orders) },
  errors,
});

const fieldError = (field: string, code: string, index = 0): OrderGraphError => ({
  message: `${field} failed`,
  path: ['me', 'orders', index, field],
  extensions: { code },
});

/** The text after a field's label, continuation lines included. */
function section(text: string, label: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.trimStart().startsWith(`${label} `));
  expect(start, `no ${label} line in:\n${text}`).toBeGreaterThanOrEqual(0);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => !/^ {4,}\S/.test(line));
  return [lines[start]!, ...rest.slice(0, end < 0 ? undefined : end)].join('\n');
}

describe('stage', () => {
  it.each([
    ['RESERVED', 'Stage 1 of 8: reserved'],
    ['ORDER_CONFIRMED', 'Stage 3 of 8: order confirmed'],
    ['IN_PRODUCTION', 'Stage 5 of 8: in production'],
    ['READY_FOR_PICKUP', 'Stage 7 of 8: ready for pickup'],
    ['DELIVERED', 'Stage 8 of 8: delivered'],
  ] as const)('%s reads "%s"', (status, expected) => {
    expect(stageLine(status, status)).toBe(expected);
  });

  it('draws progress as filled stages and names the next one', () => {
    expect(progressLine('READY_FOR_PICKUP')).toBe('●●●●●●●○  next: delivered');
    expect(progressLine('RESERVED')).toBe('●○○○○○○○  next: order placed, payment pending');
    expect(progressLine('DELIVERED')).toBe('●●●●●●●●  complete');
  });

  it('says cancelled and unknown statuses plainly, without a stage or progress', () => {
    expect(stageLine('CANCELLED', 'CANCELLED')).toMatch(/^Cancelled/);
    expect(progressLine('CANCELLED')).toBeNull();
    expect(stageLine('UNKNOWN', 'AWAITING_SHIP')).toContain('Unknown status "AWAITING_SHIP"');
    expect(progressLine('UNKNOWN')).toBeNull();

    const text = summarize(result([readyOrder({ status: 'CANCELLED', rawStatus: 'CANCELLED', cancelledAt: '2026-07-09T09:03:27.441Z' })]));
    expect(section(text, 'Status')).toContain('Cancelled on 2026-07-09');
    expect(text).not.toMatch(/Stage \d/);
  });

  it('puts the stage line and progress under Status in the summary', () => {
    const status = section(summarize(result([readyOrder()])), 'Status');
    expect(status).toContain('Stage 7 of 8: ready for pickup');
    expect(status).toContain('●●●●●●●○');
  });
});

describe('money', () => {
  it.each([
    [usd('68999.00'), '68,999.00 USD'],
    [usd('0.00'), '0.00 USD'],
    [usd('250'), '250 USD'],
    [usd('-1000.5'), '-1,000.5 USD'],
    [{ amount: '63136.69', currencyCode: 'EUR' }, '63,136.69 EUR'],
    [usd('9007199254740993.05'), '9,007,199,254,740,993.05 USD'],
    [usd('not-a-number'), 'not-a-number USD'],
  ])('%j prints %j', (money, expected) => {
    expect(formatMoney(money)).toBe(expected);
  });

  it('shows amount due, total, payments and trade-in amounts with their currency', () => {
    const text = summarize(result([readyOrder()]));
    expect(section(text, 'Amount due')).toMatch(/ 9,007,199,254,740,993\.05 USD\n +total 1,234,567\.10 USD, paid 5,000\.00 USD, estimate$/);
    expect(section(text, 'Payments')).toContain('5,000.00 USD · succeeded · VISA ending 4242');
    expect(section(text, 'Trade-in')).toContain('offer accepted · 2018 Audi Q5');
    expect(section(text, 'Trade-in')).toContain('offer 24,500.00 USD, valid until 2026-12-15\n');
    expect(section(text, 'Trade-in')).toContain('net credit 18,500.00 USD');
  });
});

describe('a whole summary', () => {
  it('every line of a summary fits 80 columns: an order at every stage, cancelled and unknown, its parts there, not yet there or failed', () => {
    const statuses: OrderStatus[] = [...ORDER_STAGES, 'CANCELLED', 'UNKNOWN'];
    const summaries = statuses.flatMap((status) => {
      const order = readyOrder({
        status,
        rawStatus: status === 'UNKNOWN' ? 'AWAITING_SHIP' : status,
        cancelledAt: '2026-07-09T09:03:27.441Z',
      });
      const notYet = Object.fromEntries(
        Object.entries(AVAILABLE_FROM).flatMap(([part, from]) => (canHaveValue(status, from) ? [] : [[part, null]])),
      );
      return [
        summarize(result([order])),
        summarize(result([{ ...order, ...notYet }])),
        summarize(
          result(
            [{ ...order, ...NO_PARTS }],
            Object.keys(NO_PARTS).map((part) => fieldError(part, 'UPSTREAM_ERROR')),
          ),
        ),
      ];
    });
    const lines = summaries.flatMap((text) => text.split('\n'));
    expect(lines.length).toBeGreaterThan(statuses.length * 3 * 7);
    expect(lines.filter((line) => [...line].length > 80)).toEqual([]);
  });

  it('shows each code with its words where the gateway has them, a code without as itself, within 80 columns', () => {
    const order = readyOrder();
    order.product = { ...order.product!, modelLabel: 'Ocean' };
    order.vehicle = { ...order.vehicle!, exteriorLabel: 'Big Sur Blue', wheelLabel: '22-inch Black' };
    const text = summarize(result([order]));
    expect(text).toContain('Order OC-TEST1 · Ocean (OCEAN) ONE');
    expect(section(text, 'Vehicle')).toBe(
      [
        '  Vehicle     VIN VINTEST0000000001 · model year 2026',
        '              exterior Big Sur Blue (BSB)',
        '              interior BL',
        '              wheels 22-inch Black (F3B)',
      ].join('\n'),
    );
  });

  it('holds the customer, the order heading, vehicle and pickup centre', () => {
    const text = summarize(result([readyOrder()]));
    expect(text.split('\n')[0]).toBe('Test Customer (test@demo.test) · 1 order');
    expect(text).toContain('Order OC-TEST1 · OCEAN ONE');
    expect(section(text, 'Vehicle')).toBe(
      ['  Vehicle     VIN VINTEST0000000001 · model year 2026', '              exterior BSB, interior BL, wheels F3B'].join('\n'),
    );
    const pickup = section(text, 'Pickup');
    expect(pickup).toContain('Center Plus Test');
    expect(pickup).toContain('1 Test Way, Testville, CA 90000, United States');
    expect(pickup).toContain('12.4 mi away · earliest pickup 2026-11-27');
    expect(text).not.toMatch(/not available|could not be loaded|none/);
  });

  it('gives each order its own block', () => {
    const text = summarize(result([readyOrder(), readyOrder({ reservationId: 'OC-TEST2', status: 'DELIVERED', rawStatus: 'DELIVERED' })]));
    expect(text.split('\n')[0]).toContain('2 orders');
    expect(text).toContain('Order OC-TEST1');
    expect(text).toContain('Order OC-TEST2');
    expect(text).toContain('Stage 8 of 8: delivered');
  });
});

describe('a null field says why it is null', () => {
  const early = (overrides: Partial<Order> = {}) =>
    readyOrder({ status: 'RESERVED', rawStatus: 'RESERVED', vehicle: null, pickup: null, estimate: null, ...overrides });

  it('a stage not reached (its availability, no error): not available yet, and from which stage', () => {
    const text = summarize(result([early()]));
    expect(section(text, 'Vehicle')).toContain('not available yet (comes at stage 5 of 8: in production)');
    expect(section(text, 'Pickup')).toContain('not available yet (comes at stage 6 of 8: in transit)');
    expect(section(text, 'Amount due')).toContain('not available yet (comes at stage 3 of 8: order confirmed)');
  });

  it('only the parts the stage has not reached: an IN_PRODUCTION order has its vehicle, not its pickup', () => {
    const text = summarize(result([readyOrder({ status: 'IN_PRODUCTION', rawStatus: 'IN_PRODUCTION', pickup: null })]));
    expect(section(text, 'Vehicle')).toContain('VIN VINTEST0000000001');
    expect(section(text, 'Pickup')).toContain('not available yet (comes at stage 6 of 8: in transit)');
  });

  it('a cancelled order: not "yet"', () => {
    const order = early({ status: 'CANCELLED', rawStatus: 'CANCELLED' });
    const text = summarize(result([order]));
    expect(section(text, 'Vehicle')).toContain('not available for a cancelled order');
    expect(section(text, 'Vehicle')).not.toContain('yet');
  });

  it('a failure before its stage: could not be loaded, not "not available yet"', () => {
    const text = summarize(result([early()], [fieldError('vehicle', 'UPSTREAM_ERROR')]));
    expect(section(text, 'Vehicle')).toBe('  Vehicle     could not be loaded right now (UPSTREAM_ERROR)');
    expect(section(text, 'Pickup')).toContain('not available yet (comes at stage 6 of 8: in transit)');
  });

  it('a status the API does not know (UNKNOWN, every part available): a part that is there is shown, one that is not is none, never "not available yet"', () => {
    const text = summarize(result([readyOrder({ status: 'UNKNOWN', rawStatus: 'QUALITY_HOLD', pickup: null, estimate: null })]));
    expect(section(text, 'Vehicle')).toContain('VIN VINTEST0000000001');
    expect(section(text, 'Pickup')).toBe('  Pickup      none');
    expect(text).not.toContain('not available');
  });

  it('NOT_AVAILABLE (a stage refusal the contract does not foresee): not available yet, not a failure', () => {
    const order = readyOrder({ vehicle: null });
    const text = summarize(result([order], [fieldError('vehicle', 'NOT_AVAILABLE')]));
    expect(section(text, 'Vehicle')).toBe('  Vehicle     not available yet');
  });

  it('no error, at its stage: none', () => {
    const text = summarize(result([readyOrder({ vehicle: null, tradeIn: null, payments: [] })]));
    expect(section(text, 'Trade-in')).toBe('  Trade-in    none');
    expect(section(text, 'Payments')).toBe('  Payments    none');
    expect(section(text, 'Vehicle')).toBe('  Vehicle     none assigned yet');
    expect(text).not.toContain('not available');
  });

  it('another error: could not be loaded right now, with its code, and the rest still shows', () => {
    const order = readyOrder({ pickup: null, tradeIn: null, payments: null });
    const errors = [
      fieldError('pickup', 'UPSTREAM_ERROR'),
      fieldError('tradeIn', 'UPSTREAM_TIMEOUT'),
      fieldError('payments', 'RATE_LIMITED'),
    ];
    const text = summarize(result([order], errors));
    expect(section(text, 'Pickup')).toBe('  Pickup      could not be loaded right now (UPSTREAM_ERROR)');
    expect(section(text, 'Trade-in')).toBe('  Trade-in    could not be loaded right now (UPSTREAM_TIMEOUT)');
    expect(section(text, 'Payments')).toBe('  Payments    could not be loaded right now (RATE_LIMITED)');
    expect(section(text, 'Vehicle')).toContain('VIN VINTEST0000000001');
    expect(blockingError(result([order], errors))).toBeNull();
  });

  it("matches errors to their own order's path", () => {
    const orders = [readyOrder(), readyOrder({ reservationId: 'OC-TEST2', vehicle: null })];
    const text = summarize(result(orders, [fieldError('vehicle', 'UPSTREAM_ERROR', 1)]));
    const [first, second] = text.split('Order OC-TEST2');
    expect(first).toContain('VIN VINTEST0000000001');
    expect(second).toContain('could not be loaded right now (UPSTREAM_ERROR)');
  });
});

describe('when there is nothing to show', () => {
  it('no orders: says so', () => {
    expect(summarize(result([]))).toBe('Test Customer (test@demo.test)\n\nYou have no orders yet.\n');
    expect(blockingError(result([]))).toBeNull();
  });

  it('the order list failed: says it could not be loaded, and blocks', () => {
    const error: OrderGraphError = { message: 'x', path: ['me', 'orders'], extensions: { code: 'UPSTREAM_ERROR' } };
    expect(summarize(result(null, [error]))).toContain('Your orders could not be loaded right now (UPSTREAM_ERROR).');
    expect(blockingError(result(null, [error]))).toBe(error);
  });

  it('me is null: blocks with its error', () => {
    const error: OrderGraphError = { message: 'x', path: ['me'], extensions: { code: 'UPSTREAM_TIMEOUT' } };
    const failed: OrderResult<WholeOrderQuery> = { data: { me: null }, errors: [error] };
    expect(blockingError(failed)).toBe(error);
    expect(summarize(failed)).toContain('could not be loaded right now (UPSTREAM_TIMEOUT)');
  });
});

describe('--json', () => {
  it('splits me into customer and orders, and keeps every error', () => {
    const errors = [fieldError('pickup', 'UPSTREAM_ERROR')];
    const order = readyOrder({ pickup: null });
    const parsed = JSON.parse(toJson(result([order], errors)));
    const { orders: _orders, ...rest } = customer([order]);
    expect(parsed).toEqual({ customer: rest, orders: [order], errors });
  });

  it('me null: customer and orders null', () => {
    const errors: OrderGraphError[] = [{ message: 'x', path: ['me'], extensions: { code: 'UPSTREAM_ERROR' } }];
    expect(JSON.parse(toJson({ data: { me: null }, errors }))).toEqual({ customer: null, orders: null, errors });
  });
});

describe('--watch lines', () => {
  // Times are shown in the local time zone: here the US Central one (UTC-6 in November).
  beforeEach(() => vi.stubEnv('TZ', 'America/Chicago'));
  afterEach(() => vi.unstubAllEnvs());
  const update = (changes: { field: string; from: string | null; to: string | null }[], status: Order['status'] = 'DELIVERED') => ({
    observedAt: '2026-11-23T16:04:56.912Z',
    changes,
    order: { ...readyOrder({ status, rawStatus: status }) },
  });
  const before = { id: 'order-1', status: 'READY_FOR_PICKUP' as const, rawStatus: 'READY_FOR_PICKUP' };
  const delivered = update([
    { field: 'status', from: 'READY_FOR_PICKUP', to: 'DELIVERED' },
    { field: 'rawStatus', from: 'READY_FOR_PICKUP', to: 'DELIVERED' },
    { field: 'updatedAt', from: '2026-11-20T09:00:00.000Z', to: '2026-11-23T16:04:00.000Z' },
    { field: 'completedAt', from: null, to: '2026-11-23T16:04:00.000Z' },
    { field: 'delivered', from: 'false', to: 'true' },
  ]);

  it('one line per event: when (local time, to the minute), the reservation, each change (statuses in words, times local)', () => {
    expect(changeLine(delivered, before, false, 200)).toBe(
      '2026-11-23 10:04  OC-TEST1  status: ready for pickup → delivered; completedAt: none → 2026-11-23 10:04; delivered: false → true\n',
    );
    vi.stubEnv('TZ', 'Europe/Berlin');
    expect(changeLine(delivered, before, false, 200)).toMatch(/^2026-11-23 17:04 {2}OC-TEST1 {2}.* completedAt: none → 2026-11-23 17:04;/);
  });

  it('fits the width: the changes after the first named, then counted, then the line cut; never wider', () => {
    const at = (width: number) => changeLine(delivered, before, false, width)!.trimEnd();
    expect(at(100)).toBe('2026-11-23 10:04  OC-TEST1  status: ready for pickup → delivered; also completedAt, delivered');
    expect(at(80)).toBe('2026-11-23 10:04  OC-TEST1  status: ready for pickup → delivered (+2 more)');
    expect(at(50)).toBe('2026-11-23 10:04  OC-TEST1  status: ready for pic…');
    for (const width of [20, 50, 73, 74, 80, 93, 94, 120]) expect([...at(width)].length).toBeLessThanOrEqual(width);
  });

  it('leaves out what another change already says: rawStatus beside a status in words, updatedAt beside any other change', () => {
    const line = (changes: { field: string; from: string | null; to: string | null }[], status: Order['status'] = 'DELIVERED') =>
      changeLine(update(changes, status), before, false, 200)!.trimEnd().split('  ')[2];
    expect(line([{ field: 'updatedAt', from: '2026-11-20T09:00:00.000Z', to: '2026-11-23T16:04:00.000Z' }])).toBe(
      'updatedAt: 2026-11-20 03:00 → 2026-11-23 10:04',
    );
    // An unknown status says nothing its raw value does not: the raw value stays.
    expect(
      line(
        [
          { field: 'status', from: 'DELIVERED', to: 'UNKNOWN' },
          { field: 'rawStatus', from: 'DELIVERED', to: 'RETURNED' },
        ],
        'UNKNOWN',
      ),
    ).toBe('status: delivered → UNKNOWN; rawStatus: DELIVERED → RETURNED');
    // The status comes first, whatever order the event lists the changes in.
    expect(
      line([
        { field: 'delivered', from: 'false', to: 'true' },
        { field: 'status', from: 'READY_FOR_PICKUP', to: 'DELIVERED' },
      ]),
    ).toBe('status: ready for pickup → delivered; delivered: false → true');
  });

  it('--history: the same lines, newest first, the first observation as "first seen"', () => {
    const order = {
      ...readyOrder({ status: 'DELIVERED', rawStatus: 'DELIVERED' }),
      history: [
        { ...delivered, cursor: 'c2' },
        { observedAt: '2026-11-20T09:00:00.000Z', changes: [], cursor: 'c1' },
      ],
    };
    expect(historyLines([order], false).split('\n')).toEqual([
      changeLine(delivered, before, false)!.trimEnd(),
      '2026-11-20 03:00  OC-TEST1  first seen: ready for pickup',
      '',
    ]);
  });

  it('the state on subscribing: nothing when the status is the one last seen, the status change otherwise', () => {
    expect(changeLine(update([], 'READY_FOR_PICKUP'), before, false)).toBeNull();
    expect(changeLine(update([], 'DELIVERED'), undefined, false)).toBeNull();
    expect(changeLine(update([], 'DELIVERED'), before, false)).toContain('status: ready for pickup → delivered');
  });

  it('--json: the event as one line of JSON', () => {
    const line = changeLine(update([{ field: 'status', from: 'READY_FOR_PICKUP', to: 'DELIVERED' }]), before, true)!;
    expect(line.trimEnd()).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      observedAt: '2026-11-23T16:04:56.912Z',
      orderId: 'order-1',
      reservationId: 'OC-TEST1',
      status: 'DELIVERED',
      changes: [{ field: 'status', from: 'READY_FOR_PICKUP', to: 'DELIVERED' }],
    });
  });
});

describe('what reaches the terminal', () => {
  /** Everything a terminal acts on rather than prints, but the line breaks the summary itself puts in. */
  const ACTS_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
  const HOSTILE = 'Evil\u001b[2J\u001b]0;pwned\u0007\r\b\bName\nForged: line\u009b31m\u202eTxe';

  it("printable: removes escape sequences' ESC, BEL, BS, DEL, C1 and bidi controls; CR, LF, TAB and the Unicode separators become spaces", () => {
    expect(printable(HOSTILE)).toBe('Evil[2J]0;pwned Name Forged: line31mTxe');
    expect(printable('a\tb\u000bc\u000cd\u0085e\u2028f\u2029g')).toBe('a b c d e f g');
    expect(printable('\u0000\u007f\u0080\u009f\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069')).toBe('');
  });

  it('printable: leaves ordinary text alone (accents, other scripts, emoji, the progress dots)', () => {
    const text = 'Zoë Ørsted · 東京 · مرحبا · 🚗 ●●○ 68,999.00 €';
    expect(printable(text)).toBe(text);
  });

  /** The text fields of an order and its customer that come from upstream as they are. */
  const withText = (text: string): OrderResult<WholeOrderQuery> => {
    const order = readyOrder({ rawStatus: text, status: 'UNKNOWN', reservationId: text });
    order.product = { ...order.product!, model: text };
    order.vehicle = { ...order.vehicle!, vin: text, exterior: text };
    order.pickup = { ...order.pickup!, name: text, address: { ...order.pickup!.address!, line1: text, city: text } };
    order.payments = [{ ...order.payments![0]!, card: { brand: text, last4: text, expiryDate: null } }];
    order.tradeIn = { ...order.tradeIn!, vehicle: { ...order.tradeIn!.vehicle!, make: text, model: text } };
    const me = { ...customer([order]), firstName: text, lastName: text, email: text };
    return { data: { me }, errors: [{ message: text, path: ['me', 'orders', 0, text], extensions: { code: text } }] };
  };

  it('the summary: whatever the upstream text, nothing a terminal acts on, and exactly the lines of a plain summary', () => {
    const plain = summarize(withText('plain')).split('\n').length;
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const shown = summarize(withText(text));
        expect(shown).not.toMatch(ACTS_ON);
        expect(shown.split('\n')).toHaveLength(plain);
      }),
      { numRuns: 300 },
    );
    expect(summarize(withText(HOSTILE))).toContain('Unknown status "Evil[2J]0;pwned Name Forged: line31mTxe"');
  });

  it('a --watch line: one line whatever the fields and values say; compared as received, so the same odd status twice is no change', () => {
    const before = { id: 'order-1', status: 'UNKNOWN' as const, rawStatus: HOSTILE };
    const event = (changes: { field: string; from: string | null; to: string | null }[], rawStatus = HOSTILE) => ({
      observedAt: '2026-11-23T16:04:56.912Z',
      changes,
      order: readyOrder({ status: 'UNKNOWN', rawStatus, reservationId: `OC-${HOSTILE}` }),
    });
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 }), (field, value) => {
        const line = changeLine(event([{ field, from: value, to: HOSTILE }]), before, false)!;
        expect(line.slice(0, -1)).not.toMatch(ACTS_ON);
        expect(line.endsWith('\n') && !line.slice(0, -1).includes('\n')).toBe(true);
        expect([...line.slice(0, -1)].length).toBeLessThanOrEqual(80);
      }),
      { numRuns: 200 },
    );
    expect(changeLine(event([]), before, false)).toBeNull();
    expect(changeLine(event([{ field: 'constructor', from: 'toString', to: 'constructor' }]), before, false, 200)).toContain(
      'constructor: toString → constructor',
    );
    expect(changeLine(event([{ field: 'status', from: 'toString', to: 'READY_FOR_PICKUP' }]), before, false, 200)).toContain(
      'status: toString → ready for pickup',
    );
  });

  it('--json: the text exactly as received, with every character a terminal acts on escaped', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const json = toJson(withText(text));
        expect(json).not.toMatch(ACTS_ON);
        expect(JSON.parse(json).customer.firstName).toBe(text);
        const line = changeLine(
          { observedAt: '2026-11-23T16:04:56.912Z', changes: [{ field: text, from: null, to: text }], order: readyOrder() },
          undefined,
          true,
        )!;
        expect(line.slice(0, -1)).not.toMatch(/[\n\u0085\u2028\u2029]/);
        expect(JSON.parse(line).changes[0].to).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
