import type { Money } from '../__generated__/resolvers-types.js';
import type { UpstreamMoney } from '../upstream/models.js';

/** An exact decimal as text: digits, an optional sign and an optional fraction. */
export const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * An upstream amount as an exact decimal string with at least two decimals: 68999 → "68999.00",
 * 12.5 → "12.50", "4156.255" stays. A JSON number is read through its shortest round-trip
 * form, so no float arithmetic ever touches it.
 */
export function toDecimal(value: UpstreamMoney | null | undefined): string | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    text = String(value);
    // 1e21 and above, or below 1e-6, print in exponent form: neither is a price.
    if (!DECIMAL.test(text)) return null;
  } else if (typeof value === 'string' && DECIMAL.test(value.trim())) {
    text = value.trim();
  } else {
    return null;
  }
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

/** An amount with the currency of its record; null when either is missing or unreadable. */
export function money(amount: UpstreamMoney | null | undefined, currencyCode: string | null | undefined): Money | null {
  const decimal = toDecimal(amount);
  return decimal !== null && currencyCode ? { amount: decimal, currencyCode } : null;
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
export function toDateTime(value: string | null | undefined): string | null {
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** An upstream expiry in epoch seconds, or milliseconds when above 1e12, as ISO 8601 UTC. */
export function epochToDateTime(value: number | string | null | undefined): string | null {
  const epoch = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof epoch !== 'number' || !Number.isFinite(epoch) || epoch < 0) return null;
  const date = new Date(epoch > 1e12 ? epoch : epoch * 1000);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** A calendar date as YYYY-MM-DD; null when absent or not one. */
export function toDate(value: string | null | undefined): string | null {
  const match = value?.match(/^(\d{4}-\d{2}-\d{2})/);
  return match?.[1] && !Number.isNaN(Date.parse(match[1])) ? match[1] : null;
}

/** An upstream string as one of a GraphQL enum's values; UNKNOWN for anything else. */
export function toEnum<T extends string>(value: string | null | undefined, known: readonly T[]): T | 'UNKNOWN' {
  const upper = value?.trim().toUpperCase();
  return known.find((candidate) => candidate === upper) ?? 'UNKNOWN';
}

/** mi/km (any case) as the DistanceUnit enum; null for anything else. */
export function toDistanceUnit(value: string | null | undefined): 'MI' | 'KM' | null {
  const unit = toEnum(value, ['MI', 'KM'] as const);
  return unit === 'UNKNOWN' ? null : unit;
}
