// How resolvers turn upstream values into what a client sees: money, date-times, dates, enums, units.
import type { Money } from '../__generated__/resolvers-types.js';
import type { UpstreamMoney } from '../../upstream/models.js';
import { readable } from '../../upstream/shapes.js';
import { toDecimal, toIsoDateTime } from '../../upstream/values.js';

// Each mapping reads its upstream values through `readable`: a value the upstream sent in the
// wrong shape makes the field null with its UPSTREAM_ERROR, rather than a quiet null.

/** An amount with the currency of its record; null when either is missing or unreadable. */
export function money(amount: UpstreamMoney | null | undefined, currencyCode: string | null | undefined): Money | null {
  const decimal = toDecimal(readable(amount));
  const currency = readable(currencyCode);
  return decimal !== null && currency ? { amount: decimal, currencyCode: currency } : null;
}

/**
 * For amounts the operation already checked (the contract requires them): a failure here
 * is a bug in that check, not bad upstream data.
 */
export function requiredMoney(amount: UpstreamMoney, currencyCode: string): Money {
  const result = money(amount, currencyCode);
  if (!result) throw new Error('An amount the operation accepted could not be read');
  return result;
}

/** An upstream timestamp as ISO 8601 UTC; null when absent or not a date. */
export function toDateTime(given: string | null | undefined): string | null {
  return toIsoDateTime(readable(given));
}

/** A calendar date as YYYY-MM-DD; null when absent or not one. */
export function toDate(value: string | null | undefined): string | null {
  const match = readable(value)?.match(/^(\d{4}-\d{2}-\d{2})/);
  return match?.[1] && !Number.isNaN(Date.parse(match[1])) ? match[1] : null;
}

/** An upstream string as one of a GraphQL enum's values; UNKNOWN for anything else. */
export function toEnum<T extends string>(value: string | null | undefined, known: readonly T[]): T | 'UNKNOWN' {
  const upper = readable(value)?.trim().toUpperCase();
  return known.find((candidate) => candidate === upper) ?? 'UNKNOWN';
}

/** mi/km (any case) as the DistanceUnit enum; null for anything else. */
export function toDistanceUnit(value: string | null | undefined): 'MI' | 'KM' | null {
  const unit = toEnum(value, ['MI', 'KM'] as const);
  return unit === 'UNKNOWN' ? null : unit;
}
