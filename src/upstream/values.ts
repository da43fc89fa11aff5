// How upstream values are read: shared by the operations (is the body what the contract
// promises?) and the resolvers (what the client sees), so both agree on what is readable.

/** An exact decimal as text: digits, an optional sign and an optional fraction. */
export const DECIMAL = /^-?\d+(\.\d+)?$/;

// The longest amount or date-time read as text: far past any price (a JSON number prints in at
// most 22 characters) or ISO 8601 date-time (about 30); a longer text is no such value, and is
// never copied into an answer.
const LONGEST_DECIMAL = 40;
const LONGEST_DATE_TIME = 64;

/**
 * Whether a value is an amount toDecimal reads: a finite JSON number printed without an
 * exponent, or a decimal text. It builds nothing, so a body's every amount is checked for free.
 */
export function isAmount(value: unknown): value is number | string {
  if (typeof value === 'number') return Number.isFinite(value) && DECIMAL.test(String(value));
  // 1e21 and above, or below 1e-6, print in exponent form: neither is a price.
  return typeof value === 'string' && value.length <= LONGEST_DECIMAL && DECIMAL.test(value.trim());
}

/**
 * An upstream amount as an exact decimal string with at least two decimals: 68999 → "68999.00",
 * 12.5 → "12.50", "4156.255" stays. A JSON number is read through its shortest round-trip
 * form, so no float arithmetic ever touches it.
 */
export function toDecimal(value: unknown): string | null {
  if (!isAmount(value)) return null;
  const [whole, fraction = ''] = (typeof value === 'number' ? String(value) : value.trim()).split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

/** An upstream expiry in epoch seconds, or milliseconds when above 1e12, as ISO 8601 UTC. */
export function epochToDateTime(value: unknown): string | null {
  const epoch = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
  if (typeof epoch !== 'number' || !Number.isFinite(epoch) || epoch < 0) return null;
  const date = new Date(epoch > 1e12 ? epoch : epoch * 1000);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Whether a value is a date-time toIsoDateTime reads; it builds nothing (no Date, no text). */
export const isDateTime = (value: unknown): value is string =>
  typeof value === 'string' && value !== '' && value.length <= LONGEST_DATE_TIME && !Number.isNaN(Date.parse(value));

/** An upstream date-time (a string Date.parse reads, ISO 8601 for one) as ISO 8601 UTC. */
export function toIsoDateTime(value: unknown): string | null {
  return isDateTime(value) ? new Date(Date.parse(value)).toISOString() : null;
}
