// Mapping upstream values to the schema's (src/graph/resolvers/mapping.ts,
// src/upstream/values.ts): decimals and money, dates, enums, and the shipping address picked.
import { describe, expect, it } from 'vitest';
import { money, toDate, toDateTime, toDistanceUnit, toEnum } from '../../src/graph/resolvers/mapping.js';
import { pickShippingAddress } from '../../src/graph/resolvers/order.js';
import type { Address } from '../../src/upstream/models.js';
import { readShape, UnreadableValue } from '../../src/upstream/shapes.js';
import { epochToDateTime, toDecimal, toIsoDateTime } from '../../src/upstream/values.js';

describe('toDecimal', () => {
  it.each([
    [68999, '68999.00'],
    [5000, '5000.00'],
    [12.5, '12.50'],
    [2863.46, '2863.46'],
    [0.1, '0.10'],
    [-250.75, '-250.75'],
    [0, '0.00'],
    ['4156.255', '4156.255'],
    [0.05, '0.05'],
    [-7.5, '-7.50'],
    ['100', '100.00'],
    [' 7.5 ', '7.50'],
  ])('%j becomes %j', (input, expected) => {
    expect(toDecimal(input)).toBe(expected);
  });

  it('keeps every digit of amounts where float arithmetic would not', () => {
    // 0.1 + 0.2 is 0.30000000000000004 as a float: amounts are never added up.
    expect(toDecimal(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(toDecimal(9007199254740.99)).toBe('9007199254740.99');
  });

  it.each([null, undefined, Number.NaN, Infinity, 1e21, 'abc', '1e5', '', '12.', {}])('rejects %j', (input) => {
    expect(toDecimal(input)).toBeNull();
  });
});

describe('money', () => {
  it('pairs the amount with the currency of its record', () => {
    expect(money(68999, 'USD')).toEqual({ amount: '68999.00', currencyCode: 'USD' });
  });
  it('is null without a currency or a readable amount', () => {
    expect(money(10, null)).toBeNull();
    expect(money(10, '')).toBeNull();
    expect(money(null, 'USD')).toBeNull();
  });
});

describe('dates', () => {
  it('normalises timestamps to ISO 8601 UTC', () => {
    expect(toDateTime('2023-07-20T07:15:58.278Z')).toBe('2023-07-20T07:15:58.278Z');
    expect(toDateTime('2023-07-20T09:15:58+02:00')).toBe('2023-07-20T07:15:58.000Z');
    expect(toDateTime('not a date')).toBeNull();
    expect(toDateTime(null)).toBeNull();
  });
  it.each([
    ['2024-02-29T23:59:59.999Z', '2024-02-29T23:59:59.999Z'],
    ['2000-02-29T00:00:00.000Z', '2000-02-29T00:00:00.000Z'],
    ['0000-01-01T00:00:00.000Z', '0000-01-01T00:00:00.000Z'],
    // Days a month does not have, and the end of a day, Date.parse moves on: written as toISOString writes them.
    ['2026-02-30T00:00:00.000Z', '2026-03-02T00:00:00.000Z'],
    ['2026-02-29T12:00:00.000Z', '2026-03-01T12:00:00.000Z'],
    ['1900-02-29T00:00:00.000Z', '1900-03-01T00:00:00.000Z'],
    ['2026-04-31T00:00:00.000Z', '2026-05-01T00:00:00.000Z'],
    ['2026-01-01T24:00:00.000Z', '2026-01-02T00:00:00.000Z'],
    ['2026-01-01T10:00:00.5Z', '2026-01-01T10:00:00.500Z'],
    ['2026-01-01T23:59:60.000Z', null],
    ['2026-13-01T00:00:00.000Z', null],
  ])('reads %s as toISOString writes it: %s', (given, written) => {
    expect(toIsoDateTime(given)).toBe(written);
  });
  it('reads expirations in epoch seconds or milliseconds', () => {
    expect(epochToDateTime(1763884800)).toBe('2025-11-23T08:00:00.000Z');
    expect(epochToDateTime(1763884800123)).toBe('2025-11-23T08:00:00.123Z');
    expect(epochToDateTime('1763884800')).toBe('2025-11-23T08:00:00.000Z');
    expect(epochToDateTime(null)).toBeNull();
    expect(epochToDateTime(Number.NaN)).toBeNull();
    expect(epochToDateTime(1e300)).toBeNull();
    expect(epochToDateTime(-5)).toBeNull();
  });
  it('keeps calendar dates as YYYY-MM-DD', () => {
    expect(toDate('2023-08-14')).toBe('2023-08-14');
    expect(toDate('2023-08-14T00:00:00Z')).toBe('2023-08-14');
    expect(toDate('14/08/2023')).toBeNull();
    expect(toDate(undefined)).toBeNull();
  });
});

describe('a date-time the contract holds a field to (the dateTime kind of a shape)', () => {
  const shape = { fields: { startsAt: 'dateTime', endsAt: 'dateTime' }, required: ['startsAt'] } as const;

  it('is read as sent when Date.parse reads it, so the DateTime scalar can serialise it as it is', () => {
    expect(toIsoDateTime('2026-11-28T09:30:00-08:00')).toBe('2026-11-28T17:30:00.000Z');
    expect(readShape('customerDetails', shape, { startsAt: '2026-11-28T17:30:00Z', other: 1 })).toEqual({
      startsAt: '2026-11-28T17:30:00Z',
    });
  });

  it.each(['', 'soon', 'x'.repeat(1000), 1763884800, null, {}])('%j is no date-time', (value) => {
    expect(toIsoDateTime(value)).toBeNull();
  });

  it('one that is not a date-time: a required one makes the body not one, another is that field’s error alone', () => {
    expect(readShape('customerDetails', shape, { startsAt: 'soon' })).toBeNull();
    const read = readShape('customerDetails', shape, { startsAt: '2026-11-28T17:30:00Z', endsAt: 'later' }) as Record<string, unknown>;
    expect(read.startsAt).toBe('2026-11-28T17:30:00Z');
    expect(read.endsAt).toBeInstanceOf(UnreadableValue);
    expect((read.endsAt as Error).message).toContain('endsAt');
  });
});

describe('a body checked where it lies (readShape)', () => {
  const shape = { fields: { startsAt: 'dateTime', endsAt: 'dateTime', price: 'amount' }, required: ['startsAt'] } as const;
  const list = { list: shape, maxItems: 5 } as const;

  it('keeps a body whose every key is its shape’s as it is, a field of the wrong shape replaced where it lies', () => {
    const body: Record<string, unknown> = { startsAt: '2026-11-28T17:30:00Z', endsAt: 'later', price: 12.5 };
    expect(readShape('customerDetails', shape, body)).toBe(body);
    expect(body.endsAt).toBeInstanceOf(UnreadableValue);
    expect(body).toMatchObject({ startsAt: '2026-11-28T17:30:00Z', price: 12.5 });
  });

  it('copies an object with a key its shape does not name, in its place in the list, with the shape’s fields alone', () => {
    const body = JSON.parse(
      '[{"startsAt":"2026-11-28T17:30:00Z"},{"startsAt":"2026-11-28T17:30:00Z","endsAt":null,"other":1},{"startsAt":"2026-11-28T17:30:00Z","__proto__":{"polluted":true}}]',
    ) as Record<string, unknown>[];
    const [first] = body;
    const read = readShape('customerDetails', list, body) as Record<string, unknown>[];
    expect(read).toBe(body);
    expect(read[0]).toBe(first);
    expect(Object.keys(read[1]!)).toEqual(['startsAt', 'endsAt']);
    expect(read[1]!.endsAt).toBeNull();
    expect(Object.keys(read[2]!)).toEqual(['startsAt']);
    expect(Object.getPrototypeOf(read[2])).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([68999, 12.5, -0, 1e-6, 9.99e20, 1e21, 1e-7, Number.NaN, ' 12.5 ', '1e5', '12.', 'x'.repeat(41)])(
    'takes the amount %j exactly when toDecimal reads it',
    (price) => {
      const read = readShape('customerDetails', shape, { startsAt: '2026-11-28T17:30:00Z', price }) as Record<string, unknown>;
      expect(read.price instanceof UnreadableValue).toBe(toDecimal(price) === null);
    },
  );
});

describe('enums', () => {
  it('maps known values and anything else to UNKNOWN', () => {
    const known = ['PENDING', 'SUCCEEDED'] as const;
    expect(toEnum('SUCCEEDED', known)).toBe('SUCCEEDED');
    expect(toEnum('succeeded', known)).toBe('SUCCEEDED');
    expect(toEnum('CHARGEBACK', known)).toBe('UNKNOWN');
    expect(toEnum(null, known)).toBe('UNKNOWN');
  });
  it('reads distance units in either case, null otherwise', () => {
    expect(toDistanceUnit('mi')).toBe('MI');
    expect(toDistanceUnit('KM')).toBe('KM');
    expect(toDistanceUnit('miles')).toBeNull();
  });
});

describe('pickShippingAddress', () => {
  const address = (id: string, addressType: string, primary: boolean): Address => ({ id, addressType, primary });
  it('takes the primary DELIVERY address, even when listed after another', () => {
    const picked = pickShippingAddress([
      address('billing', 'BILLING', true),
      address('secondary', 'DELIVERY', false),
      address('primary', 'DELIVERY', true),
    ]);
    expect(picked?.id).toBe('primary');
  });
  it('falls back to the first DELIVERY address, and to null without one', () => {
    expect(pickShippingAddress([address('a', 'DELIVERY', false), address('b', 'DELIVERY', false)])?.id).toBe('a');
    expect(pickShippingAddress([address('billing', 'BILLING', true)])).toBeNull();
    expect(pickShippingAddress([])).toBeNull();
  });
});
